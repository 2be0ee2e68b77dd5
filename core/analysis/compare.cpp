#include "analysis/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "analysis/kernel_summary.h"
#include "analysis/run_analysis.h"
#include "analysis/run_latency.h"
#include "analysis/series_compare.h"
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

// The verdict of a delta whose interval is set: lower is better.
void judge(MetricDelta& d) {
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
}

// The launches of one short kernel name: count, mean and Σ (x − mean)²,
// merged from the kernel table's rows of that name (Chan's pairwise update),
// so a comparison needs the tables, not the records.
struct Launches {
    double n = 0, mean = 0, squares = 0;
    void merge(const DurationStats& t) {
        const auto m = static_cast<double>(t.count);
        if (m == 0) return;
        const double delta = t.meanNs - mean, total = n + m;
        mean += delta * m / total;
        squares += t.stdNs * t.stdNs * m + delta * delta * n * m / total;
        n = total;
    }
    double total() const { return n * mean; }
};

// Welch's 95 % interval of the difference of the means (sums: of n times
// the mean, n fixed, as a bootstrap of the sum resamples), and its verdict.
// The t quantile keeps a kernel launched a handful of times honest, where a
// bootstrap of so few launches is too narrow.
MetricDelta launchDelta(const std::string& name, const Launches& a, const Launches& b, bool sums) {
    MetricDelta d;
    d.metric = name;
    d.base = sums ? a.total() : a.mean;
    d.candidate = sums ? b.total() : b.mean;
    d.delta = d.candidate - d.base;
    if (a.n < 2 || b.n < 2) {
        d.verdict = d.delta == 0 ? Verdict::WithinNoise : Verdict::NotComparable;
        return d;
    }
    const double va = a.squares / (a.n - 1), vb = b.squares / (b.n - 1);
    const double sa = sums ? a.n * va : va / a.n, sb = sums ? b.n * vb : vb / b.n;
    const double df = sa + sb > 0
                          ? (sa + sb) * (sa + sb) / (sa * sa / (a.n - 1) + sb * sb / (b.n - 1))
                          : a.n + b.n - 2;
    const double half = studentTQuantile(0.975, df) * std::sqrt(sa + sb);
    d.ciLow = d.delta - half;
    d.ciHigh = d.delta + half;
    judge(d);
    return d;
}

// What compareRuns reads of one run: no roofline, no occupancy.
RunAnalysis comparedRun(Store& store, RunId id, const WindowChoice& choice) {
    RunAnalysis a;
    a.run = requireRun(store, id);
    a.latency = runLatency(store, id, contractTargets(store, id));
    const auto window = resolveWindow(store, id, choice, true);
    a.summary = summarizeRun(store, id, window.span, window.label);
    a.properties = runProperties(store, id);
    a.quality = qualityOf(store, id);
    return a;
}

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
    judge(d);
    return d;
}

Comparison compareRuns(Store& store, RunId base, RunId candidate, int resamples,
                       const WindowChoice& window) {
    return compareAnalyses(comparedRun(store, base, window), comparedRun(store, candidate, window),
                           resamples);
}

Comparison compareAnalyses(const RunAnalysis& baseRun, const RunAnalysis& candidateRun,
                           int resamples) {
    Comparison c;
    c.base = baseRun.run.id;
    c.candidate = candidateRun.run.id;
    const auto& lb = baseRun.latency;
    const auto& lc = candidateRun.latency;
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

    // Kernels matched by short name, from each run's kernel table over its
    // window: an interval for the time per launch and for the total.
    // Template instances are one kernel here (gemm<128> and gemm<256> of one
    // run meet gemm<64> of another), as a variant often changes only those.
    std::map<std::string, std::pair<Launches, Launches>> byName;
    for (const auto& k : baseRun.summary.kernels)
        byName[shortKernelName(k.demangled)].first.merge(k.time);
    for (const auto& k : candidateRun.summary.kernels)
        byName[shortKernelName(k.demangled)].second.merge(k.time);
    c.baseWindow = baseRun.summary.window;
    c.candidateWindow = candidateRun.summary.window;
    double sumB = 0, sumC = 0;
    for (const auto& [name, launches] : byName) {
        const auto& [a, b] = launches;
        KernelDelta k;
        k.name = name;
        k.baseTotalNs = a.total();
        k.candidateTotalNs = b.total();
        k.baseLaunches = static_cast<std::int64_t>(a.n);
        k.candidateLaunches = static_cast<std::int64_t>(b.n);
        sumB += k.baseTotalNs;
        sumC += k.candidateTotalNs;
        // A kernel in one run only keeps its own time per launch on that side
        // (the other side has none; readers show it as absent, not as 0 ns).
        if (a.n == 0) {
            k.presence = KernelDelta::Presence::New;
            k.candidateMeanNs = b.mean;
        } else if (b.n == 0) {
            k.presence = KernelDelta::Presence::Vanished;
            k.baseMeanNs = a.mean;
        } else {
            const auto perLaunch = launchDelta(name, a, b, false);
            k.baseMeanNs = perLaunch.base;
            k.candidateMeanNs = perLaunch.candidate;
            k.ciLow = perLaunch.ciLow;
            k.ciHigh = perLaunch.ciHigh;
            k.perLaunchVerdict = perLaunch.verdict;
            const auto total = launchDelta(name, a, b, true);
            k.totalCiLow = total.ciLow;
            k.totalCiHigh = total.ciHigh;
            k.totalVerdict = total.verdict;
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
    const auto& pb = baseRun.properties;
    const auto& pc = candidateRun.properties;
    for (const char* key : {"peak_device_memory_bytes", "kv_cache_bytes", "model.weight_bytes"}) {
        ValueDelta v{key, numberProperty(pb, key), numberProperty(pc, key)};
        if (v.base || v.candidate) c.memory.push_back(v);
    }
    std::map<std::string, QualityDelta> quality;
    for (const auto& q : baseRun.quality)
        quality[q.check].base = q;
    for (const auto& q : candidateRun.quality)
        quality[q.check].candidate = q;
    for (auto& [check, q] : quality) {
        q.check = check;
        c.quality.push_back(q);
    }
    return c;
}

}  // namespace ws
