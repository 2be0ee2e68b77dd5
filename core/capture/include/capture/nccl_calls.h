// NCCL calls with their message sizes, from the NVTX payloads NCCL attaches
// to its ranges. CUPTI's NVTX records carry a range's name and times but not
// its payload, so after CUPTI has taken NVTX's function table, the collector
// puts itself in front of the domain range push and pop: a push with an NCCL
// collective's payload is remembered on its thread and emitted at its pop.
// Every other push costs one comparison more.
#pragma once

#include <cstdint>
#include <functional>

#include "model/records.h"

namespace ws::capture {

// Called from InitializeInjectionNvtx2 after CUPTI's own NVTX set-up, with the
// export-table getter NVTX handed us. `emit` runs on the thread that popped
// the range. Returns false (and changes nothing) when NVTX offers no core
// function table.
bool interposeNcclCalls(const void* (*getExportTable)(std::uint32_t),
                        std::function<void(const CollectiveCallRecord&)> emit);

}  // namespace ws::capture
