#include "analysis/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <unordered_map>

#include "analysis/kernel_summary.h"
#include "analysis/run_latency.h"
#include "analysis/statistics.h"
#include "resampling.h"
#include "store/run_queries.h"

namespace ws {

namespace {
// A bootstrap calls these thousands of times: each reorders its scratch
// buffer, none copies it (compare of two decoder runs spent 70 % of its time
// sorting copies for means and medians).
using stats::meanOf;
using stats::medianOf;
using stats::p90Of;
using stats::p99Of;
using stats::sumOf;
}  // namespace

const char* toString(Verdict v) {
    switch (v) {
        case Verdict::Faster:
            return "faster";
        case Verdict::Slower:
            return "slower";
        case Verdict::WithinNoise:
            return "within noise";
        case Verdict::NotComparable:
            return "not comparable";
    }
    return "not comparable";
}

MetricDelta compareSamples(const std::string& metric, const std::vector<double>& base,
                           const std::vector<double>& candidate,
                           double (*statistic)(std::vector<double>&), int resamples,
                           unsigned seed) {
    MetricDelta d;
    d.metric = metric;
    if (base.empty() || candidate.empty()) return d;
    std::vector<double> a(base), b(candidate);
    d.base = statistic(a);
    d.candidate = statistic(b);
    d.delta = d.candidate - d.base;
    d.speedup = d.candidate != 0 ? d.base / d.candidate : 0;
    if (base.size() < 2 || candidate.size() < 2) {
        d.verdict = d.delta == 0 ? Verdict::WithinNoise : Verdict::NotComparable;
        return d;
    }
    resampling::Rng rng{seed};
    std::vector<double> deltas;
    deltas.reserve(static_cast<std::size_t>(resamples));
    if (statistic == meanOf || statistic == sumOf) {
        // A mean (a sum: n times the mean of n draws) resamples without a
        // buffer, and from its normal limit for large samples: a kernel
        // launched 18 000 times costs what one launched 100 times does.
        const resampling::Sample sa(base), sb(candidate);
        const double scaleA = statistic == sumOf ? static_cast<double>(base.size()) : 1.0;
        const double scaleB = statistic == sumOf ? static_cast<double>(candidate.size()) : 1.0;
        for (int r = 0; r < resamples; ++r) {
            const double ma = sa.resampledMean(rng);
            deltas.push_back(sb.resampledMean(rng) * scaleB - ma * scaleA);
        }
    } else {
        for (int r = 0; r < resamples; ++r) {
            for (auto& x : a)
                x = base[rng.pick(base.size())];
            for (auto& x : b)
                x = candidate[rng.pick(candidate.size())];
            deltas.push_back(statistic(b) - statistic(a));
        }
    }
    std::sort(deltas.begin(), deltas.end());
    d.ciLow = stats::percentileSorted(deltas, 2.5);
    d.ciHigh = stats::percentileSorted(deltas, 97.5);
    // Rounding in the resampled statistics must not turn "identical" into a verdict.
    const double tolerance = 1e-9 * std::max(std::fabs(d.base), std::fabs(d.candidate));
    if (std::fabs(d.delta) < kPracticalChange * std::fabs(d.base))
        d.verdict = Verdict::WithinNoise;  // certain or not, too small to act on
    else if (*d.ciHigh < -tolerance)
        d.verdict = Verdict::Faster;
    else if (*d.ciLow > tolerance)
        d.verdict = Verdict::Slower;
    else
        d.verdict = Verdict::WithinNoise;
    return d;
}

Comparison compareRuns(Store& store, RunId base, RunId candidate, int resamples,
                       const WindowChoice& window) {
    Comparison c;
    c.base = base;
    c.candidate = candidate;
    auto lb = runLatency(store, base, contractTargets(store, base));
    auto lc = runLatency(store, candidate, contractTargets(store, candidate));
    unsigned seed = 12345;
    if (!lb.requests.empty() && !lc.requests.empty()) {
        struct Metric {
            const char* name;
            const std::vector<double>* b;
            const std::vector<double>* c;
            double (*stat)(std::vector<double>&);
        };
        const Metric metrics[] = {
            {"mean_ttft_ms", &lb.ttftMs, &lc.ttftMs, meanOf},
            {"median_ttft_ms", &lb.ttftMs, &lc.ttftMs, medianOf},
            {"p99_ttft_ms", &lb.ttftMs, &lc.ttftMs, p99Of},
            {"mean_tpot_ms", &lb.tpotMs, &lc.tpotMs, meanOf},
            {"median_tpot_ms", &lb.tpotMs, &lc.tpotMs, medianOf},
            {"p99_tpot_ms", &lb.tpotMs, &lc.tpotMs, p99Of},
            {"mean_itl_ms", &lb.itlMs, &lc.itlMs, meanOf},
            {"p90_itl_ms", &lb.itlMs, &lc.itlMs, p90Of},
            {"mean_e2el_ms", &lb.e2elMs, &lc.e2elMs, meanOf},
        };
        for (const auto& m : metrics) {
            auto d = compareSamples(m.name, *m.b, *m.c, m.stat, resamples, seed++);
            if (!m.b->empty() && !m.c->empty()) c.latency.push_back(d);
        }
        MetricDelta tput;
        tput.metric = "output_throughput";
        tput.base = lb.outputThroughput;
        tput.candidate = lc.outputThroughput;
        tput.delta = tput.candidate - tput.base;
        tput.speedup = tput.base > 0 ? tput.candidate / tput.base : 0;
        c.latency.push_back(tput);
    } else {
        c.notes.push_back(
            "latency: " + std::string(lb.requests.empty() ? "the baseline" : "the candidate") +
            " has no requests with tokens");
    }

    // Kernels matched by short name; an interval for the mean duration.
    std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> byName;
    std::vector<double> totalsB, totalsC;
    auto baseWindow = resolveWindow(store, base, window, true);
    auto candidateWindow = resolveWindow(store, candidate, window, true);
    c.baseWindow = baseWindow.label;
    c.candidateWindow = candidateWindow.label;
    // Each distinct name demangled and shortened once, not once per launch.
    std::unordered_map<std::string, std::pair<std::vector<double>, std::vector<double>>*> byRaw;
    auto samplesOf = [&](const std::string& raw) {
        auto [it, added] = byRaw.try_emplace(raw, nullptr);
        if (added) it->second = &byName[shortKernelName(demangle(raw))];
        return it->second;
    };
    forEachKernel(store, base, baseWindow.span, std::nullopt, [&](const KernelRecord& k) {
        samplesOf(k.name)->first.push_back(static_cast<double>(k.durationNs()));
    });
    forEachKernel(store, candidate, candidateWindow.span, std::nullopt, [&](const KernelRecord& k) {
        samplesOf(k.name)->second.push_back(static_cast<double>(k.durationNs()));
    });
    double sumB = 0, sumC = 0;
    for (auto& [name, samples] : byName) {
        KernelDelta k;
        k.name = name;
        for (double v : samples.first)
            k.baseTotalNs += v;
        for (double v : samples.second)
            k.candidateTotalNs += v;
        k.baseLaunches = static_cast<std::int64_t>(samples.first.size());
        k.candidateLaunches = static_cast<std::int64_t>(samples.second.size());
        sumB += k.baseTotalNs;
        sumC += k.candidateTotalNs;
        // A kernel in one run only keeps its own time per launch on that side
        // (the other side has none; readers show it as absent, not as 0 ns).
        if (samples.first.empty()) {
            k.presence = KernelDelta::Presence::New;
            k.candidateMeanNs = k.candidateTotalNs / static_cast<double>(k.candidateLaunches);
        } else if (samples.second.empty()) {
            k.presence = KernelDelta::Presence::Vanished;
            k.baseMeanNs = k.baseTotalNs / static_cast<double>(k.baseLaunches);
        } else {
            auto d = compareSamples(name, samples.first, samples.second, meanOf,
                                    std::min(resamples, 500), seed++);
            k.baseMeanNs = d.base;
            k.candidateMeanNs = d.candidate;
            k.ciLow = d.ciLow;
            k.ciHigh = d.ciHigh;
            k.perLaunchVerdict = d.verdict;
            auto t = compareSamples(name, samples.first, samples.second, sumOf,
                                    std::min(resamples, 500), seed++);
            k.totalCiLow = t.ciLow;
            k.totalCiHigh = t.ciHigh;
            k.totalVerdict = t.verdict;
        }
        c.kernels.push_back(std::move(k));
    }
    std::sort(c.kernels.begin(), c.kernels.end(), [](const KernelDelta& a, const KernelDelta& b) {
        return std::fabs(a.candidateTotalNs - a.baseTotalNs) >
               std::fabs(b.candidateTotalNs - b.baseTotalNs);
    });
    if (sumB > 0 || sumC > 0) {
        MetricDelta t;
        t.metric = "total_kernel_time_ms";
        t.base = sumB / 1e6;
        t.candidate = sumC / 1e6;
        t.delta = t.candidate - t.base;
        t.speedup = t.candidate > 0 ? t.base / t.candidate : 0;
        c.totalKernelTime = t;
    } else {
        c.notes.push_back("kernels: neither run recorded any");
    }
    auto pb = runProperties(store, base), pc = runProperties(store, candidate);
    for (const char* key : {"peak_device_memory_bytes", "kv_cache_bytes", "model.weight_bytes"}) {
        ValueDelta v{key, numberProperty(pb, key), numberProperty(pc, key)};
        if (v.base || v.candidate) c.memory.push_back(v);
    }
    std::map<std::string, QualityDelta> quality;
    for (const auto& q : qualityOf(store, base))
        quality[q.check].base = q;
    for (const auto& q : qualityOf(store, candidate))
        quality[q.check].candidate = q;
    for (auto& [check, q] : quality) {
        q.check = check;
        c.quality.push_back(q);
    }
    return c;
}

}  // namespace ws
