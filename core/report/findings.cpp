// The report's findings: each rule reads the report's data in context and
// says what it saw, the evidence, what to do next and the rule itself.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "analysis/capture_cost.h"
#include "analysis/kernel_classes.h"
#include "analysis/statistics.h"
#include "report/report_data.h"
#include "util/format.h"

namespace ws {

namespace {

// Decode steps far from the memory-bandwidth floor.
void tpotFloorFinding(const ReportData& d, std::vector<Finding>& out) {
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
}

// A server's engine steps far from their floors, naming the largest part of
// the serving window above them.
void engineStepSolFinding(const ReportData& d, std::vector<Finding>& out) {
    if (!d.engineStepSol || d.engineStepSol->kinds.empty()) return;
    const auto& sol = *d.engineStepSol;
    const auto& all = sol.kinds.back();  // "all"
    const double percent = all.solPercent();
    if (percent >= 50) return;
    auto parts = windowParts(sol);
    const auto largest =
        std::max_element(parts.begin() + 1, parts.end(),  // after the floor itself
                         [](const SolPart& a, const SolPart& b) { return a.ns < b.ns; });
    auto share = [&](double ns) {
        return formatFixed(sol.windowNs > 0 ? 100 * ns / sol.windowNs : 0, 1) + " %";
    };
    Finding f;
    f.title = "Engine steps run at " + formatFixed(percent, 1) +
              " % of their speed of light; the largest part above it: " + largest->what;
    f.evidence = std::to_string(all.steps) + " steps, " + formatFixed(all.stepNs / 1e6, 1) +
                 " ms against floors of " + formatFixed(all.floorNs / 1e6, 1) + " ms; " +
                 largest->what + " " + share(largest->ns) + " of the serving window" +
                 (sol.prefillInterferenceNs > 0
                      ? "; decodes waited " + share(sol.prefillInterferenceNs) + " of it on prefill"
                      : std::string());
    f.next = largest->what.rfind("host", 0) == 0 || largest->what.rfind("launch", 0) == 0
                 ? "the GPU waits on the engine: CUDA graphs for more batch sizes, less "
                   "scheduling work per step (whatif --no-launch-gaps predicts the first)"
                 : "make those kernels faster; whatif --faster CLASS=30% or --kernel-at-roof "
                   "predicts what it buys";
    f.rule = "sum of step floors / sum of step times < 50 %";
    out.push_back(f);
}

// Prefill in the steps behind the ITL tail.
void prefillInterferenceFinding(const ReportData& d, std::vector<Finding>& out) {
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
}

// The kernel that holds most of the time, read against its replayed class.
void topKernelFinding(const ReportData& d, std::vector<Finding>& out) {
    const auto& s = d.summary;
    // A kernel ladder times its reference rung beside the fast ones on purpose:
    // "optimize it first" would be advice against the workload's own design.
    const bool ladder = d.run.workloadKind == "kernel";
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
        // A graph traced whole is not a kernel anyone can optimize as such.
        const bool graphSpan = isGraphSpanName(k.name);
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
}

// The best replayed option, naming the figure it rests on.
void nextOptimizationFinding(const ReportData& d, std::vector<Finding>& out) {
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
}

// Clocks held down by power, heat or a limit.
void throttledClocksFinding(const ReportData& d, std::vector<Finding>& out) {
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
}

// A GPU idle between its first and last activity.
void idleGpuFinding(const ReportData& d, std::vector<Finding>& out) {
    const auto& s = d.summary;
    const bool counterPass = d.properties.count("capture.metrics") > 0;
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
}

// Points far under their roof.
void rooflineFindings(const ReportData& d, std::vector<Finding>& out) {
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
}

// Failed output quality checks.
void qualityFindings(const ReportData& d, std::vector<Finding>& out) {
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
}

// Records CUPTI dropped.
void droppedRecordsFinding(const ReportData& d, std::vector<Finding>& out) {
    if (d.run.droppedRecords > 0) {
        Finding f;
        f.title = "CUPTI dropped " + std::to_string(d.run.droppedRecords) +
                  " records: the timeline is incomplete";
        f.evidence = "dropped records reported by the collector";
        f.next = "record again with larger buffers (WARPSCOPE_BUFFER_KB) or a shorter run";
        f.rule = "dropped records > 0";
        out.push_back(f);
    }
}

// Start-up work timed inside requests.
void coldStartFinding(const ReportData& d, std::vector<Finding>& out) {
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
}

// Against a baseline: regressions and gains, read in context.
std::vector<Finding> comparisonFindings(const ReportData& d) {
    std::vector<Finding> regressions;
    // Against a baseline, regressions lead: they are what a reader must see.
    // Read in context: two points of a sweep at different loads differ by
    // design, a comparison without kernels has no kernel deltas to point at,
    // and a variant's gain is reported beside its loss.
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
    return regressions;
}

// Differences smaller than the capture cost difference.
void captureCostFindings(const ReportData& d, std::vector<Finding>& out) {
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
}

}  // namespace

std::vector<Finding> findFindings(const ReportData& d) {
    std::vector<Finding> out;
    tpotFloorFinding(d, out);
    engineStepSolFinding(d, out);
    prefillInterferenceFinding(d, out);
    topKernelFinding(d, out);
    nextOptimizationFinding(d, out);
    throttledClocksFinding(d, out);
    idleGpuFinding(d, out);
    rooflineFindings(d, out);
    qualityFindings(d, out);
    droppedRecordsFinding(d, out);
    coldStartFinding(d, out);
    // Against a baseline, regressions lead: they are what a reader must see.
    const auto regressions = comparisonFindings(d);
    out.insert(out.begin(), regressions.begin(), regressions.end());
    captureCostFindings(d, out);
    return out;
}

}  // namespace ws
