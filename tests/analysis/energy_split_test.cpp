// Energy per output token by phase and kernel class: each figure below is
// worked out by hand from the samples and spans the test gives.
#include "analysis/energy_split.h"

#include <gtest/gtest.h>

#include "report/report_data.h"
#include "report/report_writer.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

constexpr std::int64_t kMs = 1'000'000;

SampleRecord sample(std::int64_t ms, std::optional<double> energyJ, std::optional<double> powerW) {
    SampleRecord s;
    s.timeNs = ms * kMs;
    s.energyJ = energyJ;
    s.powerW = powerW;
    s.gpuUtilPercent = 90;
    return s;
}

const EnergyPart& part(const std::vector<EnergyPart>& parts, const std::string& label) {
    for (const auto& p : parts)
        if (p.label == label) return p;
    ADD_FAILURE() << "no part " << label;
    static const EnergyPart none;
    return none;
}

// Samples every 50 ms; the counter moves every 100 ms (10 J each time, a mean
// of 100 W); the power samples read 50 to 150 W.
std::vector<SampleRecord> counterSamples() {
    return {sample(0, 0, 50), sample(50, 0, 100), sample(100, 10, 150), sample(150, 10, 100),
            sample(200, 20, 100)};
}

TEST(EnergySplit, EachCounterUpdateIsSplitOverWhatRanInItByTime) {
    // Prefill for the first 50 ms, decode after; a matmul 0-60 ms, attention
    // 60-100 ms, nothing in the second 100 ms.
    const std::vector<EnergySpan> phases{{0, 50 * kMs, "prefill"}, {50 * kMs, 200 * kMs, "decode"}};
    const std::vector<EnergySpan> kernels{{0, 60 * kMs, "matmul"},
                                          {60 * kMs, 100 * kMs, "attention"}};
    auto s = splitEnergy(counterSamples(), 0, 200 * kMs, phases, "between", kernels, 10);
    ASSERT_TRUE(s);
    EXPECT_DOUBLE_EQ(s->totalJ, 20);
    // The 50 ms samples that read an unchanged counter fold into the next
    // update: two intervals of 100 ms, not a 0 J one beside a 10 J one.
    EXPECT_DOUBLE_EQ(s->intervalMs, 100);
    EXPECT_DOUBLE_EQ(s->minPowerW, 50);
    EXPECT_DOUBLE_EQ(s->maxPowerW, 150);
    ASSERT_EQ(s->phases.size(), 2u);  // nothing between the phases
    EXPECT_EQ(s->phases[0].label, "prefill");
    EXPECT_DOUBLE_EQ(s->phases[0].joules, 5);   // half of the first 10 J
    EXPECT_DOUBLE_EQ(s->phases[1].joules, 15);  // the other half, and all of the second
    // Half the interval at 100 W mean: either half could have drawn 50 or
    // 150 W, so ± 0.5 × 0.1 s × 50 W.
    EXPECT_DOUBLE_EQ(s->phases[0].boundJ, 2.5);
    EXPECT_DOUBLE_EQ(s->phases[1].boundJ, 2.5);
    EXPECT_DOUBLE_EQ(s->perToken(s->phases[0].joules), 0.5);

    EXPECT_DOUBLE_EQ(part(s->classes, "matmul").joules, 6);
    EXPECT_DOUBLE_EQ(part(s->classes, "attention").joules, 4);
    EXPECT_DOUBLE_EQ(part(s->classes, "idle").joules, 10);
    EXPECT_EQ(s->classes[0].label, "idle");  // largest first
    // 60 % at 100 W mean: the matmul drew between 66.7 and 133.3 W (the rest
    // within 50-150 W), ± 0.6 × 0.1 s × 33.3 W; the second interval is idle
    // alone, known exactly.
    EXPECT_NEAR(part(s->classes, "matmul").boundJ, 2.0, 1e-9);
    EXPECT_NEAR(part(s->classes, "attention").boundJ, 2.0, 1e-9);
    EXPECT_DOUBLE_EQ(part(s->classes, "idle").boundJ, 0);
}

TEST(EnergySplit, KernelsOnTwoStreamsShareTheirTimeAndGapsOutsidePhasesAreNamed) {
    const std::vector<EnergySpan> phases{{0, 25 * kMs, "decode"}, {75 * kMs, 100 * kMs, "decode"}};
    const std::vector<EnergySpan> kernels{{0, 100 * kMs, "matmul"}, {0, 100 * kMs, "collective"}};
    auto s = splitEnergy({sample(0, 100, 100), sample(100, 110, 100)}, 0, 100 * kMs, phases,
                         "between requests", kernels, 4);
    ASSERT_TRUE(s);
    EXPECT_DOUBLE_EQ(part(s->classes, "matmul").joules, 5);
    EXPECT_DOUBLE_EQ(part(s->classes, "collective").joules, 5);
    EXPECT_EQ(s->classes.size(), 2u);  // no idle time
    EXPECT_DOUBLE_EQ(part(s->phases, "decode").joules, 5);
    EXPECT_DOUBLE_EQ(part(s->phases, "between requests").joules, 5);
    // Every sample read 100 W: no power range, no doubt about the split.
    EXPECT_DOUBLE_EQ(part(s->phases, "decode").boundJ, 0);
}

