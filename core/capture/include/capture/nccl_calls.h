// NCCL calls with their message sizes, from the NVTX payloads NCCL attaches
// to its ranges. CUPTI's NVTX records carry a range's name and times but not
// its payload, so after CUPTI has taken NVTX's function table, the collector
// puts itself in front of the domain range push and pop: a push with an NCCL
// collective's payload is remembered on its thread (per domain, as NVTX
// pairs them) and emitted at its pop. Any other push costs a few stores.
#pragma once

#include <cstdint>
#include <functional>

#include "model/records.h"

namespace ws::capture {

struct NcclCallTracking {
    // Runs on the thread that popped the range, inside the user's NCCL call:
    // it must not block (queue the record, send it elsewhere).
    std::function<void(const CollectiveCallRecord&)> emit;
    std::int64_t (*now)() = nullptr;  // the clock records are stamped with
    // Whether a function NVTX's table holds is the tracer's (CUPTI's) own:
    // only those are stepped in front of, never NVTX's initialisation stub.
    bool (*isTracerFunction)(const void* function) = nullptr;
};

// Called from InitializeInjectionNvtx2 after CUPTI's own NVTX set-up, once
// per NVTX instance (each library embedding NVTX asks on its own), with the
// export-table getter NVTX handed it. Takes all three table slots (range
// push, range pop, string registration) or none: false, and nothing changed,
// when NVTX offers no such table or a slot holds something else than the
// functions the first instance had there. The first call's tracking is kept.
bool interposeNcclCalls(const void* (*getExportTable)(std::uint32_t),
                        const NcclCallTracking& tracking);

}  // namespace ws::capture
