#include "analysis/whatif.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>

#include "analysis/kernel_summary.h"
#include "analysis/latency.h"
#include "analysis/statistics.h"
#include "store/run_queries.h"
#include "util/format.h"
#include "util/text.h"

namespace ws {

namespace {

double parseAmount(const std::string& text, const std::string& whole) {
    std::size_t used = 0;
    double value = 0;
    try {
        value = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size() || !std::isfinite(value))
        throw std::invalid_argument("--faster " + whole + ": '" + text +
                                    "' is not a number followed by % or x (30% = 30 % less "
                                    "time, 2x = twice as fast)");
    return value;
}

// The statistics a user reads off `stats`, each a function of one sample.
struct Statistic {
    const char* name;
    double (*of)(std::vector<double>&);
};
constexpr Statistic kStatistics[] = {
    {"mean", stats::meanOf}, {"p50", stats::medianOf}, {"p99", stats::p99Of}};

// The latency samples of a chosen set of requests (a resample may pick one
// request twice), pooled as computeLatency pools them.
struct Samples {
    std::vector<double> ttft, tpot, itl, e2el;
    double outputTokens = 0, spanNs = 0;  // span: first arrival to last token
};
void gather(const LatencyReport& report, const std::vector<std::size_t>& picks, Samples& out) {
    out.ttft.clear();
    out.tpot.clear();
    out.itl.clear();
    out.e2el.clear();
    out.outputTokens = 0;
    std::int64_t first = 0, last = 0;
    bool any = false;
    for (auto i : picks) {
        const auto& r = report.requests[i];
        out.ttft.push_back(r.ttftMs);
        if (r.tpotMs) out.tpot.push_back(*r.tpotMs);
        out.itl.insert(out.itl.end(), r.itlMs.begin(), r.itlMs.end());
        out.e2el.push_back(r.e2elMs);
        out.outputTokens += r.outputTokens;
        const auto end = r.startNs + static_cast<std::int64_t>(r.e2elMs * 1e6);
        if (!any || r.startNs < first) first = r.startNs;
        if (!any || end > last) last = end;
        any = true;
    }
    out.spanNs = static_cast<double>(last - first);
}

std::vector<double>* sampleOf(Samples& s, const std::string& metric) {
    if (metric == "ttft") return &s.ttft;
    if (metric == "tpot") return &s.tpot;
    if (metric == "itl") return &s.itl;
    return &s.e2el;
}

}  // namespace

KernelChange parseKernelChange(const std::string& text) {
    const auto eq = text.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 >= text.size())
        throw std::invalid_argument("--faster '" + text +
                                    "': expected NAME_OR_CLASS=AMOUNT, e.g. gemv=30% or "
                                    "attention=2x");
    KernelChange change;
    change.asWritten = text;
    change.match = text.substr(0, eq);
    change.kernelClass = kernelClassFromString(change.match);
    auto amount = text.substr(eq + 1);
    const char unit = static_cast<char>(std::tolower(static_cast<unsigned char>(amount.back())));
    amount.pop_back();
    const double value = parseAmount(amount, text);
    if (unit == '%') {
        if (value <= 0 || value >= 100)
            throw std::invalid_argument("--faster " + text +
                                        ": a percentage of time saved must lie between 0 and "
                                        "100 (exclusive)");
        change.timeFactor = 1 - value / 100;
    } else if (unit == 'x') {
        if (value <= 0 || value > 1000)
            throw std::invalid_argument("--faster " + text +
                                        ": a speed-up must be above 0x and at most 1000x");
        change.timeFactor = 1 / value;
    } else {
        throw std::invalid_argument("--faster " + text +
                                    ": the amount ends in % (time saved) or x (times as fast)");
    }
    return change;
}