TEST(EnergySplit, WithoutACounterPowerSamplesGiveTrapezoidsAndAResetIsSkipped) {
    auto power = splitEnergy({sample(0, std::nullopt, 100), sample(100, std::nullopt, 200)}, 0,
                             100 * kMs, {}, "", {}, 1);
    ASSERT_TRUE(power);
    EXPECT_DOUBLE_EQ(power->totalJ, 15);
    EXPECT_TRUE(power->phases.empty());
    EXPECT_DOUBLE_EQ(part(power->classes, "idle").joules, 15);

    // The counter went back (driver reloaded): that interval is not energy.
    auto reset = splitEnergy(
        {sample(0, 50, 100), sample(100, 60, 100), sample(200, 5, 100), sample(300, 15, 100)}, 0,
        300 * kMs, {}, "", {}, 1);
    ASSERT_TRUE(reset);
    EXPECT_DOUBLE_EQ(reset->totalJ, 20);

    // Samples outside the window do not count; one inside is not an interval.
    EXPECT_FALSE(splitEnergy(counterSamples(), 40 * kMs, 60 * kMs, {}, "", {}, 1));
}

// A stored run: phases from the requests when they never prefill while
// another decodes, and why not when they do.
TEST(EnergySplit, AStoredRunTakesItsPhasesFromItsRequests) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto write = [&](std::int64_t secondStartMs) {
        auto run = store.beginRun({});
        StoreWriter w(store, run);
        // Request 0: prefill 0-50 ms, decode 50-100; request 1 from secondStartMs.
        w.add(RequestRecord{0, 0, 100 * kMs, 16, 2, true});
        w.add(TokenRecord{0, 0, 50 * kMs});
        w.add(TokenRecord{0, 1, 100 * kMs});
        w.add(RequestRecord{1, secondStartMs * kMs, 200 * kMs, 16, 2, true});
        w.add(TokenRecord{1, 0, (secondStartMs + 50) * kMs});
        w.add(TokenRecord{1, 1, 200 * kMs});
        for (int i = 0; i <= 4; ++i)
            w.add(sample(i * 50, 10.0 * i, 200));
        KernelRecord k;
        k.startNs = 0;
        k.endNs = 100 * kMs;
        k.name = "gemv_bf16_splitk";
        k.streamId = 7;
        w.add(k);
        return run;
    };
    const auto apart = write(100);
    std::string why;
    auto s = energySplitOf(store, apart, why);
    ASSERT_TRUE(s) << why;
    EXPECT_EQ(s->phaseSource, "requests");
    EXPECT_EQ(s->outputTokens, 4);
    EXPECT_DOUBLE_EQ(s->totalJ, 40);
    EXPECT_DOUBLE_EQ(part(s->phases, "prefill").joules, 20);
    EXPECT_DOUBLE_EQ(part(s->phases, "decode").joules, 20);
    EXPECT_DOUBLE_EQ(part(s->classes, "matmul").joules, 20);
    EXPECT_DOUBLE_EQ(part(s->classes, "idle").joules, 20);
    // The report says it beside the energy per token: 40 J over 4 tokens.
    const auto md = writeReport(buildReport(store, apart), ReportFormat::Markdown);
    EXPECT_NE(md.find("energy 10.000 J per output token"), std::string::npos) << md;
    EXPECT_NE(
        md.find("energy by phase (requests), J per output token: prefill 5.000, decode 5.000"),
        std::string::npos)
        << md;
    EXPECT_NE(md.find("energy by kernel class, J per output token: matmul 5.000"),
              std::string::npos)
        << md;

    const auto overlapping = write(60);  // request 1 prefills while request 0 decodes
    auto o = energySplitOf(store, overlapping, why);
    ASSERT_TRUE(o) << why;
    EXPECT_TRUE(o->phases.empty());
    EXPECT_NE(o->whyNoPhases.find("no engine steps"), std::string::npos) << o->whyNoPhases;
    EXPECT_DOUBLE_EQ(part(o->classes, "matmul").joules, 20);

    auto bare = store.beginRun({});
    { StoreWriter w(store, bare); }
    EXPECT_FALSE(energySplitOf(store, bare, why));
    EXPECT_NE(why.find("--sample-ms"), std::string::npos) << why;
}

}  // namespace
}  // namespace ws
