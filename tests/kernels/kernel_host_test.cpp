// The kernels' host side without a GPU: bf16 rounding, the deterministic
// inputs, FLOP/byte accounting, model shapes from the presets, and the CPU
// references on hand-computed answers.
#include <gtest/gtest.h>

#include <cmath>

#include "config/workload_config.h"
#include "host/bf16.h"
#include "host/cpu_reference.h"
#include "host/kernel_cost.h"
#include "model/model_shape.h"

namespace ws::kernels {
namespace {

ref::Bf16Vec bf(std::initializer_list<float> values) {
    ref::Bf16Vec v;
    for (float f : values)
        v.push_back(floatToBf16(f));
    return v;
}

TEST(Bf16, RoundsToNearestEvenAndKeepsNaN) {
    EXPECT_EQ(floatToBf16(1.0f), 0x3f80);
    EXPECT_EQ(floatToBf16(1.00390625f), 0x3f80);  // exactly halfway: ties to even
    EXPECT_EQ(floatToBf16(1.01171875f), 0x3f82);  // halfway above an odd mantissa: up
    EXPECT_EQ(bf16ToFloat(floatToBf16(-2.5f)), -2.5f);
    EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBf16(NAN))));
}

TEST(Bf16, DeterministicInputsStayInRange) {
    for (std::uint64_t i = 0; i < 10000; ++i) {
        float v = uniformAt(3, i, 0.5f);
        ASSERT_GE(v, -0.5f);
        ASSERT_LT(v, 0.5f);
        ASSERT_EQ(v, uniformAt(3, i, 0.5f));
    }
    EXPECT_NE(uniformAt(3, 0, 1), uniformAt(4, 0, 1));
}

TEST(KernelCost, CountsFlopsAndIdealBytes) {
    auto g = gemmCost(2, 3, 4);
    EXPECT_EQ(g.flops, 48);
    EXPECT_EQ(g.bytes, 2 * (8 + 12 + 6));
    auto v = gemvCost(1, 8192, 8192, 2);
    EXPECT_EQ(v.bytes, 8192.0 * 8192 * 2 + 2 * (8192 + 8192));
    auto q = gemvCost(1, 10, 16, 1);
    EXPECT_EQ(q.bytes, 160 + 40 + 2 * (16 + 10));  // int8 weights, float scales, bf16 x and y
    auto d = decodeAttentionCost(1, 32, 8, 128, 4096);
    EXPECT_EQ(d.bytes, 2.0 * 8 * 4096 * 128 * 2 + 2.0 * 32 * 128 * 2);
    EXPECT_EQ(d.flops, 4.0 * 32 * 128 * 4096);
    auto p = prefillAttentionCost(1, 1, 1, 2, 3);  // 6 query-key pairs
    EXPECT_EQ(p.flops, 4.0 * 2 * 6);
}

DecoderParams preset(const std::string& file) {
    auto c = loadWorkloadConfig(std::string(WARPSCOPE_SOURCE_DIR) + "/resources/workloads/" + file);
    EXPECT_TRUE(c.ok()) << (c.errors.empty() ? "" : c.errors[0].toString());
    return *c.config->decoder;
}

TEST(ModelShape, ParameterCountsMatchThePublishedModels) {
    // Hugging Face's num_parameters() for the real checkpoints.
    EXPECT_EQ(ModelShape::from(preset("llama-3.2-1b-bf16.toml")).parameters(), 1235814400);
    EXPECT_EQ(ModelShape::from(preset("llama-3.1-8b-bf16.toml")).parameters(), 8030261248);
    EXPECT_EQ(ModelShape::from(preset("tinyllama-1.1b-bf16.toml")).parameters(), 1100048384);
}

TEST(ModelShape, KvCacheAndDecodeBytes) {
    auto m = ModelShape::from(preset("llama-3.1-8b-bf16.toml"));
    EXPECT_EQ(m.headDim, 128);
    EXPECT_EQ(m.kvBytesPerToken(), 2 * 32 * 8 * 128 * 2);
    EXPECT_EQ(m.kvCacheBytes(640, 4), 4LL * 640 * 131072);
    // Untied: a decode step reads every matrix and the LM head, not the table.
    EXPECT_EQ(m.decodeWeightBytes(WeightPrecision::Bf16),
              m.weightBytes(WeightPrecision::Bf16) - m.embeddingElements() * 2 + m.hidden * 2);
    auto tied = ModelShape::from(preset("llama-3.2-1b-bf16.toml"));
    EXPECT_EQ(tied.decodeWeightBytes(WeightPrecision::Bf16),
              tied.weightBytes(WeightPrecision::Bf16) + tied.hidden * 2);
    EXPECT_LT(m.weightBytes(WeightPrecision::Int8WeightOnly),
              m.weightBytes(WeightPrecision::Bf16) * 0.6);
    EXPECT_THROW(parsePrecision("fp4"), std::invalid_argument);
}

