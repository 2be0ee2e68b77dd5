#include "analysis/run_latency.h"

#include "config/workload_config.h"
#include "store/run_queries.h"
#include "store/store.h"

namespace ws {

LatencyTargets contractTargets(Store& store, RunId run) {
    LatencyTargets t;
    auto workload = runWorkload(store, run);
    // Imported runs store the source tool's settings, not a Warpscope config.
    if (!workload || workload->configText.empty() || workload->kind == "imported") return t;
    auto parsed = parseWorkloadConfig(workload->configText, workload->name);
    if (!parsed.config) return t;
    const auto& c = parsed.config->contract;
    t.ttftMs = c.ttftTargetMs;
    t.tpotMs = c.tpotTargetMs;
    t.e2elMs = c.e2eTargetMs;
    return t;
}

LatencyReport runLatency(Store& store, RunId run, const LatencyTargets& targets) {
    requireRun(store, run);
    std::int64_t durationNs = 0;
    auto props = runProperties(store, run);
    if (auto it = props.find("benchmark_duration_ns"); it != props.end())
        durationNs = std::stoll(it->second);
    return computeLatency(requestsOf(store, run), tokensOf(store, run), targets, durationNs,
                          samplesOf(store, run));
}

}  // namespace ws