KernelChange kernelAtRoof(const std::string& what) {
    if (what.empty() || what.find('=') != std::string::npos)
        throw std::invalid_argument("--kernel-at-roof '" + what +
                                    "': expected a kernel name or class, e.g. gemv or matmul "
                                    "(no amount: the roofline sets it)");
    KernelChange change;
    change.asWritten = what + " at roof";
    change.match = what;
    change.kernelClass = kernelClassFromString(what);
    change.atRoof = true;
    return change;
}

void setRoofFloors(KernelChange& change, const std::map<std::string, KernelCounterStat>& counted,
                   const RooflineCeilings& ceilings) {
    change.floorNs.clear();
    for (const auto& [mangled, stat] : counted) {
        if (stat.instances == 0) continue;
        // GB/s is bytes per ns; TFLOP/s is 1e3 FLOP per ns.
        double ns = ceilings.dramGBs > 0 ? stat.meanDramBytes / ceilings.dramGBs : 0;
        if (stat.flopsCounted) {
            if (ceilings.tensorTflops > 0)
                ns = std::max(ns, stat.meanTensorFlops / (ceilings.tensorTflops * 1e3));
            if (ceilings.fp32Tflops > 0)
                ns = std::max(ns, stat.meanFp32Flops / (ceilings.fp32Tflops * 1e3));
        }
        if (ns > 0) change.floorNs[demangle(mangled)] = ns;
    }
}

std::string WhatIfScenario::describe() const {
    std::string out;
    for (const auto& f : faster) {
        if (!out.empty()) out += "; ";
        out += (f.kernelClass ? std::string("class ") : std::string("kernels matching ")) + "'" +
               f.match + "' at " +
               (f.atRoof ? std::string("the roofline (their counted work at the ceilings)")
                         : formatFixed(f.timeFactor * 100, 1) + " % of their time");
    }
    if (replay.untracedGraphLaunches) {
        if (!out.empty()) out += "; ";
        out += "graph launches untraced (each graph's first node " +
               formatDuration(replay.graphLaunchNs) + " after its launch)";
    }
    if (replay.noLaunchGaps) {
        if (!out.empty()) out += "; ";
        out += "no launch gaps (as CUDA graphs: one " + formatDuration(replay.graphLaunchNs) +
               " graph launch per step)";
    }
    return out.empty() ? "nothing changed (the replay of the run as recorded)" : out;
}

std::string setRoofFloors(Store& store, RunId run, WhatIfScenario& scenario) {
    if (std::none_of(scenario.faster.begin(), scenario.faster.end(),
                     [](const KernelChange& c) { return c.atRoof; }))
        return {};
    // The work of each kernel from counters: the run's own (a DRAM pass
    // merged into it) or a counter run of the same program; the ceilings
    // are the timed run's.
    const RunId countersRun = scenario.countersRun.value_or(run);
    requireRun(store, countersRun);
    const auto counted = kernelCounterStats(store, countersRun);
    if (counted.empty())
        throw std::runtime_error(
            "kernel at roof: run " + std::to_string(countersRun) +
            " has no hardware counters; record the same program with --metrics roofline and "
            "take its counters (whatif --counters-from RUN; in the What-if dock, WHAT@roof:RUN)");
    const auto ceilings = computeRoofline(store, run).ceilings;
    if (ceilings.dramGBs <= 0)
        throw std::runtime_error("kernel at roof: run " + std::to_string(run) +
                                 " has no DRAM ceiling (no measured copy bandwidth and its GPU is "
                                 "not in the spec table)");
    for (auto& change : scenario.faster)
        if (change.atRoof) setRoofFloors(change, counted, ceilings);
    const bool flopsCounted = std::any_of(counted.begin(), counted.end(), [](const auto& entry) {
        return entry.second.flopsCounted;
    });
    if (flopsCounted && (ceilings.tensorTflops <= 0 || ceilings.fp32Tflops <= 0))
        return "run " + std::to_string(run) +
               " has no tensor or FP32 peak (its GPU is not in the spec table): the floors count "
               "DRAM bytes only, so compute-bound kernels' floors are too low";
    return {};
}

