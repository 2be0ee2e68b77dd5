// ITLs split into prefill interference, kernel time, launch gap and host gap,
// on a hand-computed served run (times in µs, stored in ns).
#include <gtest/gtest.h>

#include "analysis/itl_outliers.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

constexpr std::int64_t us = 1000;

RangeRecord range(std::int64_t start, std::int64_t end, const std::string& name) {
    return RangeRecord{start * us, end * us, 9, 9, name, "", RangeKind::PushPop, 0, 0};
}

TEST(ItlOutliers, ReadsEngineStepRanges) {
    auto step = engineStepOf(
        range(1, 2,
              "engine.step:12;running=3;waiting=1;prefill_seqs=1;prefill_tokens=64;decode_seqs=2;"
              "decode_tokens=2;kv_blocks_used=9;kv_blocks_total=100;preemptions=0"));
    ASSERT_TRUE(step);
    EXPECT_EQ(step->index, 12);
    EXPECT_EQ(step->running, 3);
    EXPECT_EQ(step->waiting, 1);
    EXPECT_EQ(step->prefillTokens, 64);
    EXPECT_EQ(step->decodeTokens, 2);
    EXPECT_EQ(step->startNs, 1 * us);
    auto bare = engineStepOf(range(1, 2, "engine.step"));  // a server that names only the step
    ASSERT_TRUE(bare);
    EXPECT_EQ(bare->index, -1);
    EXPECT_FALSE(engineStepOf(range(1, 2, "engine.stepper")));
    auto mark = range(1, 1, "engine.step:3");
    mark.kind = RangeKind::Mark;
    EXPECT_FALSE(engineStepOf(mark));
}

// Steps: [0,100) prefill, [120,150) decode, [170,200) decode, [220,400)
// prefill (batch 2), [420,450) decode. Request 1's tokens reach the client at
// 110, 160, 210, 410, 460; request 2's at 410 and 460.
struct ServedRun {
    std::vector<TokenRecord> tokens;
    std::vector<RangeRecord> ranges = {
        range(0, 100, "engine.step:0;running=1;prefill_tokens=50;decode_tokens=0"),
        range(120, 150, "engine.step:1;running=1;prefill_tokens=0;decode_tokens=1"),
        range(170, 200, "engine.step:2;running=1;prefill_tokens=0;decode_tokens=1"),
        range(220, 400, "engine.step:3;running=2;prefill_tokens=200;decode_tokens=1"),
        range(420, 450, "engine.step:4;running=2;prefill_tokens=0;decode_tokens=2"),
        range(0, 500, "http.handler"),  // not a step
    };
    std::vector<KernelRecord> kernels;
    ServedRun() {
        int index = 0;
        for (std::int64_t t : {110, 160, 210, 410, 460})
            tokens.push_back({1, index++, t * us});
        tokens.push_back({2, 0, 410 * us});
        tokens.push_back({2, 1, 460 * us});
        // Two kernels of step 2 overlap on two streams: busy [175,195) once.
        for (auto [s, e] :
             {std::pair{10, 90}, {125, 145}, {175, 185}, {180, 195}, {230, 390}, {425, 445}}) {
            KernelRecord k;
            k.startNs = s * us;
            k.endNs = e * us;
            k.name = "k";
            kernels.push_back(k);
        }
    }
    std::vector<EngineStep> steps() const {
        std::vector<EngineStep> out;
        for (const auto& r : ranges)
            if (auto s = engineStepOf(r)) out.push_back(*s);
        return out;
    }
};

void expectHandComputed(const ItlOutlierReport& rep) {
    ASSERT_EQ(rep.itlCount, 5u);  // 50, 50, 200, 50 (request 1), 50 (request 2)
    EXPECT_EQ(rep.engineSteps, 5u);
    EXPECT_TRUE(rep.stepsDescribed);
    EXPECT_DOUBLE_EQ(rep.p50Ms, 0.05);
    EXPECT_NEAR(rep.p99Ms, 0.194, 1e-9);  // numpy: 50 + 0.96 * 150 µs
    ASSERT_EQ(rep.outlierCount, 1u);
    ASSERT_EQ(rep.outliers.size(), 1u);
    const auto& o = rep.outliers[0];
    EXPECT_EQ(o.requestId, 1);
    EXPECT_EQ(o.tokenIndex, 3);
    EXPECT_DOUBLE_EQ(o.ms(), 0.2);
    // [210,410): the prefill step's 180 µs, 20 µs outside steps.
    EXPECT_DOUBLE_EQ(o.split.prefillNs, 180 * us);
    EXPECT_DOUBLE_EQ(o.split.kernelNs, 0);
    EXPECT_DOUBLE_EQ(o.split.launchGapNs, 0);
    EXPECT_DOUBLE_EQ(o.split.hostGapNs, 20 * us);
    EXPECT_EQ(o.steps, 1);
    EXPECT_EQ(o.prefillTokens, 200);
    EXPECT_EQ(o.maxRunning, 2);
    // Every ITL: each decode-only one is 20 kernel + 10 launch gap + 20 host.
    EXPECT_DOUBLE_EQ(rep.allTotal.prefillNs, 180 * us);
    EXPECT_DOUBLE_EQ(rep.allTotal.kernelNs, 80 * us);
    EXPECT_DOUBLE_EQ(rep.allTotal.launchGapNs, 40 * us);
    EXPECT_DOUBLE_EQ(rep.allTotal.hostGapNs, 100 * us);
    EXPECT_DOUBLE_EQ(rep.allTotal.totalNs(), 400 * us);  // the ITLs' sum
}

TEST(ItlOutliers, SplitsEachItlByWhatTheEngineDid) {
    ServedRun run;
    expectHandComputed(itlOutliers(run.tokens, run.steps(), run.kernels, 10));
}

TEST(ItlOutliers, ReadsAStoredRun) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    ServedRun served;
    auto run = store.beginRun({});
    {
        StoreWriter w(store, run);
        for (const auto& k : served.kernels)
            w.add(k);
        for (const auto& r : served.ranges)
            w.add(r);
        for (const auto& t : served.tokens)
            w.add(t);
    }
    expectHandComputed(itlOutliers(store, run, 10));
}

TEST(ItlOutliers, TopLimitsTheListNotTheTotals) {
    ServedRun run;
    for (auto& t : run.tokens)  // every ITL equal: all of them are at p99
        t.timeNs = (t.requestId * 1000 + t.index * 100) * us;
    auto rep = itlOutliers(run.tokens, run.steps(), run.kernels, 2);
    EXPECT_EQ(rep.outlierCount, 5u);
    EXPECT_EQ(rep.outliers.size(), 2u);
    EXPECT_DOUBLE_EQ(rep.outlierTotal.totalNs(), 500 * us);
}

TEST(ItlOutliers, ClientOnlyRunIsAllHostGap) {
    ServedRun run;
    auto rep = itlOutliers(run.tokens, {}, {}, 10);
    EXPECT_EQ(rep.engineSteps, 0u);
    EXPECT_FALSE(rep.stepsDescribed);
    EXPECT_DOUBLE_EQ(rep.allTotal.hostGapNs, 400 * us);
    EXPECT_TRUE(itlOutliers({}, {}, {}, 10).outliers.empty());
}

}  // namespace
}  // namespace ws
