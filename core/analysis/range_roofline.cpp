// computeRangeRoofline: a roofline point per NVTX range (analysis/roofline.h).
#include <algorithm>
#include <map>
#include <optional>

#include <unordered_map>
#include "analysis/kernel_attribution.h"

#include "analysis/kernel_occupancy.h"
#include "analysis/occupancy.h"
#include "analysis/roofline.h"
#include "model/counter_metrics.h"
#include "store/run_queries.h"

namespace ws {

namespace {

constexpr const char* kOutside = "(outside any range)";

struct Group {
    double flops = 0, bytes = 0, countedNs = 0;  // counted launches, per their counters
    std::int64_t counted = 0;
    double kernelNs = 0, uncountedNs = 0;  // every launch, as recorded
    double theoretical = 0, theoreticalWeight = 0, achieved = 0, achievedWeight = 0;
};

}  // namespace

Roofline computeRangeRoofline(Store& store, RunId id, const Roofline* byKernel) {
    // Each launch's own counters, by correlation id: a kernel name's mean would
    // give a decode step's kernels the FLOPs of the same kernels in prefill.
    std::unordered_map<std::uint32_t, std::map<std::string, double>> metrics;
    for (auto& m : kernelMetricsOf(store, id))
        metrics[m.correlationId][m.metric] = m.value;
    if (metrics.empty()) {
        Roofline r;  // cheap for every run without counters: no ceilings either
        r.notes.push_back(
            "no points by range: the run has no hardware counters (record --metrics roofline)");
        return r;
    }
    Roofline r;
    {
        Roofline kernels = byKernel ? Roofline{} : computeRoofline(store, id);
        const Roofline& from = byKernel ? *byKernel : kernels;
        r.device = from.device;
        r.ceilings = from.ceilings;
    }
    auto device = runDevice(store, id);
    std::optional<SmLimits> sm;
    if (device) sm = limitsOf(*device);
    KernelAttribution attribution(store, id);
    std::map<std::string, Group> groups;
    std::int64_t captured = 0, capturedUncounted = 0;
    forEachKernel(store, id, {}, std::nullopt, [&](const KernelRecord& k) {
        bool fromCapture = false;
        std::size_t range = attribution.innermost(k, &fromCapture);
        captured += fromCapture;
        Group& g =
            groups[range == RangeStacks::kNone ? kOutside : attribution.ranges()[range].name];
        const double ns = double(k.durationNs());
        g.kernelNs += ns;
        if (sm) {
            Occupancy o = theoreticalOccupancy(*sm, launchResourcesOf(k));
            if (o.limiter != OccupancyLimiter::Invalid) {
                g.theoretical += o.occupancy * ns;
                g.theoreticalWeight += ns;
            }
        }
        auto m = metrics.find(k.correlationId);
        auto c = m == metrics.end() ? std::nullopt : counters::fromMetrics(m->second);
        if (!c || !c->flopsCounted || ns <= 0) {
            g.uncountedNs += ns;
            capturedUncounted += fromCapture;
            return;
        }
        g.flops += c->flops();
        g.bytes += c->dramBytes;
        g.countedNs += ns;
        ++g.counted;
        if (c->achievedOccupancy) {
            g.achieved += *c->achievedOccupancy * ns;
            g.achievedWeight += ns;
        }
    });
    double total = 0;
    for (const auto& [name, g] : groups)
        if (g.counted > 0 && g.flops > 0 && g.bytes > 0) total += g.countedNs;
    double uncounted = 0, all = 0;
    for (const auto& [name, g] : groups) {
        uncounted += g.uncountedNs;
        all += g.kernelNs;
        if (g.counted == 0 || g.flops <= 0 || g.bytes <= 0) continue;
        RooflinePoint p;
        p.name = name;
        p.origin = "counters";
        p.instances = g.counted;
        p.flops = g.flops / double(g.counted);
        p.bytes = g.bytes / double(g.counted);
        p.meanNs = g.countedNs / double(g.counted);
        p.timeShare = total > 0 ? g.countedNs / total : 0;
        if (g.theoreticalWeight > 0) p.theoreticalOccupancy = g.theoretical / g.theoreticalWeight;
        if (g.achievedWeight > 0) p.achievedOccupancy = g.achieved / g.achievedWeight;
        r.points.push_back(p);
    }
    std::sort(r.points.begin(), r.points.end(), [](const auto& a, const auto& b) {
        return a.meanNs * double(a.instances) > b.meanNs * double(b.instances);
    });
    r.notes.push_back("points by the innermost NVTX range open where each kernel was launched" +
                      std::string(captured > 0 ? " (or, replayed from a CUDA graph, captured: " +
                                                     std::to_string(captured) + " launches)"
                                               : "") +
                      "; FLOPs, bytes and times from hardware counters (kernel replay); occupancy "
                      "weighted by kernel time");
    if (capturedUncounted > 0)
        r.notes.push_back(std::to_string(capturedUncounted) +
                          " kernel launches replayed from CUDA graphs have no counters of their "
                          "own (kernel replay cannot replay graphs): record without CUDA graphs "
                          "to place them");
    if (all > 0 && uncounted / all > 0.01)
        r.notes.push_back(std::to_string(int(100 * uncounted / all + 0.5)) +
                          " % of kernel time has no counted FLOPs (kernels the counter pass "
                          "skipped or copies) and is left out of the points");
    return r;
}

}  // namespace ws
