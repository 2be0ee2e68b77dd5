// A run's hardware counters (record --metrics) per kernel: FLOPs, DRAM bytes
// and achieved occupancy, averaged over the launches that have them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "model/records.h"
#include "store/run_queries.h"

namespace ws {

class Store;

struct KernelCounterStat {
    std::int64_t instances = 0;  // launches with counters
    double meanFlops = 0;        // FP32 + FP16 + tensor
    double meanTensorFlops = 0;
    double meanFp32Flops = 0;
    double meanDramBytes = 0;
    double meanNs = 0;  // of those launches (kernel replay: one pass's duration)
    std::optional<double> achievedOccupancy;  // mean, 0..1
    bool flopsCounted = false;                // false for a DRAM-only pass (--metrics dram)
    double dramGBs() const { return meanNs > 0 ? meanDramBytes / meanNs : 0; }
};

// By the kernel's name as recorded (mangled); empty when the run has no counters.
std::map<std::string, KernelCounterStat> kernelCounterStats(Store& store, RunId run,
                                                            TimeWindow window = {});

}  // namespace ws
