// The state-reading CUDA calls (model/query_calls.h) a recording leaves out
// of its records. CUPTI hooks them all the same while API records are on:
// each cost 0.42-0.60 us more traced than untraced in the calibration's loop
// on an H100 host, and PyTorch makes 9 (a loop of adds) to 21 (generate())
// per kernel as counted here (docs/benchmarks.md), so the run's capture-cost
// estimate counts them, through callbacks, instead of charging launches
// alone. Under --all-apis they are recorded, and counted the same way.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <vector>

namespace ws::capture {

struct QueryCall {
    CUpti_CallbackDomain domain;  // runtime or driver API
    CUpti_CallbackId cbid;
    const char* name;
};

// CUPTI's state-reading calls, looked up by name on first use.
const std::vector<QueryCall>& queryCalls();

// Leaves their activity records out, unless WARPSCOPE_ALL_APIS=1 (record
// --all-apis). Must follow the API kinds' enabling, which would undo it.
void leaveQueryCallsOut();

// Counting on (while traced) or off, for the runtime's calls and the
// driver's as their API records are on. The first call subscribes; false
// when no callback can be had (another CUPTI subscriber) and nothing is
// counted.
bool countQueryCalls(bool on, bool runtime, bool driver);

// The calls counted since the last take.
std::int64_t takeQueryCallCount();

}  // namespace ws::capture
