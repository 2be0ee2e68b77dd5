// A run against a baseline: each latency metric with its delta, speedup, a
// 95% bootstrap confidence interval and a verdict; kernels matched by name.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis_window.h"
#include "model/records.h"

namespace ws {

class Store;

enum class Verdict { Faster, Slower, WithinNoise, NotComparable };
const char* toString(Verdict v);

// A change smaller than this share of the baseline is called within noise
// however narrow its interval: a decode kernel 0.2 % slower on thousands of
// launches is certain and does not matter. 1 %, as the smallest change a
// kernel engineer acts on (Nsight Compute's baseline view colours by the
// same order of difference).
inline constexpr double kPracticalChange = 0.01;

struct MetricDelta {
    std::string metric;  // e.g. "p99_ttft_ms"
    double base = 0;
    double candidate = 0;
    double delta = 0;                     // candidate − base
    double speedup = 0;                   // base / candidate (latency: above 1 is faster)
    std::optional<double> ciLow, ciHigh;  // 95% interval of the delta
    Verdict verdict = Verdict::NotComparable;
};

// One kernel in both runs. Each quantity carries its own delta, interval and
// verdict: a kernel launched less often can take less time in total while
// each launch got slower, and a row must never pair one with the other.
struct KernelDelta {
    std::string name;  // short kernel name
    std::int64_t baseLaunches = 0, candidateLaunches = 0;
    double baseTotalNs = 0, candidateTotalNs = 0;
    double baseMeanNs = 0, candidateMeanNs = 0;
    // Total time: bootstrap of the sum over each run's launches.
    std::optional<double> totalCiLow, totalCiHigh;
    Verdict totalVerdict = Verdict::NotComparable;
    // Time per launch: bootstrap of the mean.
    std::optional<double> ciLow, ciHigh;
    Verdict perLaunchVerdict = Verdict::NotComparable;
    enum class Presence { Both, New, Vanished } presence = Presence::Both;
};

// A run fact both runs may have (memory from the workload's properties).
struct ValueDelta {
    std::string name;  // e.g. "peak_device_memory_bytes"
    std::optional<double> base, candidate;
};

// The candidate's output-quality check beside the baseline's of the same name.
struct QualityDelta {
    std::string check;
    std::optional<QualityRecord> base, candidate;
};

struct Comparison {
    RunId base = 0;
    RunId candidate = 0;
    std::vector<MetricDelta> latency;
    std::vector<KernelDelta> kernels;  // by |total delta|, largest first
    // The windows the kernel rows cover in each run ("while requests were served (…)").
    std::string baseWindow, candidateWindow;
    std::optional<MetricDelta> totalKernelTime;
    std::vector<ValueDelta> memory;     // only keys at least one run has
    std::vector<QualityDelta> quality;  // by check name
    std::vector<std::string> notes;     // what could not be compared and why
};

// Resampling is seeded: the same runs always give the same intervals.
// Bootstrap resamples of every comparison the user sees (GUI, report, CLI):
// one number, so their intervals and verdicts are the same.
inline constexpr int kComparisonResamples = 2000;
// Kernels are compared over `window` in each run (by default while requests
// were served); a range one run lacks falls back to its whole run, said in
// the window's label.
Comparison compareRuns(Store& store, RunId base, RunId candidate,
                       int resamples = kComparisonResamples, const WindowChoice& window = {});

// Bootstrap interval of statistic(candidate) − statistic(base), lower-is-better
// verdict. Exposed for tests.
MetricDelta compareSamples(const std::string& metric, const std::vector<double>& base,
                           const std::vector<double>& candidate,
                           double (*statistic)(std::vector<double>&), int resamples, unsigned seed);

}  // namespace ws
