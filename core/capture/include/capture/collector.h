// The collector inside the profiled process. CUPTI hands it full activity
// buffers; it queues them at once, and its writer thread converts and sends
// them to the recording launcher. A flusher thread makes CUPTI return records
// every 100 ms, so a killed program loses at most about that much.
#pragma once

#include <cstdint>

namespace ws::capture {

// Starts collection once per process (CUDA and NVTX injection both call it).
// Returns false when the process was not started by `warpscope-cli record`.
bool startCollector();

// After CUPTI's NVTX set-up: NCCL calls' message sizes from their NVTX
// payloads (capture/nccl_calls.h), sent as they end. False when NVTX offers
// no table to step into.
bool trackNcclCalls(const void* (*getExportTable)(std::uint32_t));

}  // namespace ws::capture
