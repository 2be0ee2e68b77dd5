#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "analysis/latency.h"
#include "analysis/statistics.h"

namespace ws {
namespace {

TEST(Statistics, HandComputedPercentilesMatchNumpyLinear) {
    // numpy.percentile([1, 2, 3, 4, 10], p): rank = p/100 * 4
    std::vector<double> v = {10, 3, 1, 4, 2};
    EXPECT_DOUBLE_EQ(stats::percentile(v, 0), 1);
    EXPECT_DOUBLE_EQ(stats::percentile(v, 50), 3);
    EXPECT_DOUBLE_EQ(stats::percentile(v, 90), 7.6);   // 4 + 0.6 * (10 - 4)
    EXPECT_DOUBLE_EQ(stats::percentile(v, 99), 9.76);  // 4 + 0.96 * 6
    EXPECT_DOUBLE_EQ(stats::percentile(v, 100), 10);
    EXPECT_DOUBLE_EQ(stats::percentile({5}, 99), 5);
    EXPECT_DOUBLE_EQ(stats::percentile({}, 50), 0);
}

// Selection (what the bootstrap uses) gives exactly what the sort gives.
TEST(Statistics, PercentileInPlaceEqualsTheSortedPercentile) {
    std::mt19937 rng(5);
    std::normal_distribution<double> noise(10, 3);
    for (std::size_t n : {1u, 2u, 3u, 10u, 101u, 4000u}) {
        std::vector<double> values(n);
        for (auto& v : values)
            v = noise(rng);
        std::vector<double> sorted = values;
        std::sort(sorted.begin(), sorted.end());
        for (double p : {0.0, 2.5, 50.0, 90.0, 97.5, 99.0, 100.0}) {
            std::vector<double> scratch = values;
            EXPECT_EQ(stats::percentileInPlace(scratch, p), stats::percentileSorted(sorted, p))
                << n << " values, p" << p;
        }
    }
}

TEST(Statistics, SummaryUsesPopulationStd) {
    auto s = stats::summarize({2, 4, 4, 4, 5, 5, 7, 9});
    EXPECT_DOUBLE_EQ(s.mean, 5);
    EXPECT_DOUBLE_EQ(s.stddev, 2);  // population; the sample std would be 2.138
    EXPECT_DOUBLE_EQ(s.median, 4.5);
    EXPECT_DOUBLE_EQ(s.min, 2);
    EXPECT_DOUBLE_EQ(s.max, 9);
    auto empty = stats::summarize({});
    EXPECT_EQ(empty.count, 0u);
    EXPECT_DOUBLE_EQ(empty.mean, 0);
}

TEST(Latency, TtftTpotItlE2eFromTokens) {
    // Request 0: starts at 0, tokens at 100, 130, 170 ms → TTFT 100, E2E 170,
    // TPOT (170 − 100) / 2 = 35, ITL 30 and 40.
    constexpr std::int64_t ms = 1'000'000;
    std::vector<RequestRecord> req = {
        {0, 0, 170 * ms, 10, 3, true}, {1, 20 * ms, 80 * ms, 20, 1, true}, {2, 0, 0, 5, 0, false}};
    std::vector<TokenRecord> tok = {
        {0, 0, 100 * ms}, {0, 1, 130 * ms}, {0, 2, 170 * ms}, {1, 0, 80 * ms}};
    auto r = computeLatency(req, tok, {.ttftMs = 90.0, .tpotMs = {}, .e2elMs = {}});
    ASSERT_EQ(r.requests.size(), 2u);
    EXPECT_EQ(r.failedRequests, 1);
    EXPECT_DOUBLE_EQ(r.requests[0].ttftMs, 100);
    EXPECT_DOUBLE_EQ(*r.requests[0].tpotMs, 35);
    EXPECT_DOUBLE_EQ(r.requests[0].e2elMs, 170);
    EXPECT_EQ(r.requests[0].itlMs, (std::vector<double>{30, 40}));
    // One output token: TTFT and E2E, no TPOT.
    EXPECT_DOUBLE_EQ(r.requests[1].ttftMs, 60);
    EXPECT_FALSE(r.requests[1].tpotMs.has_value());
    EXPECT_EQ(r.tpotMs.size(), 1u);
    EXPECT_DOUBLE_EQ(r.durationS, 0.17);
    EXPECT_EQ(r.maxConcurrency, 2);  // request 1 (20-80 ms) runs inside request 0
    EXPECT_DOUBLE_EQ(r.requestThroughput, 2 / 0.17);
    EXPECT_DOUBLE_EQ(r.outputThroughput, 4 / 0.17);
    EXPECT_DOUBLE_EQ(r.totalTokenThroughput, 34 / 0.17);
    // Only request 1 has TTFT ≤ 90 ms.
    ASSERT_TRUE(r.requestGoodput);
    EXPECT_DOUBLE_EQ(*r.requestGoodput, 1 / 0.17);
}

// vLLM's peak: the most tokens in one whole second from the first start.
TEST(Latency, PeakOutputThroughputCountsTokensPerSecond) {
    constexpr std::int64_t ms = 1'000'000;
    std::vector<RequestRecord> req = {{0, 0, 2500 * ms, 4, 5, true},
                                      {1, 900 * ms, 1800 * ms, 4, 3, true}};
    // Second 0: 2 tokens; second 1: 2 + 3 = 5; second 2: 1.
    std::vector<TokenRecord> tok = {{0, 0, 300 * ms},  {0, 1, 800 * ms},  {0, 2, 1100 * ms},
                                    {0, 3, 1500 * ms}, {0, 4, 2500 * ms}, {1, 0, 1000 * ms},
                                    {1, 1, 1200 * ms}, {1, 2, 1800 * ms}};
    auto r = computeLatency(req, tok);
    EXPECT_DOUBLE_EQ(r.peakOutputThroughput, 5);
    EXPECT_EQ(r.maxConcurrency, 2);
}

// A client that keeps only each request's first and last token (GuideLLM):
// TTFT, TPOT and E2E as always, no ITL from the one long gap, and no peak
// throughput, which would count 2 tokens where there were 10.
TEST(Latency, FirstAndLastTokenOnlyGiveTpotButNoItl) {
    constexpr std::int64_t ms = 1'000'000;
    std::vector<RequestRecord> req = {{0, 0, 100 * ms, 5, 10, true}, {1, 0, 50 * ms, 5, 3, true}};
    std::vector<TokenRecord> tok = {
        {0, 0, 10 * ms}, {0, 9, 100 * ms}, {1, 0, 20 * ms}, {1, 1, 35 * ms}, {1, 2, 50 * ms}};
    auto r = computeLatency(req, tok);
    ASSERT_EQ(r.requests.size(), 2u);
    EXPECT_DOUBLE_EQ(r.requests[0].ttftMs, 10);
    EXPECT_DOUBLE_EQ(*r.requests[0].tpotMs, 10);  // (100 - 10) / (10 - 1)
    EXPECT_TRUE(r.requests[0].itlMs.empty());
    EXPECT_EQ(r.requests[1].itlMs, (std::vector<double>{15, 15}));  // every token kept
    EXPECT_EQ(r.itlMs, (std::vector<double>{15, 15}));
    EXPECT_EQ(r.requestsWithoutTokenTimes, 1);
    EXPECT_DOUBLE_EQ(r.peakOutputThroughput, 0);
    EXPECT_EQ(r.totalOutputTokens, 13);
}

TEST(Latency, RunWithoutTokensHasNoStatistics) {
    auto r = computeLatency({{0, 0, 10, 1, 1, true}}, {});
    EXPECT_TRUE(r.requests.empty());
    EXPECT_EQ(r.failedRequests, 1);
    EXPECT_DOUBLE_EQ(r.requestThroughput, 0);
    auto none = computeLatency({}, {});
    EXPECT_TRUE(none.requests.empty());
}

TEST(Latency, EnergyPerOutputTokenFromCumulativeCounter) {
    constexpr std::int64_t ms = 1'000'000;
    std::vector<SampleRecord> samples(3);
    for (int i = 0; i < 3; ++i) {
        samples[i].timeNs = i * 50 * ms;
        samples[i].energyJ = 1000.0 + 10.0 * i;
    }
    auto r = computeLatency({{0, 0, 100 * ms, 1, 4, true}},
                            {{0, 0, 10 * ms}, {0, 1, 40 * ms}, {0, 2, 70 * ms}, {0, 3, 100 * ms}},
                            {}, 0, samples);
    ASSERT_TRUE(r.energyPerOutputTokenJ);
    EXPECT_DOUBLE_EQ(*r.energyPerOutputTokenJ, 20.0 / 4);
}

// On a server with more GPUs than the run uses, the idle ones' energy (they
// draw idle power all along) is not the run's; every busy GPU's is.
TEST(Latency, EnergyPerOutputTokenCountsTheRunsGpusOnly) {
    constexpr std::int64_t ms = 1'000'000;
    std::vector<SampleRecord> samples;
    for (int i = 0; i < 3; ++i)
        for (std::uint32_t device = 0; device < 3; ++device) {
            SampleRecord s;
            s.timeNs = i * 50 * ms;
            s.deviceIndex = device;
            s.gpuUtilPercent = device == 2 ? 0 : 90;  // GPU 2 idles at 70 W
            s.energyJ = 1000.0 + (device == 2 ? 3.5 : 10.0) * i;
            samples.push_back(s);
        }
    auto r = computeLatency({{0, 0, 100 * ms, 1, 4, true}},
                            {{0, 0, 10 * ms}, {0, 1, 40 * ms}, {0, 2, 70 * ms}, {0, 3, 100 * ms}},
                            {}, 0, samples);
    ASSERT_TRUE(r.energyPerOutputTokenJ);
    EXPECT_DOUBLE_EQ(*r.energyPerOutputTokenJ, 2 * 20.0 / 4);
}

// The streaming accumulator against summarize() on the same values: exact
// while distinct values stay under the cap (odd and even counts, a narrow
// spread with many repeats and a wide one).
TEST(Statistics, AccumulatorMatchesSummarizeExactly) {
    std::mt19937_64 random(7);
    for (std::int64_t spread :
         {std::int64_t(1), std::int64_t(50), std::int64_t(30'000), std::int64_t(5'000'000'000)}) {
        for (int n : {1, 2, 3, 1000, 1001, 50'000}) {
            stats::Accumulator acc;
            std::vector<double> values;
            for (int i = 0; i < n; ++i) {
                auto v =
                    800 + static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(spread));
                acc.add(v);
                values.push_back(static_cast<double>(v));
            }
            auto want = stats::summarize(values);
            auto got = acc.summary();
            ASSERT_TRUE(got.medianExact);
            EXPECT_EQ(got.count, want.count);
            EXPECT_EQ(got.sum, want.sum);
            EXPECT_EQ(got.median, want.median) << "spread " << spread << " n " << n;
            EXPECT_EQ(got.min, want.min);
            EXPECT_EQ(got.max, want.max);
            EXPECT_NEAR(got.mean, want.mean, 1e-9 * want.mean);
            EXPECT_NEAR(got.stddev, want.stddev, 1e-9 * (want.stddev + 1));
        }
    }
    EXPECT_EQ(stats::Accumulator().summary().count, 0u);
}

// Past kExactDistinct distinct values the table stays bounded and the median
// is within its stated relative error; the rest stays exact.
TEST(Statistics, AccumulatorBoundsMemoryAndMedianError) {
    std::mt19937_64 random(11);
    stats::Accumulator acc;
    std::vector<double> values;
    for (int i = 0; i < 600'000; ++i) {
        auto v = static_cast<std::int64_t>(random() % 4'000'000'000);
        acc.add(v);
        values.push_back(static_cast<double>(v));
    }
    auto got = acc.summary();
    auto want = stats::summarize(values);
    EXPECT_FALSE(got.medianExact);
    // 2^13 values per power of two over 32 of them.
    EXPECT_LE(acc.distinct(), std::size_t(32) << stats::Accumulator::kSignificantBits);
    const double bound = std::ldexp(want.median, 1 - stats::Accumulator::kSignificantBits);
    EXPECT_LE(got.median, want.median);
    EXPECT_GE(got.median, want.median - bound);
    EXPECT_EQ(got.sum, want.sum);
    EXPECT_EQ(got.min, want.min);
    EXPECT_EQ(got.max, want.max);
    EXPECT_NEAR(got.stddev, want.stddev, 1e-9 * want.stddev);
    EXPECT_EQ(stats::Accumulator::roundDown(8191), 8191);
    EXPECT_EQ(stats::Accumulator::roundDown(16383), 16382);
    EXPECT_EQ(stats::Accumulator::roundDown(-16383), -16382);
}

}  // namespace
}  // namespace ws
