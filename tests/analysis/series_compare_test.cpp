#include "analysis/series_compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <numbers>
#include <random>
#include <sstream>

#include "analysis/statistics.h"

namespace ws {
namespace {

// Normal variates from a fixed generator and Box–Muller: the same series on
// every standard library (std::normal_distribution is not specified).
class Normal {
  public:
    explicit Normal(std::uint64_t seed) : rng_(seed) {}
    double operator()() {
        const double u1 = (static_cast<double>(rng_() >> 11) + 0.5) * 0x1.0p-53;
        const double u2 = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
        return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
    }

  private:
    std::mt19937_64 rng_;
};

// A synthetic series: each run's mean scatters around the true mean by
// `runSd` (relative), requests scatter around their run's mean by
// `requestSd` (relative to the true mean).
RunSamples series(double mean, int runs, int requests, double runSd, double requestSd,
                  Normal& normal) {
    RunSamples s(static_cast<std::size_t>(runs));
    for (auto& run : s) {
        const double runMean = mean * (1 + runSd * normal());
        for (int j = 0; j < requests; ++j)
            run.push_back(runMean + mean * requestSd * normal());
    }
    return s;
}

struct Coverage {
    double hierarchical = 0, pooled = 0;
};

// How often each 95% interval holds the true delta, over `trials` pairs of
// series with a known effect.
Coverage simulate(int runs, int requests, int trials, double runSd, double requestSd) {
    constexpr double kBase = 1.40;     // ms, a decoder TPOT at the H200's scale
    constexpr double kEffect = -0.02;  // the candidate is 2 % faster
    constexpr int kResamples = 100;    // per trial; the CLI uses 2000
    Normal normal(0x5eed0000u + static_cast<unsigned>(runs));
    const double truth = kBase * kEffect;
    int hierarchical = 0, pooled = 0;
    for (int t = 0; t < trials; ++t) {
        auto base = series(kBase, runs, requests, runSd, requestSd, normal);
        auto cand = series(kBase * (1 + kEffect), runs, requests, runSd, requestSd, normal);
        auto d = compareSeries("mean_tpot_ms", base, cand,
                               {kResamples, static_cast<unsigned>(1000 + t), std::nullopt});
        hierarchical += *d.ciLow <= truth && truth <= *d.ciHigh;
        pooled += *d.pooledCiLow <= truth && truth <= *d.pooledCiHigh;
    }
    return {hierarchical / double(trials), pooled / double(trials)};
}

// The check issue 22 asks for: run-to-run sd 2.5 % of the mean and request sd
// 1 % within a run (the scale the issue assumes for repeated H200 decoder
// runs), 8 requests per run, 1,000 trials per run count.
TEST(SeriesCompare, HierarchicalIntervalCoversTheTrueEffect) {
    constexpr int kTrials = 1000;
    std::ostringstream report;
    report << std::fixed << std::setprecision(1)
           << "series coverage of the true delta (95% intervals, " << kTrials
           << " trials, 8 requests per run, run sd 2.5%, request sd 1%):";
    for (int runs : {3, 5, 10}) {
        auto c = simulate(runs, 8, kTrials, 0.025, 0.01);
        report << "\n  " << runs << " runs per side: hierarchical " << 100 * c.hierarchical
               << " %, pooled per request " << 100 * c.pooled << " %";
        if (runs == 3) {
            // Welch with 2–4 degrees of freedom is conservative, never narrow.
            EXPECT_GE(c.hierarchical, 0.93) << runs;
            EXPECT_LE(c.hierarchical, 0.99) << runs;
        } else {
            EXPECT_GE(c.hierarchical, 0.93) << runs;
            EXPECT_LE(c.hierarchical, 0.97) << runs;
        }
        EXPECT_LT(c.pooled, 0.80) << runs;
    }
    std::cout << report.str() << '\n';
}

// Runs that agree and requests that scatter: the second resampling stage
// must not count the within-run variance twice (the interval would be ~1.4×
// too wide and cover ~99.7 %).
TEST(SeriesCompare, WithinRunNoiseIsNotCountedTwice) {
    auto c = simulate(5, 8, 400, 0.002, 0.03);
    EXPECT_GE(c.hierarchical, 0.92);
    EXPECT_LE(c.hierarchical, 0.98);
}

TEST(SeriesCompare, StudentTQuantilesMatchTables) {
    EXPECT_NEAR(studentTQuantile(0.975, 1), 12.7062, 1e-4);
    EXPECT_NEAR(studentTQuantile(0.975, 4), 2.7764, 1e-4);
    EXPECT_NEAR(studentTQuantile(0.975, 10), 2.2281, 1e-4);
    EXPECT_NEAR(studentTQuantile(0.80, 8), 0.8889, 1e-4);
    EXPECT_NEAR(studentTQuantile(0.025, 4), -2.7764, 1e-4);
    EXPECT_NEAR(studentTQuantile(0.975, 1e9), 1.95996, 1e-5);
    const double mid = studentTQuantile(0.975, 7.5);
    EXPECT_TRUE(mid > studentTQuantile(0.975, 8) && mid < studentTQuantile(0.975, 7));
}

TEST(SeriesCompare, IdenticalSeriesAreWithinNoise) {
    RunSamples s = {{1.40, 1.41, 1.39}, {1.43, 1.44, 1.42}, {1.38, 1.37, 1.39}};
    auto d = compareSeries("mean_tpot_ms", s, s);
    EXPECT_EQ(d.verdict, Verdict::WithinNoise);
    EXPECT_EQ(d.pooledVerdict, Verdict::WithinNoise);
    EXPECT_DOUBLE_EQ(d.delta, 0);
    ASSERT_TRUE(d.ciLow && d.ciHigh);
    EXPECT_LT(*d.ciLow, 0);
    EXPECT_GT(*d.ciHigh, 0);
    EXPECT_EQ(d.baseRuns, 3);
    EXPECT_EQ(d.baseRequests, 9u);
    EXPECT_FALSE(d.runsNeeded);  // nothing to resolve
}

TEST(SeriesCompare, ClearDifferenceGetsAVerdict) {
    RunSamples slow = {{10.0, 10.2, 9.9}, {10.4, 10.3, 10.5}, {9.8, 9.9, 9.7}, {10.1, 10.0, 10.2}};
    RunSamples fast = {{8.0, 8.1, 7.9}, {8.3, 8.2, 8.4}, {7.9, 7.8, 8.0}, {8.1, 8.2, 8.0}};
    auto d = compareSeries("mean_tpot_ms", slow, fast);
    EXPECT_EQ(d.verdict, Verdict::Faster);
    EXPECT_NEAR(d.delta, 8.075 - 10.0833, 1e-3);
    ASSERT_TRUE(d.ciHigh && d.minimumDetectableEffect);
    EXPECT_LT(*d.ciHigh, 0);
    EXPECT_LT(*d.minimumDetectableEffect, 2.0);
    EXPECT_EQ(compareSeries("mean_tpot_ms", fast, slow).verdict, Verdict::Slower);
    // The same seed gives the same interval.
    auto again = compareSeries("mean_tpot_ms", slow, fast);
    EXPECT_EQ(*again.ciLow, *d.ciLow);
}

// Each side: 4 runs of 2 requests, run means 8, 10, 12, 10 (+ shift), requests
// at the run mean ± 1. Sample variance of the run means 8/3; within-run
// variance 2 (each run: 2 / (2 − 1)); between-run 8/3 − 2/2 = 5/3.
TEST(SeriesCompare, VarianceDecompositionAndRunsNeeded) {
    auto side = [](double shift) {
        RunSamples s;
        for (double m : {8.0, 10.0, 12.0, 10.0})
            s.push_back({m + shift - 1, m + shift + 1});
        return s;
    };
    SeriesCompareOptions options;
    options.resamples = 20000;
    options.target = 2.0;
    auto d = compareSeries("m", side(0), side(0.5), options);
    EXPECT_NEAR(d.baseParts.withinRun, 2.0, 1e-12);
    EXPECT_NEAR(d.baseParts.betweenRun, 5.0 / 3, 1e-12);
    EXPECT_NEAR(d.baseParts.requestsPerRun, 2.0, 1e-12);
    EXPECT_NEAR(d.delta, 0.5, 1e-12);
    // The corrected bootstrap SE is Welch's on the run means, √(2·(8/3)/4).
    ASSERT_TRUE(d.standardError && d.degreesOfFreedom);
    EXPECT_NEAR(*d.standardError, std::sqrt(4.0 / 3), 0.05 * std::sqrt(4.0 / 3));
    EXPECT_NEAR(*d.degreesOfFreedom, 6, 0.5);
    // Runs per side for a difference of 2 at 2 requests per run: each side's run
    // mean has variance 8/3, so (t_.975 + t_.80)(2R − 2 df) · √(16 / (3R)) ≤ 2:
    // R = 11 gives 2.946 · 0.696 = 2.05, R = 12 gives 2.932 · 0.667 = 1.95.
    EXPECT_EQ(d.runsNeeded, 12);
    // With 4 runs the between-run part alone, 2·(5/3)/4, keeps the MDE at
    // 3.353 · √(5/6) = 3.06 however many requests a run has.
    EXPECT_FALSE(d.requestsPerRunNeeded);

    // A difference of 4 is resolved by these very runs: 4 runs (3.353·√(4/3) =
    // 3.87; 3 runs give 3.717·√(16/9) = 4.96), and 2 requests per run
    // (5/3 + 2/m ≤ 2.847 needs m ≥ 1.7).
    options.target = 4.0;
    auto e = compareSeries("m", side(0), side(0.5), options);
    EXPECT_EQ(e.runsNeeded, 4);
    EXPECT_EQ(e.requestsPerRunNeeded, 2);
    // The MDE at this sample size is the same figure from the bootstrap SE.
    ASSERT_TRUE(e.minimumDetectableEffect);
    EXPECT_NEAR(*e.minimumDetectableEffect, 3.87, 0.2);
}

// Past 512 samples a run's resampled mean is drawn from its normal limit (a
// serving run's token gaps): the intervals must stay what the formulas say.
TEST(SeriesCompare, LargeRunsKeepTheirIntervals) {
    Normal normal(99);
    auto base = series(1.40, 4, 3000, 0.025, 0.01, normal);
    auto cand = series(1.37, 4, 3000, 0.025, 0.01, normal);
    auto d = compareSeries("mean_itl_ms", base, cand);
    auto runMeanVariance = [](const RunSamples& s) {
        std::vector<double> means;
        for (const auto& run : s)
            means.push_back(stats::summarize(run).mean);
        const double m = stats::summarize(means).mean;
        double squares = 0;
        for (double x : means)
            squares += (x - m) * (x - m);
        return squares / static_cast<double>(means.size() - 1);
    };
    const double welch = std::sqrt((runMeanVariance(base) + runMeanVariance(cand)) / 4);
    ASSERT_TRUE(d.standardError);
    EXPECT_NEAR(*d.standardError, welch, 0.06 * welch);
    auto pooledSd = [](const RunSamples& s) {
        std::vector<double> all;
        for (const auto& run : s)
            all.insert(all.end(), run.begin(), run.end());
        return stats::summarize(all).stddev / std::sqrt(static_cast<double>(all.size()));
    };
    const double pooledHalf = 1.96 * std::hypot(pooledSd(base), pooledSd(cand));
    ASSERT_TRUE(d.pooledCiLow && d.pooledCiHigh);
    EXPECT_NEAR((*d.pooledCiHigh - *d.pooledCiLow) / 2, pooledHalf, 0.1 * pooledHalf);
}

TEST(SeriesCompare, OneRunASideIsNotComparableButPooledIsShown) {
    RunSamples one = {{1.40, 1.41, 1.39, 1.40}};
    RunSamples two = {{1.30, 1.31}, {}, {1.29, 1.30}};
    auto d = compareSeries("mean_tpot_ms", one, two);
    EXPECT_EQ(d.verdict, Verdict::NotComparable);
    EXPECT_FALSE(d.ciLow);
    EXPECT_EQ(d.candidateRuns, 2);  // the empty run is left out
    EXPECT_EQ(d.notes.size(), 2u);
    EXPECT_EQ(d.pooledVerdict, Verdict::Faster);
    auto none = compareSeries("mean_tpot_ms", one, RunSamples{{}});
    EXPECT_EQ(none.verdict, Verdict::NotComparable);
    EXPECT_FALSE(none.pooledCiLow);
}

}  // namespace
}  // namespace ws
