// Theoretical occupancy of a run's top kernels (by time), from a launch of
// each as recorded (block size, registers, static + dynamic shared memory)
// and the recorded device's limits, with the limiting resource, and the
// launch statistics Nsight Compute shows beside it: waves per SM and the
// tail effect of a last, partial wave.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/kernel_summary.h"
#include "analysis/occupancy.h"
#include "model/records.h"

namespace ws {

class Store;

// How a grid runs in waves, as Nsight Compute's "Launch Statistics" section
// and its "Tail Effect" rule count them. A wave is the most blocks the GPU
// holds at once (resident blocks per SM x SMs); a grid that is not a whole
// number of waves ends with a partial wave that leaves SM slots idle. With
// every block taking equally long (the rule's assumption) each wave, partial
// or not, takes one block's time, so the partial wave is 1 / (full waves + 1)
// of the kernel's duration however few blocks it has.
struct LaunchWaves {
    std::int64_t gridBlocks = 0;
    std::int64_t blocksPerWave = 0;  // resident blocks per SM x SMs
    double wavesPerSm = 0;           // gridBlocks / blocksPerWave, not rounded
    std::int64_t fullWaves = 0;
    std::int64_t partialWaveBlocks = 0;  // 0: no partial wave, no tail
    double partialWaveFill = 0;          // partialWaveBlocks / blocksPerWave, 0-1
    // Share of the kernel's duration spent in the partial wave, 0-1: Nsight
    // Compute's "may account for up to N% of the total kernel runtime".
    double tailDurationShare = 0;
    bool hasTail() const { return partialWaveBlocks > 0; }
};

// nullopt when any input is not positive (a launch that cannot run, a device
// that did not report its SMs). Clusters are not modelled: a cluster launch
// may fit fewer blocks per SM than the occupancy calculator gives.
std::optional<LaunchWaves> launchWaves(std::int64_t gridBlocks, int activeBlocksPerSm, int smCount);

struct KernelOccupancy {
    std::string name;  // short kernel name
    double timePercent = 0;
    LaunchResources launch;
    SmLimits sm;  // of the run's device: what-if curves vary the launch against it
    Occupancy occupancy;
    std::optional<LaunchWaves> waves;  // of the same recorded launch's grid
    std::optional<double> achieved;    // 0..1, from counters (record --metrics roofline)
};

// What a recorded launch asks of an SM: block size, registers, static +
// dynamic shared memory.
LaunchResources launchResourcesOf(const KernelRecord& kernel);

// The top kernels of `summary` (computed over `window`, which is scanned once
// more for one launch of each). Empty when the run has no device or no kernels.
std::vector<KernelOccupancy> topKernelOccupancy(Store& store, RunId run, const RunSummary& summary,
                                                TimeWindow window, int top = 8);

}  // namespace ws
