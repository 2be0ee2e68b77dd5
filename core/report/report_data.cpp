#include "report/report_data.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "analysis/capture_cost.h"
#include "analysis/kernel_classes.h"
#include "analysis/run_latency.h"
#include "analysis/statistics.h"
#include "model/model_shape.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "util/format.h"

namespace ws {

const char* toString(CheckResult r) {
    switch (r) {
        case CheckResult::Pass:
            return "pass";
        case CheckResult::Fail:
            return "FAIL";
        case CheckResult::Unknown:
            return "unknown";
    }
    return "?";
}

namespace {

ContractLine latencyLine(const std::string& what, const std::vector<double>& samples, double p,
                         std::optional<double> target) {
    ContractLine l;
    l.what = what;
    l.target = target ? "≤ " + formatFixed(*target, 2) + " ms" : "—";
    if (!target) {
        l.note = "the workload sets no target";
        return l;
    }
    if (samples.empty()) {
        l.measured = "—";
        l.note = "no requests with this measurement";
        return l;
    }
    double v = stats::percentile(samples, p);
    l.measured = formatFixed(v, 3) + " ms";
    l.result = v <= *target ? CheckResult::Pass : CheckResult::Fail;
    return l;
}

const double kGiB = 1073741824.0;

}  // namespace

std::vector<ContractLine> checkContract(const ReportData& d) {
    std::vector<ContractLine> out;
    if (!d.config) return out;
    const auto& c = d.config->contract;
    const auto& l = d.latency;
    out.push_back(latencyLine("TTFT p50", l.ttftMs, 50, c.ttftTargetMs));
    out.push_back(latencyLine("TTFT p99", l.ttftMs, 99, c.ttftTargetMs));
    out.push_back(latencyLine("TPOT p50", l.tpotMs, 50, c.tpotTargetMs));
    out.push_back(latencyLine("TPOT p99", l.tpotMs, 99, c.tpotTargetMs));
    if (c.e2eTargetMs) out.push_back(latencyLine("E2E p99", l.e2elMs, 99, c.e2eTargetMs));

    ContractLine mem;
    mem.what = "peak device memory";
    mem.target = c.memoryBudgetGiB ? "≤ " + formatFixed(*c.memoryBudgetGiB, 2) + " GiB" : "—";
    auto peak = numberProperty(d.properties, "peak_device_memory_bytes");
    mem.measured = peak ? formatFixed(*peak / kGiB, 3) + " GiB" : "—";
    if (!c.memoryBudgetGiB)
        mem.note = "the workload sets no memory budget";
    else if (!peak)
        mem.note = "the run reported no peak device memory (built-in workloads do)";
    else
        mem.result = *peak <= *c.memoryBudgetGiB * kGiB ? CheckResult::Pass : CheckResult::Fail;
    out.push_back(mem);

    if (d.config->decoder) {
        ContractLine kvLine;
        kvLine.what = "KV cache (2·layers·kv_heads·head_dim·tokens·batch·2 B)";
        kvLine.target = mem.target;
        try {
            // The decoder's own formula (ModelShape), so report and kernels agree.
            double kv = double(ModelShape::from(*d.config->decoder)
                                   .kvCacheBytes(c.promptTokens + c.outputTokens, c.batch));
            kvLine.measured = formatFixed(kv / kGiB, 3) + " GiB";
            if (c.memoryBudgetGiB)
                kvLine.result =
                    kv <= *c.memoryBudgetGiB * kGiB ? CheckResult::Pass : CheckResult::Fail;
            else
                kvLine.note = "the workload sets no memory budget";
        } catch (const std::invalid_argument& e) {
            kvLine.measured = "—";
            kvLine.note = e.what();
        }
        out.push_back(kvLine);
    }

    ContractLine power;
    power.what = "power (max of device samples)";
    power.target = c.powerLimitW ? "≤ " + formatFixed(*c.powerLimitW, 0) + " W" : "—";
    power.measured = d.samples.powerMaxW ? formatFixed(*d.samples.powerMaxW, 1) + " W" : "—";
    if (!c.powerLimitW)
        power.note = "the workload sets no power limit";
    else if (!d.samples.powerMaxW)
        power.note = "no power samples (NVML unavailable while recording)";
    else
        power.result =
            *d.samples.powerMaxW <= *c.powerLimitW ? CheckResult::Pass : CheckResult::Fail;
    out.push_back(power);
    return out;
}

namespace {

// The advisor's part of the report, from one load of the run's timeline:
// what the next optimization buys, and the decode steps against their floor.
void addAdvice(Store& store, ReportData& d) {
    if (d.latency.requests.empty() || d.summary.kernels.empty()) return;
    if (d.properties.count("capture.metrics")) return;  // said once, above, for the whole report
    std::string whyNot;
    try {
        if (auto run = loadReplayableRun(store, d.run.id, whyNot)) {
            d.nextOptimizations = rankOptions(*run);
            if (!d.itlOutliers) {  // no engine steps: the tokens tell the steps
                auto steps = tokenSteps(*run, declaredStepFloor(d.properties),
                                        declaredPrefillFloor(d.properties));
                if (steps.steps > 0) d.tokenSteps = std::move(steps);
            } else if (auto cost = declaredEngineStepCost(d.properties)) {
                d.engineStepSol = engineStepSol(engineStepsOf(store, d.run.id), *run, *cost);
            }
        }
    } catch (const std::exception& e) {
        whyNot = e.what();
    }
    if (!whyNot.empty()) d.missing.push_back("what the next optimization buys: " + whyNot);
}

}  // namespace

ReportData buildReport(Store& store, RunId id, std::optional<RunId> baseline) {
    return prepareReport(store, id, baseline).data;
}

ReportInput prepareReport(Store& store, RunId run, std::optional<RunId> baseline) {
    std::vector<RunId> ids;
    if (baseline) ids.push_back(*baseline);
    ids.push_back(run);
    ReportInput input;
    input.analyses = analyzeRuns(store, ids);
    input.data = buildReport(store, input.analyses);
    return input;
}

ReportData buildReport(Store& store, const std::vector<RunAnalysis>& analyses) {
    if (analyses.empty()) throw std::invalid_argument("buildReport: no run analysed");
    const RunAnalysis& analysed = analyses.back();
    const RunId id = analysed.run.id;
    ReportData d;
    d.run = analysed.run;
    d.device = runDevice(store, id);
    d.properties = runProperties(store, id);
    // An imported run's stored text is the source tool's own settings (a vLLM
    // result's summary), and a bench serve load's its JSON settings (the run
    // measured a server, not a config of Warpscope's): neither is parsed as
    // a workload config.
    auto w = runWorkload(store, id);
    const bool benchLoad = d.properties.count("bench.arguments") > 0;
    if (w && w->kind == "imported") {
        d.missing.push_back("no workload contract: an imported run (" + w->name +
                            "); the source's settings are stored with its workload");
    } else if (benchLoad) {
        d.missing.push_back(
            "no workload contract: a bench serve load (its settings are in the run's bench.* "
            "properties; --goodput states latency targets)");
    } else if (w && !w->configText.empty()) {
        auto parsed = parseWorkloadConfig(w->configText, w->name);
        if (parsed.ok())
            d.config = parsed.config;
        else
            d.missing.push_back("the stored workload config could not be read again: " +
                                parsed.errors.front().toString());
    }
    if (!d.config && !(w && w->kind == "imported") && !benchLoad)
        d.missing.push_back("no workload contract: the run was not started from a config");
    if (auto name = d.properties.find(sweep_keys::kGroup); name != d.properties.end())
        if (auto group = findSweepGroup(store, name->second)) d.sweep = sweepTable(store, *group);
    if (auto outliers = itlOutliers(store, id, 10);
        outliers.engineSteps > 0 && outliers.itlCount > 0)
        d.itlOutliers = std::move(outliers);
    d.latency = analysed.latency;
    d.summary = analysed.summary;
    d.roofline = analysed.roofline;
    d.occupancy = analysed.occupancy;
    d.energySplit = analysed.energy;
    d.gpuMetrics = analysed.gpuMetrics;
    d.gpuMetricsByKernel = analysed.gpuMetricsByKernel;
    d.stalls = analysed.stalls;
    d.quality = qualityOf(store, id);
    auto agg = runAggregates(store, id);
    d.overheadCount = agg.overheadCount;
    d.coldStart = checkColdStart(store, id);
    std::vector<double> power, clocks;
    auto samples = samplesOf(store, id);
    d.samples.nvlink = nvlinkRates(samples);
    d.samples.busyDevices = busyDevices(samples, d.samples.nvlink);
    // Power, clocks and their reasons of the run's GPUs: idle GPUs beside
    // them would pull the means down and add "GPU idle" reasons.
    std::erase_if(samples, [&](const SampleRecord& s) {
        return !d.samples.busyDevices.count(s.deviceIndex);
    });
    d.samples.clockEvents = summarizeClockEvents(samples);
    for (const auto& s : samples) {
        ++d.samples.count;
        if (s.powerW) power.push_back(*s.powerW);
        if (s.smClockMhz) clocks.push_back(*s.smClockMhz);
        if (s.temperatureC)
            d.samples.temperatureMaxC =
                std::max(d.samples.temperatureMaxC.value_or(0), *s.temperatureC);
    }
    if (!power.empty()) {
        auto p = stats::summarize(power);
        d.samples.powerMeanW = p.mean;
        d.samples.powerMaxW = p.max;
    }
    if (!clocks.empty()) {
        auto c = stats::summarize(clocks);
        d.samples.smClockMinMhz = c.min;
        d.samples.smClockMaxMhz = c.max;
    }
    if (analyses.size() > 1) {
        d.baseline = analyses.front().run;
        d.baselineProperties = runProperties(store, d.baseline->id);
        d.comparison = analysed.againstFirst;
    }
    if (d.run.status != RunStatus::Ok)
        d.missing.push_back(std::string("the run ended ") + toString(d.run.status) +
                            ": figures cover what was recorded before it ended");
    if (d.properties.count("capture.metrics"))
        d.missing.push_back(
            "a counter pass (--metrics " + d.properties.at("capture.metrics") +
            (d.properties.count("capture.cache_control")
                 ? ", --cache-control " + d.properties.at("capture.cache_control")
                 : std::string()) +
            "): every kernel was replayed, so this run's latencies and times are not performance "
            "figures; its counters are" +
            (d.properties.count("capture.dram_source")
                 ? " (DRAM bytes from " + d.properties.at("capture.dram_source") + ")"
                 : std::string()));
    if (auto q = d.properties.find("capture.query_calls");
        q != d.properties.end() && q->second == "left out")
        d.missing.push_back(
            "API calls that only read state (cudaGetDevice, cudaGetLastError, cuKernelGetName, "
            "…) were not traced, as tracing them costs more than they tell: record with "
            "--all-apis to see every call");
    if (auto set = d.properties.find("capture.set");
        set != d.properties.end() && set->second == "lean")
        d.missing.push_back(
            "a lean capture (--capture lean, what torch.profiler's CUDA-only mode keeps): no "
            "driver API calls (Triton's and NCCL's launches show no CPU side), no "
            "synchronization waits, no device samples unless --sample-ms asked for them");
    if (d.latency.requests.empty())
        d.missing.push_back("no requests or tokens: no TTFT/TPOT (see docs/token-conventions.md)");
    if (d.summary.kernels.empty()) d.missing.push_back("no kernels were recorded");
    if (d.samples.count == 0) d.missing.push_back("no device samples (power, clocks)");
    if (d.quality.empty()) d.missing.push_back("no output-quality check");
    for (const auto& n : d.roofline.notes)
        d.missing.push_back("roofline: " + n);
    bool counted = std::any_of(d.summary.kernels.begin(), d.summary.kernels.end(),
                               [](const KernelStat& k) { return k.achievedOccupancy.has_value(); });
    if (!counted && !d.summary.kernels.empty())
        d.missing.push_back(
            "no hardware counters (achieved occupancy, counted FLOPs and DRAM bytes): record a "
            "counter pass with `warpscope-cli record --metrics roofline`; roofline points use "
            "declared or model FLOPs and bytes");
    addAdvice(store, d);
    d.contract = checkContract(d);
    d.findings = findFindings(d);
    return d;
}

}  // namespace ws
