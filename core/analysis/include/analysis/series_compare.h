// Series of repeated runs against a baseline series: the mean per request of
// a latency metric, with an interval that counts run-to-run variance.
//
// Runs of one workload on one GPU can differ from each other by more than
// their requests differ within a run (clocks, placement, the state the GPU
// was left in). Pooling every request of every run, as naive tools do, treats
// 5 runs × 8 requests as 40 independent samples and gives intervals several
// times too narrow. Here each run is one sample of the series: runs are
// resampled with replacement, then requests within each chosen run.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "analysis/compare.h"

namespace ws {

// One side of a comparison: the samples of each run, e.g. each request's
// TPOT. Below, "requests" are these samples (for ITL: the gaps between tokens).
using RunSamples = std::vector<std::vector<double>>;

struct SeriesCompareOptions {
    int resamples = kComparisonResamples;
    unsigned seed = 12345;
    // The difference the runs-needed figures are for (same unit as the
    // samples, sign ignored); by default the observed delta.
    std::optional<double> target;
};

// Where one side's variance comes from (method of moments, one-way ANOVA):
// Var(mean of R runs of m requests) ≈ betweenRun / R + withinRun / (R·m).
struct VarianceParts {
    int runs = 0;
    double requestsPerRun = 0;  // harmonic mean over the runs
    double betweenRun = 0;      // σ²_run, clamped at 0
    double withinRun = 0;       // σ²_req, pooled over the runs
};

struct SeriesDelta {
    std::string metric;
    int baseRuns = 0, candidateRuns = 0;
    std::size_t baseRequests = 0, candidateRequests = 0;
    // Each side's estimate is the mean of its run means: every run counts once.
    double base = 0, candidate = 0, delta = 0;  // delta = candidate − base
    // The hierarchical 95% interval of the delta; absent with fewer than two
    // runs on a side (between-run variance cannot be estimated).
    std::optional<double> ciLow, ciHigh;
    std::optional<double> standardError;
    std::optional<double> degreesOfFreedom;  // Welch–Satterthwaite, from the run counts
    Verdict verdict = Verdict::NotComparable;
    // The smallest true difference found with 80% power by a two-sided 5%
    // test at these run and request counts: (t_0.975 + t_0.80)·SE.
    std::optional<double> minimumDetectableEffect;
    double target = 0;  // |difference| the two figures below are for
    // Runs per side (at the current requests per run) for an MDE of `target`.
    std::optional<int> runsNeeded;
    // Requests per run (at the current run counts) for the same; absent when
    // no number of requests gets there because run-to-run variance dominates.
    std::optional<int> requestsPerRunNeeded;
    VarianceParts baseParts, candidateParts;
    // The naive interval beside it: every request of every run pooled into
    // one sample per side, percentile bootstrap. Ignores run-to-run variance.
    double pooledBase = 0, pooledCandidate = 0, pooledDelta = 0;
    std::optional<double> pooledCiLow, pooledCiHigh;
    Verdict pooledVerdict = Verdict::NotComparable;
    std::vector<std::string> notes;  // why something could not be computed
};

// Runs without samples are left out (and said in notes). Deterministic for a
// given seed.
SeriesDelta compareSeries(const std::string& metric, const RunSamples& base,
                          const RunSamples& candidate, const SeriesCompareOptions& options = {});

// Student's t quantile: P(T ≤ x) = p for T with `df` degrees of freedom
// (df > 0, not necessarily whole). Exposed for tests.
double studentTQuantile(double p, double df);

}  // namespace ws