WhatIfRun loadWhatIfRun(Store& store, RunId run) {
    requireRun(store, run);
    WhatIfRun out;
    auto& t = out.timeline;
    t.apiCalls = apiCallsIn(store, run);
    t.requests = requestsOf(store, run);
    t.tokens = tokensOf(store, run);
    const auto props = runProperties(store, run);
    t.arrivalsFixed = std::any_of(props.begin(), props.end(),
                                  [](const auto& p) { return p.first.rfind("bench.", 0) == 0; });
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> processOfStream;
    for (const auto& g : gpuStreamsOf(store, run))
        processOfStream[{g.deviceId, g.streamId}] = g.processId;
    std::set<std::uint32_t> processes;
    for (const auto& a : t.apiCalls)
        processes.insert(a.processId);
    const std::uint32_t onlyProcess = processes.size() == 1 ? *processes.begin() : 0;
    std::map<std::string, std::uint32_t> nameIds;  // shown name -> index
    auto idOf = [&](const std::string& name) {
        auto [it, fresh] = nameIds.try_emplace(name, static_cast<std::uint32_t>(out.names.size()));
        if (fresh) out.names.push_back(name);
        return it->second;
    };
    auto add = [&](std::int64_t start, std::int64_t end, std::uint32_t device, std::uint32_t stream,
                   std::uint32_t correlation, std::uint32_t name) {
        auto it = processOfStream.find({device, stream});
        t.ops.push_back({start, end, it != processOfStream.end() ? it->second : onlyProcess, device,
                         stream, correlation});
        out.opName.push_back(name);
    };
    std::map<std::string, std::uint32_t> mangledIds;  // demangled once per distinct name
    for (auto& k : kernelsIn(store, run)) {
        auto [it, fresh] = mangledIds.try_emplace(k.name);
        if (fresh) it->second = idOf(demangle(k.name));
        add(k.startNs, k.endNs, k.deviceId, k.streamId, k.correlationId, it->second);
    }
    for (const auto& m : memcpysIn(store, run))
        add(m.startNs, m.endNs, m.deviceId, m.streamId, m.correlationId,
            idOf(std::string("Memcpy ") + toString(m.kind)));
    for (const auto& m : memsetsIn(store, run))
        add(m.startNs, m.endNs, m.deviceId, m.streamId, m.correlationId, idOf("Memset"));
    return out;
}

WhatIfRun WhatIfRun::withOpNames(ReplayInput timeline, const std::vector<std::string>& perOp) {
    WhatIfRun run;
    run.timeline = std::move(timeline);
    std::map<std::string, std::uint32_t> ids;
    for (const auto& name : perOp) {
        auto [it, fresh] = ids.try_emplace(name, static_cast<std::uint32_t>(run.names.size()));
        if (fresh) run.names.push_back(name);
        run.opName.push_back(it->second);
    }
    return run;
}

std::vector<KernelClass> WhatIfRun::nameClasses() const {
    std::vector<KernelClass> out(names.size());
    for (std::size_t n = 0; n < names.size(); ++n)
        out[n] = classifyKernel(names[n]);
    return out;
}

