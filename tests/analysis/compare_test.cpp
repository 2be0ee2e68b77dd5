#include <gtest/gtest.h>

#include <random>

#include "analysis/compare.h"
#include "analysis/statistics.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

double meanOf(std::vector<double>& v) {
    return stats::summarize(v).mean;
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

TEST(Compare, MemoryAndQualitySideBySide) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto base = store.beginRun({}), cand = store.beginRun({});
    store.setProperty(base, "peak_device_memory_bytes", "2147483648");
    store.setProperty(cand, "peak_device_memory_bytes", "1073741824");
    store.setProperty(cand, "kv_cache_bytes", "1048576");
    {
        StoreWriter w(store, cand);
        w.add(QualityRecord{"greedy", "reference", 0.9375, 0.14, 0.25, true});
    }
    auto c = compareRuns(store, base, cand, 100);
    ASSERT_EQ(c.memory.size(), 2u);  // the weight bytes neither run has are left out
    EXPECT_EQ(c.memory[0].name, "peak_device_memory_bytes");
    EXPECT_EQ(*c.memory[0].base, 2147483648.0);
    EXPECT_EQ(*c.memory[0].candidate, 1073741824.0);
    EXPECT_FALSE(c.memory[1].base.has_value());
    ASSERT_EQ(c.quality.size(), 1u);
    EXPECT_FALSE(c.quality[0].base.has_value());
    EXPECT_DOUBLE_EQ(c.quality[0].candidate->tokenAgreement, 0.9375);
}

TEST(Compare, FewerSlowerLaunchesGetAVerdictPerQuantity) {
    // The sample store's gemvSplitK: 92 ms -> 16 ms in total, which `compare`
    // printed as "slower" because each launch got slower.
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto base = store.beginRun({}), cand = store.beginRun({});
    auto launches = [&](RunId run, int n, std::vector<double> durations) {
        StoreWriter w(store, run);
        for (int i = 0; i < n; ++i) {
            KernelRecord k;
            k.name = "gemvSplitK";
            k.startNs = i * 100'000;
            k.endNs = k.startNs + static_cast<std::int64_t>(durations[std::size_t(i)]);
            w.add(k);
        }
    };
    launches(base, 400, noisy(20'000, 500, 400, 1));
    launches(cand, 50, noisy(30'000, 500, 50, 2));
    auto c = compareRuns(store, base, cand, 500);
    ASSERT_EQ(c.kernels.size(), 1u);
    const auto& k = c.kernels[0];
    EXPECT_EQ(k.baseLaunches, 400);
    EXPECT_EQ(k.candidateLaunches, 50);
    EXPECT_LT(k.candidateTotalNs, k.baseTotalNs);
    EXPECT_EQ(k.totalVerdict, Verdict::Faster);
    ASSERT_TRUE(k.totalCiHigh.has_value());
    EXPECT_LT(*k.totalCiHigh, 0);  // the interval is of the total's delta
    EXPECT_EQ(k.perLaunchVerdict, Verdict::Slower);
    EXPECT_GT(*k.ciLow, 0);
}

// Certain but tiny: 0.2 % slower over thousands of samples is within noise
// (kPracticalChange); 3 % is not.
TEST(Compare, ChangesUnderThePracticalThresholdAreWithinNoise) {
    auto base = noisy(10'000, 5, 4000, 1);
    EXPECT_EQ(compareSamples("k", base, noisy(10'020, 5, 4000, 2), meanOf, 500, 7).verdict,
              Verdict::WithinNoise);
    EXPECT_EQ(compareSamples("k", base, noisy(10'300, 5, 4000, 2), meanOf, 500, 7).verdict,
              Verdict::Slower);
}

// A kernel of one run only keeps its own time per launch on that side.
TEST(Compare, NewAndVanishedKernelsKeepTheirTimePerLaunch) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto base = store.beginRun({}), cand = store.beginRun({});
    auto launch = [&](RunId run, const char* name, int n, std::int64_t ns) {
        StoreWriter w(store, run);
        for (int i = 0; i < n; ++i) {
            KernelRecord k;
            k.name = name;
            k.startNs = i * 100'000;
            k.endNs = k.startNs + ns;
            w.add(k);
        }
    };
    launch(base, "old", 4, 2'000);
    launch(cand, "fresh", 5, 8'000);
    auto c = compareRuns(store, base, cand, 200);
    ASSERT_EQ(c.kernels.size(), 2u);
    for (const auto& k : c.kernels) {
        if (k.presence == KernelDelta::Presence::New) {
            EXPECT_DOUBLE_EQ(k.candidateMeanNs, 8'000);
        } else {
            EXPECT_EQ(k.presence, KernelDelta::Presence::Vanished);
            EXPECT_DOUBLE_EQ(k.baseMeanNs, 2'000);
        }
    }
}

}  // namespace
}  // namespace ws
