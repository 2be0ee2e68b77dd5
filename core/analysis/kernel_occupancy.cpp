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
    });
    return out;
}

}  // namespace ws
