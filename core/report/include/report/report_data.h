// Everything a benchmark and optimization report says about a run (and its
// baseline), gathered once: the contract checked line by line, environment,
// latency, kernels, roofline, quality, capture health, and findings made by
// rules a reader can check. Missing data is listed, never an error.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/clock_events.h"
#include "analysis/cold_start.h"
#include "analysis/compare.h"
#include "analysis/energy_split.h"
#include "analysis/engine_step_sol.h"
#include "analysis/gpu_metric_summary.h"
#include "analysis/itl_outliers.h"
#include "analysis/kernel_occupancy.h"
#include "analysis/kernel_summary.h"
#include "analysis/latency.h"
#include "analysis/nvlink_rates.h"
#include "analysis/pc_sample_summary.h"
#include "analysis/roofline.h"
#include "analysis/run_analysis.h"
#include "analysis/sweep.h"
#include "analysis/token_steps.h"
#include "analysis/whatif.h"
#include "config/workload_config.h"
#include "model/records.h"

namespace ws {

class Store;

enum class CheckResult { Pass, Fail, Unknown };
const char* toString(CheckResult r);

struct ContractLine {
    std::string what;      // "TTFT p99"
    std::string target;    // "≤ 50 ms"
    std::string measured;  // "36.1 ms" or "—"
    CheckResult result = CheckResult::Unknown;
    std::string note;  // why unknown
};

struct Finding {
    std::string title;     // one line
    std::string evidence;  // the numbers
    std::string next;      // what to try
    std::string rule;      // the rule that fired, so a reader can check it
};

struct SampleSummary {
    int count = 0;
    std::optional<double> powerMeanW, powerMaxW, smClockMinMhz, smClockMaxMhz, temperatureMaxC;
    ClockEventSummary clockEvents;
    std::map<std::uint32_t, NvlinkDeviceRates> nvlink;  // GPUs whose NVLink NVML counts
    std::set<std::uint32_t> busyDevices;                // the run's GPUs (busyDevices())
};

struct ReportData {
    RunInfo run;
    std::optional<DeviceInfo> device;
    std::optional<WorkloadConfig> config;  // parsed from the text stored with the run
    std::map<std::string, std::string> properties;
    LatencyReport latency;
    RunSummary summary;
    Roofline roofline;
    std::vector<KernelOccupancy> occupancy;
    std::vector<QualityRecord> quality;
    SampleSummary samples;
    std::int64_t overheadCount = 0;
    ColdStartCheck coldStart;  // start-up work inside requests' TTFT windows
    std::optional<RunInfo> baseline;
    std::map<std::string, std::string> baselineProperties;
    std::optional<Comparison> comparison;
    std::vector<ContractLine> contract;
    std::optional<SweepTable> sweep;  // the sweep group the run is a point of
    // The slowest ITLs split by what the server did, for runs that hold both
    // the client's tokens and the server's engine steps.
    std::optional<ItlOutlierReport> itlOutliers;
    std::vector<Finding> findings;
    // What the next optimization buys: the options the run suggests, each
    // replayed from its own timeline (analysis/whatif.h), best first.
    std::vector<RankedOption> nextOptimizations;
    // Decode steps told from the tokens against their floor, for runs with
    // tokens and no engine steps (the built-in decoder, a generate() loop).
    std::optional<TokenStepReport> tokenSteps;
    // A served run's engine steps against their floors, where the server
    // declares its step costs (docs/serving.md, "Speed of light").
    std::optional<EngineStepSol> engineStepSol;
    // Energy per output token by phase and kernel class, where the run has
    // energy samples.
    std::optional<EnergySplit> energySplit;
    // GPU metrics over the report's window and per top kernel (RunAnalysis).
    std::vector<GpuMetricStats> gpuMetrics;
    std::vector<GpuMetricGroup> gpuMetricsByKernel;
    std::vector<KernelStalls> stalls;  // record --pc-sampling; most-sampled kernels
    std::vector<std::string> missing;  // what the run does not have, in words
};

ReportData buildReport(Store& store, RunId run, std::optional<RunId> baseline = std::nullopt);
// From analyses already made (analyzeRuns of {baseline, run} or {run}), so a
// report and the charts exported with it read the same figures.
ReportData buildReport(Store& store, const std::vector<RunAnalysis>& analyses);

// What a report and the charts beside it are made from, read from the store
// once: the analyses ({baseline, run} or {run}) and the report's data.
struct ReportInput {
    std::vector<RunAnalysis> analyses;
    ReportData data;
};
ReportInput prepareReport(Store& store, RunId run, std::optional<RunId> baseline);

// The parts of buildReport that need no store (tested on their own).
std::vector<ContractLine> checkContract(const ReportData& d);
std::vector<Finding> findFindings(const ReportData& d);

}  // namespace ws
