#include <gtest/gtest.h>

#include <random>

#include "analysis/compare.h"
#include "analysis/statistics.h"

namespace ws {
namespace {

double meanOf(std::vector<double> v) {
    return stats::summarize(std::move(v)).mean;
}

std::vector<double> noisy(double center, double spread, int n, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> d(center, spread);
    std::vector<double> v;
    for (int i = 0; i < n; ++i)
        v.push_back(d(rng));
    return v;
}

TEST(Compare, ClearImprovementIsFaster) {
    auto d = compareSamples("mean_tpot_ms", noisy(10, 0.5, 200, 1), noisy(8, 0.5, 200, 2), meanOf,
                            1000, 7);
    EXPECT_EQ(d.verdict, Verdict::Faster);
    EXPECT_NEAR(d.delta, -2, 0.2);
    EXPECT_NEAR(d.speedup, 1.25, 0.05);
    ASSERT_TRUE(d.ciLow && d.ciHigh);
    EXPECT_LT(*d.ciLow, d.delta);
    EXPECT_GT(*d.ciHigh, d.delta);
    EXPECT_LT(*d.ciHigh, 0);
}

TEST(Compare, RegressionIsSlowerAndSameIsWithinNoise) {
    EXPECT_EQ(compareSamples("m", noisy(10, 0.5, 200, 1), noisy(11, 0.5, 200, 2), meanOf, 1000, 7)
                  .verdict,
              Verdict::Slower);
    EXPECT_EQ(
        compareSamples("m", noisy(10, 2, 50, 1), noisy(10, 2, 50, 2), meanOf, 1000, 7).verdict,
        Verdict::WithinNoise);
}

TEST(Compare, SeededAndEmptySafe) {
    auto a = compareSamples("m", noisy(10, 1, 30, 1), noisy(9.5, 1, 30, 2), meanOf, 500, 3);
    auto b = compareSamples("m", noisy(10, 1, 30, 1), noisy(9.5, 1, 30, 2), meanOf, 500, 3);
    EXPECT_EQ(*a.ciLow, *b.ciLow);
    EXPECT_EQ(compareSamples("m", {}, {1, 2}, meanOf, 100, 1).verdict, Verdict::NotComparable);
}

}  // namespace
}  // namespace ws
