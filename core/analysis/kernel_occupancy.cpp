#include "analysis/kernel_occupancy.h"

#include <map>

#include "store/run_queries.h"

namespace ws {

LaunchResources launchResourcesOf(const KernelRecord& k) {
    LaunchResources launch;
    launch.threadsPerBlock = int(k.threadsPerBlock());
    launch.registersPerThread = k.registersPerThread;
    launch.sharedBytesPerBlock = k.staticSharedBytes + k.dynamicSharedBytes;
    return launch;
}

std::optional<LaunchWaves> launchWaves(std::int64_t gridBlocks, int activeBlocksPerSm,
                                       int smCount) {
    if (gridBlocks <= 0 || activeBlocksPerSm <= 0 || smCount <= 0) return std::nullopt;
    LaunchWaves w;
    w.gridBlocks = gridBlocks;
    w.blocksPerWave = std::int64_t(activeBlocksPerSm) * smCount;
    w.wavesPerSm = double(gridBlocks) / double(w.blocksPerWave);
    // Whole numbers for the split: a double's floor of e.g. 3.0000000001
    // would invent a tail that is not there.
    w.fullWaves = gridBlocks / w.blocksPerWave;
    w.partialWaveBlocks = gridBlocks % w.blocksPerWave;
    if (w.hasTail()) {
        w.partialWaveFill = double(w.partialWaveBlocks) / double(w.blocksPerWave);
        w.tailDurationShare = 1.0 / double(w.fullWaves + 1);
    }
    return w;
}

std::vector<KernelOccupancy> topKernelOccupancy(Store& store, RunId run, const RunSummary& summary,
                                                TimeWindow window, int top) {
    std::vector<KernelOccupancy> out;
    auto device = runDevice(store, run);
    if (!device) return out;
    SmLimits sm = limitsOf(*device);
    std::map<std::string, std::size_t> wanted;  // mangled name → index in out
    for (const auto& k : summary.kernels) {
        if (int(out.size()) >= top) break;
        KernelOccupancy o;
        o.name = k.name;
        o.timePercent = k.timePercent;
        o.achieved = k.achievedOccupancy;
        wanted[k.mangled] = out.size();
        out.push_back(o);
    }
    std::vector<bool> seen(out.size(), false);
    forEachKernel(store, run, window, std::nullopt, [&](const KernelRecord& k) {
        auto it = wanted.find(k.name);
        if (it == wanted.end() || seen[it->second]) return;
        seen[it->second] = true;
        auto& o = out[it->second];
        o.launch = launchResourcesOf(k);
        o.sm = sm;
        o.occupancy = theoreticalOccupancy(sm, o.launch);
        bool gridKnown = k.gridX > 0 && k.gridY > 0 && k.gridZ > 0;
        o.waves = launchWaves(gridKnown ? std::int64_t(k.gridX) * k.gridY * k.gridZ : 0,
                              o.occupancy.activeBlocksPerSm, device->smCount);
    });
    return out;
}

}  // namespace ws
