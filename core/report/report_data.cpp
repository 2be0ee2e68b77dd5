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

std::vector<Finding> findFindings(const ReportData& d) {
    std::vector<Finding> out;
    const auto& s = d.summary;
    auto tpotFloor = numberProperty(d.properties, "decoder.tpot_floor_ms");
    if (tpotFloor && !d.latency.tpotMs.empty()) {
        double tpot = stats::summarize(d.latency.tpotMs).mean;
        double ratio = *tpotFloor / tpot;
        if (ratio < 0.7) {
            Finding f;
            f.title = "Decode steps run at " + formatFixed(ratio, 2) +
                      " of the memory-bandwidth floor: not bandwidth-limited yet";
            f.evidence = "mean TPOT " + formatFixed(tpot, 3) + " ms against a floor of " +
                         formatFixed(*tpotFloor, 3) +
                         " ms (weights and KV cache read once per step at the measured copy "
                         "bandwidth)";
            f.next = d.properties.count("decoder.cuda_graphs") &&
                             d.properties.at("decoder.cuda_graphs") == "no"
                         ? "replay the decode step as a CUDA graph (launch gaps are part of the "
                           "gap); then the top kernels below"
                         : "work through the top decode kernels: GEMVs should reach ~0.9 of copy "
                           "bandwidth, small kernels can be fused";
            f.rule = "floor / mean TPOT < 0.70";
            out.push_back(f);
        }
    }
    if (d.itlOutliers && d.itlOutliers->stepsDescribed) {
        const auto& o = *d.itlOutliers;
        const double share =
            o.outlierTotal.totalNs() > 0 ? o.outlierTotal.prefillNs / o.outlierTotal.totalNs() : 0;
        if (share >= 0.5) {
            Finding f;
            f.title = "Prefill interference makes the ITL tail: " + formatFixed(100 * share, 0) +
                      "% of the p99 outliers' time is steps that ran prompts";
            const auto pct = [&](double v) {
                return formatFixed(100 * v / o.outlierTotal.totalNs(), 0) + "%";
            };
            f.evidence = std::to_string(o.outlierCount) + " ITLs at or above p99 (" +
                         formatFixed(o.p99Ms, 2) + " ms, p50 " + formatFixed(o.p50Ms, 2) +
                         " ms): prefill " + pct(o.outlierTotal.prefillNs) + ", kernels " +
                         pct(o.outlierTotal.kernelNs) + ", launch gaps " +
                         pct(o.outlierTotal.launchGapNs) + ", host gaps " +
                         pct(o.outlierTotal.hostGapNs) + " of their time";
            f.next =
                "cap the prefill tokens per step (max_num_batched_tokens, chunked prefill) "
                "so a decode step waits for less; see the ITL outliers section";
            f.rule = "prefill share of p99 ITL outliers ≥ 50%";
            out.push_back(f);
        }
    }
    // A kernel ladder times its reference rung beside the fast ones on purpose:
    // "optimize it first" would be advice against the workload's own design.
    const bool ladder = d.run.workloadKind == "kernel";
    const bool counterPass = d.properties.count("capture.metrics") > 0;
    // Fills and copies run as kernels (input initialisation, cache moves) are
    // not what a user optimizes: the rule reads the first other kernel.
    auto classOfKernel = [](const KernelStat& k) {
        return classifyKernel(k.demangled.empty() ? k.name : k.demangled);
    };
    const auto top = std::find_if(s.kernels.begin(), s.kernels.end(), [&](const KernelStat& k) {
        return classOfKernel(k) != KernelClass::Copy;
    });
    if (!ladder && top != s.kernels.end() && top->timePercent >= 30) {
        const auto& k = *top;
        Finding f;
        f.title = k.name + " is " + formatFixed(k.timePercent, 1) + "% of kernel time";
        f.evidence = std::to_string(k.time.count) + " launches, mean " +
                     formatFixed(k.time.meanNs / 1e3, 1) + " µs, total " +
                     formatFixed(k.time.totalNs / 1e6, 2) + " ms";
        // With --graph-trace graph a CUDA graph's replays are one record each,
        // named cuda_graph_ID: not a kernel anyone can optimize as such.
        const bool graphSpan = k.name.rfind("cuda_graph_", 0) == 0;
        f.next = graphSpan
                     ? "it is a CUDA graph's replays traced whole (--graph-trace graph): record "
                       "with --graph-trace node to see which of its kernels bound it"
                     : "optimize or replace it first: it bounds what any other change can gain "
                       "(" +
                           formatFixed(100 - k.timePercent, 1) + "% of kernel time is elsewhere)";
        f.rule = "top kernel ≥ 30% of kernel time";
        // Replayed, 30 % off its class may buy far less than its share says:
        // the step then waits on the host, not on this kernel.
        const std::string classFlag =
            std::string("--faster ") + toString(classOfKernel(k)) + "=30%";
        for (const auto& o : d.nextOptimizations) {
            const auto* v = o.flags == classFlag ? o.value("tpot", "mean") : nullptr;
            if (!v || graphSpan) continue;
            const double naive = 0.3 * k.timePercent / 100;
            f.evidence += "; its class (" + o.change + ") predicts TPOT " +
                          formatFixed(100 * v->change(), 1) + " % when replayed";
            if (-v->change() < 0.5 * naive)
                f.next = "making it faster buys little here: 30 % off its class predicts " +
                         formatFixed(100 * v->change(), 1) + " % TPOT, not the " +
                         formatFixed(-100 * naive, 1) +
                         " % its share suggests, because the steps wait on something else "
                         "(see What the next optimization buys)";
            f.rule += "; the replayed prediction beside it";
        }
        out.push_back(f);
    }
    // The best replayed option, naming the figure it rests on.
    if (!d.nextOptimizations.empty()) {
        const auto& best = d.nextOptimizations.front();
        const bool tpot = best.value("tpot", "mean") != nullptr;
        const auto* v = tpot ? best.value("tpot", "mean") : best.value("ttft", "mean");
        if (v && v->change() <= -0.05) {
            const std::string metric = tpot ? "TPOT" : "TTFT";
            Finding f;
            f.title = "Next: " + best.change + " would cut mean " + metric + " by " +
                      formatFixed(-100 * v->change(), 1) + " %";
            f.evidence = "predicted " + formatFixed(v->predicted, 3) + " ms" +
                         (v->hasInterval ? " (95 % over requests " + formatFixed(v->ciLow, 3) +
                                               "–" + formatFixed(v->ciHigh, 3) + ")"
                                         : std::string()) +
                         " against " + formatFixed(v->recorded, 3) +
                         " ms recorded, by replaying the run's timeline with the change";
            f.next = (best.flags == "--no-launch-gaps"
                          ? std::string("replay each step as a CUDA graph (or fuse its kernels)")
                          : "make the " + best.change.substr(0, best.change.find(' ')) +
                                " kernels faster") +
                     "; `warpscope-cli whatif " + std::to_string(d.run.id) + " " + best.flags +
                     "` gives every metric";
            f.rule = "best replayed option (what-if) predicts ≥ 5 % lower mean " + metric;
            out.push_back(f);
        }
    }
    if (d.samples.clockEvents.throttled()) {
        Finding f;
        std::string reasons;
        for (const auto& r : d.samples.clockEvents.reasons) {
            if (!r.limitsPerformance) continue;
            reasons += (reasons.empty() ? "" : ", ") + r.reason + " in " +
                       formatFixed(100 * r.sampleFraction, 0) + "% of samples";
        }
        f.title = "The GPU's clocks were held down while it ran";
        f.evidence = reasons + " (NVML clock event reasons)";
        f.next =
            "compare runs only at equal clocks: check cooling and the power limit, or lock "
            "clocks (nvidia-smi -lgc) for benchmarking";
        f.rule = "a clock event reason other than idle or the application clock setting seen";
        out.push_back(f);
    }
    // A counter pass replays every kernel: its idle time is the profiler's.
    if (!counterPass && s.gpuSpanNs > 0 && s.gpuBusyFraction < 0.8) {
        const bool graphs = d.properties.count("decoder.cuda_graphs") &&
                            d.properties.at("decoder.cuda_graphs") == "yes";
        Finding f;
        f.title = "The GPU is idle " + formatFixed(100 * (1 - s.gpuBusyFraction), 1) +
                  "% of the time between its first and last activity";
        f.evidence = "busy " + formatFixed(s.gpuBusyNs / 1e6, 2) + " ms of " +
                     formatFixed(s.gpuSpanNs / 1e6, 2) + " ms";
        f.next = graphs ? "the decode steps already replay as CUDA graphs: look for host work "
                          "and synchronization between steps in the timeline; batch more requests "
                          "or overlap copies"
                        : "look for host work and synchronization between launches in the "
                          "timeline; batch more requests, overlap copies, or use CUDA graphs";
        f.rule = "GPU busy fraction < 0.80 (not on counter passes)";
        out.push_back(f);
    }
    const auto& c = d.roofline.ceilings;
    if (c.known())
        for (const auto& p : d.roofline.points) {
            double roof = c.attainableTflops(p.intensity());
            if (roof <= 0 || p.timeShare < 0.05) continue;
            double frac = p.tflops() / roof;
            if (frac >= 0.5) continue;
            bool memoryBound = p.intensity() < c.ridge();
            Finding f;
            f.title = p.name + " reaches " + formatFixed(100 * frac, 0) + "% of its roof (" +
                      (memoryBound ? "memory-bound" : "compute-bound") + " at " +
                      formatFixed(p.intensity(), 1) + " FLOP/B)";
            f.evidence = formatFixed(p.tflops(), 2) + " TFLOP/s, " + formatFixed(p.gbs(), 0) +
                         " GB/s; attainable " + formatFixed(roof, 1) + " TFLOP/s; " +
                         formatFixed(100 * p.timeShare, 0) + "% of the run's roofline time";
            f.next = memoryBound ? "move bytes faster (16-byte loads, more loads in flight, "
                                   "fusion to read once)"
                                 : "use the tensor cores better (larger tiles, deeper pipelines, "
                                   "Hopper wgmma) or call a tuned library";
            f.rule = "point below 50% of min(tensor peak, bandwidth × intensity), ≥ 5% of time";
            out.push_back(f);
        }
    for (const auto& q : d.quality)
        if (!q.passed) {
            Finding f;
            f.title = "Output quality check FAILED against " + q.referenceVariant;
            f.evidence = "token agreement " + formatFixed(q.tokenAgreement, 3) +
                         ", max logit error " + formatFixed(q.maxLogitError, 4) +
                         " above the tolerance " + formatFixed(q.tolerance, 4);
            f.next =
                "do not ship this variant; compare its kernels with the reference rungs "
                "(every ladder verifies each rung against a CPU reference)";
            f.rule = "quality check passed = false";
            out.push_back(f);
        }
    if (d.run.droppedRecords > 0) {
        Finding f;
        f.title = "CUPTI dropped " + std::to_string(d.run.droppedRecords) +
                  " records: the timeline is incomplete";
        f.evidence = "dropped records reported by the collector";
        f.next = "record again with larger buffers (WARPSCOPE_BUFFER_KB) or a shorter run";
        f.rule = "dropped records > 0";
        out.push_back(f);
    }
    if (!d.coldStart.hits.empty()) {
        const auto& hits = d.coldStart.hits;
        auto worst = std::max_element(hits.begin(), hits.end(), [](const auto& a, const auto& b) {
            return a.coldNs < b.coldNs;
        });
        Finding f;
        f.title = std::to_string(hits.size()) + " of " + std::to_string(d.coldStart.requests) +
                  " requests timed start-up work in their TTFT (" + worst->kinds + ")";
        f.evidence = "request " + std::to_string(worst->requestId) + ": " +
                     formatDuration(worst->coldNs) + " of its " + formatDuration(worst->ttftNs) +
                     " TTFT in " + worst->calls;
        f.next = d.config && d.config->kind == WorkloadKind::Decoder
                     ? "run untimed warm-up requests first (contract.warmup_requests)"
                     : "send a warm-up request before measuring, or load modules eagerly "
                       "(CUDA_MODULE_LOADING=EAGER) so first launches do not load them";
        f.rule = "module loading, JIT or context creation inside [arrival, first token)";
        out.push_back(f);
    }
    // Against a baseline, regressions lead: they are what a reader must see.
    // Read in context: two points of a sweep at different loads differ by
    // design, a comparison without kernels has no kernel deltas to point at,
    // and a variant's gain is reported beside its loss.
    std::vector<Finding> regressions;
    const auto load = [](const std::map<std::string, std::string>& p) {
        std::string text;
        for (const char* key : {"bench.max_concurrency", "bench.request_rate"})
            if (auto it = p.find(key); it != p.end())
                text += std::string(text.empty() ? "" : ", ") +
                        (std::string(key) == "bench.max_concurrency" ? "concurrency " : "rate ") +
                        it->second;
        return text;
    };
    const std::string runLoad = load(d.properties), baseLoad = load(d.baselineProperties);
    const bool otherLoad = d.comparison && runLoad != baseLoad;
    const bool kernelDeltas = d.comparison && !d.comparison->kernels.empty();
    if (otherLoad) {
        Finding f;
        f.title = "The baseline ran at another load: its latencies are a reference, not a target";
        f.evidence = "this run " + (runLoad.empty() ? std::string("no load settings") : runLoad) +
                     "; the baseline " +
                     (baseLoad.empty() ? std::string("no load settings") : baseLoad);
        f.next =
            "compare runs of the same load for regressions; across loads, read the sweep "
            "(warpscope-cli sweep) for where latency turns up";
        f.rule = "bench.max_concurrency or bench.request_rate differ between the runs";
        regressions.push_back(f);
    }
    if (d.comparison && !otherLoad)
        for (const auto& m : d.comparison->latency) {
            if (m.metric != "mean_itl_ms" && m.metric != "median_tpot_ms" &&
                m.metric != "median_ttft_ms")
                continue;
            const double change = m.base > 0 ? m.candidate / m.base - 1 : 0;
            Finding f;
            f.evidence = formatFixed(m.base, 3) + " → " + formatFixed(m.candidate, 3) + " ms (" +
                         (change >= 0 ? "+" : "") + formatFixed(100 * change, 1) + "%)";
            const std::string interval = ", 95% interval of the delta [" +
                                         formatFixed(m.ciLow.value_or(0), 3) + ", " +
                                         formatFixed(m.ciHigh.value_or(0), 3) + "]";
            if (m.verdict == Verdict::Slower) {
                f.title = m.metric + " regressed against the baseline";
                f.evidence += interval;
                f.next = kernelDeltas
                             ? "the kernel deltas in the comparison show where the time went"
                             : "neither comparison window holds kernels: record both runs with "
                               "capture (record, or bench serve --server) to see where the "
                               "time went";
                f.rule = "verdict slower (the interval excludes zero)";
            } else if (m.verdict == Verdict::Faster) {
                f.title = m.metric + " improved against the baseline";
                f.evidence += interval;
                f.next = kernelDeltas ? "the kernel deltas in the comparison show what gained"
                                      : "keep it if the other latencies and quality hold";
                f.rule = "verdict faster (the interval excludes zero)";
            } else if (m.verdict == Verdict::NotComparable && change >= 0.2) {
                f.title = m.metric + " is " + formatFixed(100 * change, 0) +
                          "% above the baseline's, without an interval";
                f.evidence += "; too few requests for a bootstrap interval";
                f.next =
                    "record several requests per run (contract.requests, after a warm-up) "
                    "to tell a regression from noise";
                f.rule = "not comparable, candidate ≥ 1.2 × baseline";
            } else {
                continue;
            }
            regressions.push_back(f);
        }
    out.insert(out.begin(), regressions.begin(), regressions.end());
    // A difference smaller than what capture cost the two runs differently
    // may be the capture's, not the program's.
    auto share = [](const std::map<std::string, std::string>& p) {
        return numberProperty(p, capture_cost::kShare);
    };
    auto runShare = share(d.properties), baseShare = share(d.baselineProperties);
    if (d.comparison && runShare && baseShare)
        for (const auto& m : d.comparison->latency) {
            if (m.metric != "median_tpot_ms" && m.metric != "median_ttft_ms") continue;
            const double change = m.base > 0 ? m.candidate / m.base - 1 : 0;
            const double costGap = std::abs(*runShare - *baseShare);
            if (change == 0 || std::abs(change) >= costGap) continue;
            Finding f;
            f.title = m.metric + " differs from the baseline by less than the capture cost does";
            f.evidence = formatFixed(100 * change, 1) + "% change; capture cost " +
                         formatFixed(100 * *baseShare, 1) + "% of the baseline's wall time, " +
                         formatFixed(100 * *runShare, 1) + "% of this run's";
            f.next =
                "compare untraced timings (warpscope-workload run, or the program's own) or "
                "record both with --graph-trace graph to shrink the capture's part";
            f.rule = "|relative change| < |difference of capture.cost_share|";
            out.push_back(f);
        }
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
                auto steps = tokenSteps(*run, declaredStepFloor(d.properties));
                if (steps.steps > 0) d.tokenSteps = std::move(steps);
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
