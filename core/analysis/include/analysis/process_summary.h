// Kernel time split by the process that launched it: a server's HTTP parent
// and its spawned engine workers, a launcher and its ranks. A GPU record's
// process comes from its stream (gpu_streams); each process's command line and
// end from the run's process.* properties (model/process_keys.h).
#pragma once

#include <vector>

#include "analysis/kernel_summary.h"
#include "model/process_keys.h"
#include "store/run_queries.h"

namespace ws {

class Store;

struct ProcessSummary {
    ProcessInfo process;  // pid 0: GPU work of streams with no known process
    std::int64_t kernels = 0;
    std::int64_t kernelNs = 0;
    std::int64_t memcpys = 0;
    std::int64_t memcpyBytes = 0;
    double kernelShare = 0;  // of all kernel time in the window
};

// Every process that reported or has GPU work, by kernel time (most first);
// kernels and copies overlapping `window` count. With `sameWindow`, the run's
// summary over that window, a run whose GPU work is all one process's takes
// its totals from there instead of reading every kernel a second time.
std::vector<ProcessSummary> summarizeProcesses(Store& store, RunId run, TimeWindow window = {},
                                               const RunSummary* sameWindow = nullptr);

}  // namespace ws