TEST(ModelShape, ATensorParallelRankHoldsItsShareOfHeadsAndMlp) {
    auto m = ModelShape::from(preset("llama-3.1-8b-bf16.toml"));
    auto half = m.shard(2);
    EXPECT_EQ(half.heads, 16);
    EXPECT_EQ(half.kvHeads, 4);
    EXPECT_EQ(half.intermediate, 7168);
    EXPECT_EQ(half.hidden, m.hidden);
    EXPECT_EQ(half.vocab, m.vocab);
    EXPECT_EQ(half.headDim, 128);
    // Two ranks' layers hold exactly the whole layer's matrices.
    EXPECT_EQ(2 * half.layerMatrixElements(), m.layerMatrixElements());
    EXPECT_EQ(2 * half.kvBytesPerToken(), m.kvBytesPerToken());
    EXPECT_EQ(m.shard(8).kvHeads, 1);
    EXPECT_EQ(m.shard(1).heads, m.heads);
    EXPECT_THROW(m.shard(3), std::invalid_argument);   // 32 heads, 8 KV heads
    EXPECT_THROW(m.shard(16), std::invalid_argument);  // 8 KV heads
    EXPECT_THROW(m.shard(0), std::invalid_argument);
}

TEST(ModelShape, RefusesInconsistentShapes) {
    DecoderParams p;
    p.hiddenSize = 64;
    p.layers = 1;
    p.heads = 4;
    p.kvHeads = 3;
    p.intermediateSize = 128;
    p.vocabSize = 10;
    EXPECT_THROW(ModelShape::from(p), std::invalid_argument);
}

TEST(Reference, GemmOfKnownMatrices) {
    // A = [[1,2],[3,4]], B (stored n×k) = [[5,6],[7,8]] → A·Bᵀ = [[17,23],[39,53]]
    auto c = ref::gemm(bf({1, 2, 3, 4}), bf({5, 6, 7, 8}), 2, 2, 2);
    EXPECT_EQ(c, (std::vector<float>{17, 23, 39, 53}));
    auto q = ref::gemvInt8(bf({1, 2}), {3, -4}, {0.5f}, 1, 1, 2);
    EXPECT_FLOAT_EQ(q[0], (3 - 8) * 0.5f);
}

TEST(Reference, NormsSoftmaxActivation) {
    auto y = ref::rmsnorm(bf({2, 2, 2, 2}), nullptr, bf({1, 2, 3, 4}), 1, 4, 0);
    EXPECT_EQ(y, (std::vector<float>{1, 2, 3, 4}));  // rms of a constant row is the constant
    auto r = bf({1, -1, 1, -1});
    auto z = ref::rmsnorm(bf({1, 3, 1, 3}), &r, bf({1, 1, 1, 1}), 1, 4, 0);
    EXPECT_FLOAT_EQ(z[0], 1.0f);  // x + residual = 2, 2, 2, 2
    auto s = ref::softmax(bf({0, 0, std::log(2.0f)}), 1, 3);
    EXPECT_NEAR(s[2], 0.5, 1e-3);
    EXPECT_NEAR(s[0] + s[1] + s[2], 1.0, 1e-6);
    auto a = ref::siluMul(bf({0, 1, 5, 5}), 1, 2);  // gate 0,1 · up 5,5
    EXPECT_FLOAT_EQ(a[0], 0);
    EXPECT_NEAR(a[1], 5 / (1 + std::exp(-1.0)), 1e-5);
}

TEST(Reference, RopeRotatesPairsByPosition) {
    auto x = bf({1, 0, 0, 1});  // head_dim 4: pairs (0,2), (1,3)
    EXPECT_EQ(ref::rope(x, {0}, 1, 4, 10000), (std::vector<float>{1, 0, 0, 1}));
    auto y = ref::rope(x, {1}, 1, 4, 10000);
    EXPECT_NEAR(y[0], std::cos(1.0), 1e-6);  // pair 0 at frequency 1
    EXPECT_NEAR(y[2], std::sin(1.0), 1e-6);
}

TEST(Reference, AttentionWithOneKeyReturnsItsValueAndIsCausal) {
    // batch 1, 2 queries, 2 heads sharing 1 kv head, head_dim 2, capacity 2
    auto q = bf({1, 0, 0, 1, 1, 0, 0, 1});
    auto k = bf({1, 0, 0, 1});
    auto v = bf({3, 4, 5, 6});
    auto out = ref::attention(q, k, v, 1, 2, 2, 1, 2, 2, 0);
    EXPECT_FLOAT_EQ(out[0], 3);  // query 0 sees only key 0
    EXPECT_FLOAT_EQ(out[1], 4);
    double w =
        std::exp(1 / std::sqrt(2.0)) / (std::exp(1 / std::sqrt(2.0)) + 1);  // query 1, head 0
    EXPECT_NEAR(out[4], w * 3 + (1 - w) * 5, 1e-5);
    EXPECT_THROW(ref::attention(q, k, v, 1, 2, 2, 1, 2, 2, 1), std::invalid_argument);
}

TEST(Reference, CompareCatchesNaNAndScalesErrors) {
    EXPECT_TRUE(ref::compare({1, 2}, {1, 2}).ok(0));
    EXPECT_FALSE(ref::compare({1, NAN}, {1, 2}).ok(1));
    EXPECT_FALSE(ref::compare({}, {}).ok(1));  // nothing compared never passes
    auto a = ref::compare({1.1f, 0}, {1, 0});
    EXPECT_NEAR(a.maxAbsError, 0.1, 1e-6);
    EXPECT_NEAR(a.maxScaledError, 0.1 / (1 + std::sqrt(0.5)), 1e-6);
}

}  // namespace
}  // namespace ws::kernels