WhatIfPrediction predictWhatIf(const WhatIfRun& run, const WhatIfScenario& scenario, int resamples,
                               unsigned seed) {
    WhatIfPrediction p;
    ReplayInput timeline = run.timeline;  // the scales are this prediction's
    // A floor is never below the run's shortest kernel: the roofline has no
    // fixed cost, and a kernel has one (its launch on the GPU, a wave's ramp).
    double shortestKernelNs = 0;
    if (std::any_of(scenario.faster.begin(), scenario.faster.end(),
                    [](const KernelChange& c) { return c.atRoof; })) {
        const auto classes = run.nameClasses();
        for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
            const auto ns = static_cast<double>(timeline.ops[i].endNs - timeline.ops[i].startNs);
            if (classes[run.opName[i]] != KernelClass::Copy && ns > 0 &&
                (shortestKernelNs == 0 || ns < shortestKernelNs))
                shortestKernelNs = ns;
        }
    }
    for (const auto& change : scenario.faster) {
        ChangeMatch m{change.asWritten};
        m.atRoof = change.atRoof;
        const auto needle = asciiLower(change.match);
        std::vector<bool> nameHit(run.names.size());
        for (std::size_t n = 0; n < run.names.size(); ++n)
            nameHit[n] = change.kernelClass
                             ? classifyKernel(run.names[n]) == *change.kernelClass
                             : asciiLower(run.names[n]).find(needle) != std::string::npos;
        // At roof: each hit name's launches take its mean floor over its mean
        // recorded time, so a name's large launches keep their share of its
        // work (its floor is a mean over launches of different sizes).
        std::vector<std::optional<double>> nameScale(run.names.size());
        if (change.atRoof) {
            std::vector<double> recordedSum(run.names.size()), launches(run.names.size());
            for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
                recordedSum[run.opName[i]] +=
                    static_cast<double>(timeline.ops[i].endNs - timeline.ops[i].startNs);
                launches[run.opName[i]] += 1;
            }
            for (std::size_t n = 0; n < run.names.size(); ++n)
                if (auto it = change.floorNs.find(run.names[n]);
                    nameHit[n] && it != change.floorNs.end() && recordedSum[n] > 0)
                    nameScale[n] = std::min(1.0, std::max(it->second, shortestKernelNs) /
                                                     (recordedSum[n] / launches[n]));
        }
        for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
            if (!nameHit[run.opName[i]]) continue;
            auto& op = timeline.ops[i];
            const auto recordedNs = static_cast<double>(op.endNs - op.startNs);
            ++m.ops;
            m.timeNs += op.endNs - op.startNs;
            if (!change.atRoof) {
                op.durationScale *= change.timeFactor;
            } else if (const auto& scale = nameScale[run.opName[i]]; !scale) {
                ++m.opsWithoutWork;
                m.floorNs += static_cast<std::int64_t>(std::llround(recordedNs * op.durationScale));
            } else {
                // At its floor, not below it: a kernel matched by two changes
                // takes the shorter, not their product.
                op.durationScale = std::min(op.durationScale, *scale);
                m.floorNs += static_cast<std::int64_t>(std::llround(recordedNs * op.durationScale));
            }
        }
        if (change.atRoof && m.ops > 0 && m.opsWithoutWork == m.ops)
            throw std::runtime_error(
                "--kernel-at-roof " + change.match + ": none of the " + std::to_string(m.ops) +
                " matched launches has counted work (DRAM bytes or FLOPs); record the same "
                "program with --metrics roofline and give that run as --counters-from");
        if (m.ops == 0) {
            std::string classes;
            for (const auto& c : kernelClassNames())
                classes += (classes.empty() ? "" : ", ") + c;
            throw std::runtime_error((change.atRoof ? "--kernel-at-roof " + change.match
                                                    : "--faster " + change.asWritten) +
                                     ": no kernel of the run " +
                                     (change.kernelClass ? "is of class '" : "has '") +
                                     change.match + (change.kernelClass ? "'" : "' in its name") +
                                     " (classes: " + classes + ")");
        }
        p.matches.push_back(m);
    }
    if (timeline.tokens.empty())
        throw std::runtime_error(
            "the run has no tokens to predict: record a program that marks them "
            "(docs/token-conventions.md) or a server under bench serve --server");

    const auto replayed = replayTimeline(timeline, scenario.replay);
    p.floors = replayed.floors;
    p.gpuTimeNs = replayed.gpuTimeNs;
    p.replayedGpuTimeNs = replayed.replayedGpuTimeNs;
    p.launchesRemoved = replayed.launchesRemoved;
    const auto before = computeLatency(timeline.requests, timeline.tokens);
    const auto after = computeLatency(replayed.requests, replayed.tokens);
    if (before.requests.size() != after.requests.size() || before.requests.empty())
        throw std::runtime_error("the run has no completed request with tokens to predict");
    p.requests = static_cast<std::int64_t>(after.requests.size());
    p.tokens = static_cast<std::int64_t>(timeline.tokens.size());

    // Requests resampled with replacement, the same picks for every statistic.
    const auto n = after.requests.size();
    std::vector<std::size_t> all(n);
    for (std::size_t i = 0; i < n; ++i)
        all[i] = i;
    Samples recorded, predicted, resample;
    gather(before, all, recorded);
    gather(after, all, predicted);
    const double predictedE2el = std::accumulate(predicted.e2el.begin(), predicted.e2el.end(), 0.0);
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::size_t> pick(0, n - 1);
    std::vector<std::size_t> picks(n);
    const std::vector<std::string> metrics = {"ttft", "tpot", "itl", "e2el"};
    std::map<std::string, std::vector<double>> draws;  // "metric statistic" -> resampled values
    for (int r = 0; r < resamples; ++r) {
        for (auto& i : picks)
            i = pick(rng);
        gather(after, picks, resample);
        for (const auto& metric : metrics)
            for (const auto& s : kStatistics) {
                auto* v = sampleOf(resample, metric);
                if (!v->empty()) draws[metric + " " + s.name].push_back(s.of(*v));
            }
        // Throughput is the run's, not a request's: a resample moves it by how
        // its requests' tokens per second of latency differ from all of them.
        if (double e2el = std::accumulate(resample.e2el.begin(), resample.e2el.end(), 0.0);
            e2el > 0 && predicted.spanNs > 0)
            draws["output throughput"].push_back(predicted.outputTokens / (predicted.spanNs / 1e9) *
                                                 (resample.outputTokens / e2el) /
                                                 (predicted.outputTokens / predictedE2el));
    }
    auto interval = [&](const std::string& key, PredictedValue& v) {
        auto& d = draws[key];
        if (d.size() < 2 || n < 2) {  // one request resampled is itself every time
            v.ciLow = v.ciHigh = v.predicted;
            v.hasInterval = false;
            return;
        }
        std::sort(d.begin(), d.end());
        v.ciLow = stats::percentileSorted(d, 2.5);
        v.ciHigh = stats::percentileSorted(d, 97.5);
    };
    for (const auto& metric : metrics)
        for (const auto& s : kStatistics) {
            if (metric == "e2el" && std::string(s.name) != "mean") continue;
            auto* before_ = sampleOf(recorded, metric);
            auto* after_ = sampleOf(predicted, metric);
            if (before_->empty() || after_->empty()) continue;
            PredictedValue v{metric, s.name, s.of(*before_), s.of(*after_)};
            interval(metric + " " + s.name, v);
            p.values.push_back(v);
        }
    if (recorded.spanNs > 0 && predicted.spanNs > 0) {
        PredictedValue v{"output throughput", "tok/s",
                         recorded.outputTokens / (recorded.spanNs / 1e9),
                         predicted.outputTokens / (predicted.spanNs / 1e9)};
        interval("output throughput", v);
        p.values.push_back(v);
    }
    return p;
}

