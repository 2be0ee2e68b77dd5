// The state-reading CUDA calls (model/query_calls.h) a recording leaves out
// of its records. CUPTI hooks them all the same while API records are on:
// each costs the program about half a microsecond (docs/benchmarks.md), and
// PyTorch makes 9 to 21 per kernel, so the run's capture-cost estimate counts
// them here, through callbacks, instead of charging launches alone.
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

// Counting on (while traced) or off. The first call subscribes; false when
// no callback can be had (another CUPTI subscriber) and nothing is counted.
bool countQueryCalls(bool on);

// The calls counted since the last take.
std::int64_t takeQueryCallCount();

}  // namespace ws::capture
