// Engine steps against their speed-of-light floors: the floor arithmetic, SOL
// by step kind, and where a synthetic serving window's time goes, every
// figure worked out by hand below.
#include <gtest/gtest.h>

#include "analysis/engine_step_sol.h"

namespace ws {
namespace {

// 1000 bytes and 1000 FLOPs per ns: the weights (1e6 bytes) take 1000 ns, a
// token's linear layers 100 ns, a KV position or an attention pair 1 ns.
EngineStepCost cost() {
    EngineStepCost c;
    c.weightBytes = 1e6;
    c.kvBytesPerToken = 1000;
    c.matmulFlopsPerToken = 1e5;
    c.attentionFlopsPerPair = 1000;
    c.copyGbs = 1000;
    c.tensorTflops = 1;
    return c;
}

EngineStep step(std::int64_t start, std::int64_t end, int prefill, int decode, std::int64_t kvRead,
                std::int64_t pairs) {
    EngineStep s;
    s.startNs = start;
    s.endNs = end;
    s.prefillTokens = prefill;
    s.decodeTokens = decode;
    s.running = 2;
    s.prefillSeqs = prefill > 0 ? 1 : 0;
    s.kvReadTokens = kvRead;
    s.attentionPairs = pairs;
    return s;
}

TEST(EngineStepSol, TheFloorIsTheLongerOfBytesAndFlopsForLinearLayersAndAttentionApart) {
    // Decode of 2: weights (1000) beat 2 tokens of FLOPs (200); KV 150 read +
    // 2 written (152) beat 150 pairs.
    auto decode = engineStepFloor(step(0, 1, 0, 2, 150, 150), cost());
    ASSERT_TRUE(decode);
    EXPECT_DOUBLE_EQ(decode->matmul, 1000);
    EXPECT_DOUBLE_EQ(decode->attention, 152);
    // 20 prompt tokens beside the 2 decodes: 22 tokens of FLOPs (2200) beat
    // the weights; 362 pairs beat 172 + 22 KV positions.
    auto mixed = engineStepFloor(step(0, 1, 20, 2, 172, 362), cost());
    ASSERT_TRUE(mixed);
    EXPECT_DOUBLE_EQ(mixed->matmul, 2200);
    EXPECT_DOUBLE_EQ(mixed->attention, 362);
    EXPECT_DOUBLE_EQ(mixed->total(), 2562);
    // A range that does not name its attention work has no floor.
    EXPECT_FALSE(engineStepFloor(step(0, 1, 0, 2, -1, -1), cost()));
}

// The range's fields: attention work named, or -1 when absent or not a number
// (a floor of no attention work would be wrong, not missing).
TEST(EngineStepSol, AStepRangeNamesItsAttentionWorkOrLeavesItUnknown) {
    RangeRecord r;
    r.kind = RangeKind::PushPop;
    r.name = "engine.step:3;running=2;prefill_seqs=1;kv_read_tokens=812;attention_pairs=131628";
    auto named = engineStepOf(r);
    ASSERT_TRUE(named);
    EXPECT_EQ(named->prefillSeqs, 1);
    EXPECT_EQ(named->kvReadTokens, 812);
    EXPECT_EQ(named->attentionPairs, 131628);
    r.name = "engine.step:3;prefill_seqs=?;kv_read_tokens=;attention_pairs=12x";
    auto garbled = engineStepOf(r);
    ASSERT_TRUE(garbled);
    EXPECT_EQ(garbled->prefillSeqs, -1);
    EXPECT_EQ(garbled->kvReadTokens, -1);
    EXPECT_EQ(garbled->attentionPairs, -1);
    EXPECT_FALSE(engineStepFloor(*garbled, cost()));
}

TEST(EngineStepSol, SplitsTheServingWindowIntoTheFloorKernelsGapsAndHostTime) {
    std::vector<EngineStep> steps = {
        step(8000, 10000, 0, 2, 152, 152),  // given out of order: sorted by start
        step(0, 2304, 0, 2, 150, 150), step(3000, 8000, 20, 2, 172, 362),
        step(10000, 10500, 0, 2, -1, -1),  // names no attention work: left out
    };
    ReplayInput in;
    std::vector<std::string> names;
    auto op = [&](std::int64_t start, std::int64_t end, const char* name) {
        ReplayOp o;
        o.startNs = start;
        o.endNs = end;
        in.ops.push_back(o);
        names.push_back(name);
    };
    op(100, 1600, "gemvSplitK");  // step 1: host 100, matmul, 50 idle, attention, host 354
    op(1650, 1950, "pagedAttentionDecode");
    op(3100, 6100, "gemm_bf16");  // step 2: host 100, matmul, attention, 100 idle, norm, host 1200
    op(6100, 6600, "pagedAttentionPrefill");
    op(6700, 6800, "rmsnorm");
    op(8000, 9500, "gemvSplitK");  // step 3: matmul, attention, host 200
    op(9500, 9800, "pagedAttentionDecode");
    auto sol = engineStepSol(steps, WhatIfRun::withOpNames(in, names), cost());
    ASSERT_TRUE(sol);

    EXPECT_EQ(sol->stepsWithoutWork, 1);
    EXPECT_DOUBLE_EQ(sol->windowNs, 10000);
    EXPECT_DOUBLE_EQ(sol->floorMatmulNs, 1000 + 2200 + 1000);
    EXPECT_DOUBLE_EQ(sol->floorAttentionNs, 152 + 362 + 154);
    EXPECT_DOUBLE_EQ(sol->kernelNs.at(KernelClass::Matmul), 6000);
    EXPECT_DOUBLE_EQ(sol->kernelNs.at(KernelClass::Attention), 1100);
    EXPECT_DOUBLE_EQ(sol->kernelNs.at(KernelClass::Elementwise), 100);
    EXPECT_DOUBLE_EQ(sol->launchGapNs, 50 + 100);
    EXPECT_DOUBLE_EQ(sol->hostInStepsNs, 454 + 1300 + 200);
    EXPECT_DOUBLE_EQ(sol->hostBetweenStepsNs, 696);
    // One stream: the parts add up to the window.
    EXPECT_DOUBLE_EQ(
        6000 + 1100 + 100 + sol->launchGapNs + sol->hostInStepsNs + sol->hostBetweenStepsNs,
        sol->windowNs);
    // The mixed step against the median decode-only step of batch 2 (2152 ns).
    EXPECT_DOUBLE_EQ(sol->prefillInterferenceNs, 5000 - 2152);

    ASSERT_EQ(sol->kinds.size(), 3u);  // decode, mixed, all
    EXPECT_EQ(sol->kinds[0].kind, "decode");
    EXPECT_EQ(sol->kinds[0].steps, 2);
    EXPECT_DOUBLE_EQ(sol->kinds[0].stepNs, 2304 + 2000);
    EXPECT_DOUBLE_EQ(sol->kinds[0].floorNs, 1152 + 1154);
    EXPECT_NEAR(sol->kinds[0].solP50, (50.0 + 57.7) / 2, 1e-9);
    EXPECT_EQ(sol->kinds[1].kind, "mixed");
    EXPECT_DOUBLE_EQ(sol->kinds[1].solPercent(), 100 * 2562.0 / 5000);
    EXPECT_EQ(sol->kinds[2].kind, "all");
    EXPECT_DOUBLE_EQ(sol->kinds[2].floorNs, 1152 + 2562 + 1154);
}

TEST(EngineStepSol, APrefillOnlyStepWhileOthersRunIsInterferenceAndAServerWithoutCostsHasNone) {
    auto alone = step(0, 1000, 8, 0, 8, 36);
    alone.running = 1;  // only the prefilling request: nobody waited
    auto blocking = step(1000, 3000, 8, 0, 8, 36);
    blocking.running = 3;  // two decodes held back by this prefill
    ReplayInput in;
    auto sol = engineStepSol({alone, blocking}, WhatIfRun::withOpNames(in, {}), cost());
    ASSERT_TRUE(sol);
    EXPECT_DOUBLE_EQ(sol->prefillInterferenceNs, 2000);

    EXPECT_FALSE(declaredEngineStepCost({{"ceiling.copy_gbs", "3000"}}));
    std::map<std::string, std::string> all = {{"serve.step_weight_bytes", "2.5e9"},
                                              {"serve.kv_bytes_per_token", "32768"},
                                              {"serve.matmul_flops_per_token", "2.4e9"},
                                              {"serve.attention_flops_per_pair", "262144"},
                                              {"ceiling.copy_gbs", "3900"},
                                              {"ceiling.bf16_tflops", "750"}};
    auto declared = declaredEngineStepCost(all);
    ASSERT_TRUE(declared);
    EXPECT_DOUBLE_EQ(declared->kvBytesPerToken, 32768);
    all["ceiling.bf16_tflops"] = "nan";
    EXPECT_FALSE(declaredEngineStepCost(all));
}

}  // namespace
}  // namespace ws
