// Theoretical occupancy of a run's top kernels (by time), from a launch of
// each as recorded (block size, registers, static + dynamic shared memory)
// and the recorded device's limits, with the limiting resource.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/kernel_summary.h"
#include "analysis/occupancy.h"
#include "model/records.h"

namespace ws {

class Store;

struct KernelOccupancy {
    std::string name;  // short kernel name
    double timePercent = 0;
    LaunchResources launch;
    SmLimits sm;  // of the run's device: what-if curves vary the launch against it
    Occupancy occupancy;
    std::optional<double> achieved;  // 0..1, from counters (record --metrics roofline)
};

// What a recorded launch asks of an SM: block size, registers, static +
// dynamic shared memory.
LaunchResources launchResourcesOf(const KernelRecord& kernel);

// The top kernels of `summary` (computed over `window`, which is scanned once
// more for one launch of each). Empty when the run has no device or no kernels.
std::vector<KernelOccupancy> topKernelOccupancy(Store& store, RunId run, const RunSummary& summary,
                                                TimeWindow window, int top = 8);

}  // namespace ws
