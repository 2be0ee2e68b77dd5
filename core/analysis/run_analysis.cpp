#include "analysis/run_analysis.h"

#include "analysis/energy_split.h"
#include "analysis/run_latency.h"
#include "store/run_queries.h"
#include "store/store.h"

namespace ws {

RunAnalysis analyzeRun(Store& store, RunId id, const WindowChoice& choice,
                       const std::function<bool()>& stop) {
    RunAnalysis a;
    a.run = requireRun(store, id);
    a.latency = runLatency(store, id, contractTargets(store, id));
    auto resolved = resolveWindow(store, id, choice, true);
    auto window = resolved.span;
    a.summary = summarizeRun(store, id, window, resolved.label, 0, stop);
    a.roofline = computeRoofline(store, id);
    a.rangeRoofline = computeRangeRoofline(store, id, &a.roofline);
    a.occupancy = topKernelOccupancy(store, id, a.summary, window);
    a.properties = runProperties(store, id);
    a.quality = qualityOf(store, id);
    if (a.latency.energyPerOutputTokenJ && !(stop && stop())) {
        std::string whyNot;
        a.energy = energySplitOf(store, id, whyNot);
    }
    if (auto series = gpuMetricsOf(store, id); !series.empty() && !(stop && stop())) {
        a.gpuMetrics = summarizeGpuMetrics(series, {{window.beginNs, window.endNs}});
        a.gpuMetricsByKernel = gpuMetricReport(store, id, GpuMetricGrouping::Kernel,
                                               kGpuMetricKernelsShown, std::move(series))
                                   .groups;
    }
    if (!(stop && stop())) {
        a.stalls = summarizePcSamples(pcSamplesOf(store, id), kStallLinesShown);
        if (a.stalls.size() > kStalledKernelsShown) a.stalls.resize(kStalledKernelsShown);
    }
    return a;
}

std::vector<RunAnalysis> analyzeRuns(Store& store, const std::vector<RunId>& ids,
                                     const std::function<bool()>& stop,
                                     const WindowChoice& window) {
    std::vector<RunAnalysis> runs;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (stop && stop()) break;
        try {
            runs.push_back(analyzeRun(store, ids[i], window, stop));
        } catch (const SummaryStopped&) {
            break;  // a run of millions of kernels stops within a few thousand
        }
        if (i > 0) runs.back().againstFirst = compareAnalyses(runs.front(), runs.back());
    }
    return runs;
}

}  // namespace ws