const PredictedValue* RankedOption::value(const std::string& metric,
                                          const std::string& statistic) const {
    for (const auto& v : prediction.values)
        if (v.metric == metric && v.statistic == statistic) return &v;
    return nullptr;
}

std::vector<RankedOption> rankOptions(const WhatIfRun& run, int resamples) {
    std::vector<RankedOption> options;
    const auto& t = run.timeline;
    if (t.tokens.empty() || t.requests.empty()) return options;
    std::int64_t from = t.requests.front().startNs, to = t.requests.front().endNs;
    for (const auto& r : t.requests) {
        from = std::min(from, r.startNs);
        to = std::max(to, r.endNs);
    }
    for (const auto& token : t.tokens)
        to = std::max(to, token.timeNs);
    const auto classOfName = run.nameClasses();
    std::map<KernelClass, std::int64_t> byClass;
    std::int64_t total = 0;
    for (std::size_t i = 0; i < t.ops.size(); ++i) {
        const auto& op = t.ops[i];
        if (op.startNs < from || op.startNs > to) continue;
        byClass[classOfName[run.opName[i]]] += op.endNs - op.startNs;
        total += op.endNs - op.startNs;
    }
    auto replay = [&](RankedOption option, const WhatIfScenario& scenario) {
        option.prediction = predictWhatIf(run, scenario, resamples);
        options.push_back(std::move(option));
    };
    for (const auto& [kind, ns] : byClass) {
        const double share = total > 0 ? static_cast<double>(ns) / static_cast<double>(total) : 0;
        if (kind == KernelClass::Copy || kind == KernelClass::Other || share < 0.05) continue;
        WhatIfScenario scenario;
        scenario.faster.push_back(parseKernelChange(std::string(toString(kind)) + "=30%"));
        replay({std::string(toString(kind)) + " 30 % faster",
                std::string("--faster ") + toString(kind) + "=30%",
                share,
                {}},
               scenario);
    }
    // Launched kernel by kernel: more launch calls than tokens, none a graph.
    std::int64_t launches = 0, graphLaunches = 0;
    std::set<std::pair<std::uint32_t, std::uint32_t>> launching;
    for (const auto& op : t.ops)
        launching.insert({op.processId, op.correlationId});
    for (const auto& call : t.apiCalls) {
        if (call.startNs < from || call.startNs > to) continue;
        if (call.name.find("GraphLaunch") != std::string::npos)
            ++graphLaunches;
        else if (launching.count({call.processId, call.correlationId}))
            ++launches;
    }
    if (graphLaunches == 0 && launches > static_cast<std::int64_t>(t.tokens.size())) {
        WhatIfScenario scenario;
        scenario.replay.noLaunchGaps = true;
        replay({"no launch gaps (CUDA graphs)", "--no-launch-gaps", 0, {}}, scenario);
    }
    auto key = [](const RankedOption& o) {
        const auto* v = o.value("tpot", "mean");
        if (!v) v = o.value("ttft", "mean");
        return v ? v->change() : 0.0;
    };
    std::stable_sort(options.begin(), options.end(),
                     [&](const RankedOption& a, const RankedOption& b) { return key(a) < key(b); });
    return options;
}

