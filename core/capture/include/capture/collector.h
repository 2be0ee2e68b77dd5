// The collector inside the profiled process. CUPTI hands it full activity
// buffers; it queues them at once, and its writer thread converts and sends
// them to the recording launcher. A flusher thread makes CUPTI return records
// every 100 ms, so a killed program loses at most about that much.
#pragma once

namespace ws::capture {

// Starts collection once per process (CUDA and NVTX injection both call it).
// Returns false when the process was not started by `warpscope-cli record`.
bool startCollector();

}  // namespace ws::capture
