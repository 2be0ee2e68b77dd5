#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ws