std::optional<WhatIfRun> loadReplayableRun(Store& store, RunId run, std::string& whyNot) {
    whyNot.clear();
    const auto counts = runAggregates(store, run);
    if (counts.tokenCount == 0 || counts.kernelCount == 0) {
        whyNot = counts.tokenCount == 0
                     ? "the run has no tokens: record a program that marks them "
                       "(docs/token-conventions.md) or a server under bench serve --server"
                     : "the run has no kernels to replay";
        return std::nullopt;
    }
    const auto props = runProperties(store, run);
    if (props.count("capture.metrics")) {
        whyNot = "a counter pass replays every kernel: its times are not the program's";
        return std::nullopt;
    }
    if (counts.kernelCount + counts.apiCallCount > kSuggestRecordLimit) {
        whyNot = "the run has " + std::to_string(counts.kernelCount + counts.apiCallCount) +
                 " kernels and API calls, more than every option is replayed for; run "
                 "`warpscope-cli whatif` for the change you have in mind";
        return std::nullopt;
    }
    return loadWhatIfRun(store, run);
}

std::vector<RankedOption> suggestOptimizations(Store& store, RunId run, std::string& whyNot) {
    auto loaded = loadReplayableRun(store, run, whyNot);
    return loaded ? rankOptions(*loaded) : std::vector<RankedOption>{};
}

}  // namespace ws
