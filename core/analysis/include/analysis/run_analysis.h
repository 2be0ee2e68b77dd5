// One run analysed once, for every reader: the GUI's charts and tables, the
// report and the CLI read these figures, so a chart, an exported report and
// `compare` never disagree on the same runs.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/compare.h"
#include "analysis/energy_split.h"
#include "analysis/gpu_metric_summary.h"
#include "analysis/kernel_occupancy.h"
#include "analysis/kernel_summary.h"
#include "analysis/latency.h"
#include "analysis/pc_sample_summary.h"
#include "analysis/roofline.h"
#include "model/records.h"

namespace ws {

class Store;

// Kernels the report and the dashboard show GPU metrics for.
inline constexpr std::size_t kGpuMetricKernelsShown = 5;
// Kernels, and lines of each, the report shows stall reasons for.
inline constexpr std::size_t kStalledKernelsShown = 5;
inline constexpr std::size_t kStallLinesShown = 3;

struct RunAnalysis {
    RunInfo run;
    LatencyReport latency;  // against the targets of the run's workload contract
    RunSummary summary;     // over the chosen window; summary.window says which
    Roofline roofline;
    Roofline rangeRoofline;                  // a point per NVTX range; points only with counters
    std::vector<KernelOccupancy> occupancy;  // top kernels by time
    std::optional<Comparison> againstFirst;  // this run against the first of analyzeRuns
    std::map<std::string, std::string> properties;
    std::vector<QualityRecord> quality;
    // Energy per output token by phase and kernel class, where the run has
    // energy samples (energySplitOf says where it has none).
    std::optional<EnergySplit> energy;
    // GPU metrics (record --gpu-metrics) over the window, and per top kernel
    // over the whole run; empty without samples.
    std::vector<GpuMetricStats> gpuMetrics;
    std::vector<GpuMetricGroup> gpuMetricsByKernel;
    // Where the most-sampled kernels stall (record --pc-sampling), over the
    // whole run; empty without PC samples.
    std::vector<KernelStalls> stalls;
};

// `candidate` against `base` from what their analyses hold (latency samples,
// kernel tables over each one's window, properties, quality): no store read.
Comparison compareAnalyses(const RunAnalysis& base, const RunAnalysis& candidate,
                           int resamples = kComparisonResamples);

// Kernel tables, occupancy and comparisons over `window` (by default while
// requests were served: not set-up or checks); a range the run lacks falls
// back to the whole run, said in summary.window.
RunAnalysis analyzeRun(Store& store, RunId id, const WindowChoice& window = {},
                       const std::function<bool()>& stop = {});
// Every run, and each run after the first compared with the first (the
// baseline of comparison mode). Stops early, returning what it has, once
// `stop` says so.
std::vector<RunAnalysis> analyzeRuns(Store& store, const std::vector<RunId>& ids,
                                     const std::function<bool()>& stop = {},
                                     const WindowChoice& window = {});

}  // namespace ws
