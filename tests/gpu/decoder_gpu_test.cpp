// The decoder on a tiny Llama-shaped model: CUDA graphs replay exactly the
// eager steps, every variant agrees with the reference, int8 stays close,
// and safetensors weights load (or are refused by name). Skips without a GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "decoder/decoder.h"
#include "decoder/decoder_quality.h"
#include "host/bf16.h"
#include "host/safetensors.h"
#include "support/temp_dir.h"
#include "tiny_decoder.h"

namespace ws::kernels {
namespace {

QualityRecord quality(const DecoderOptions& o, const Generation& g) {
    auto all = prompts(o.batch);
    std::vector<int> prompt0(all.begin(), all.begin() + 40);
    std::vector<int> request0;
    for (int step = 0; step < o.logitSlots; ++step)
        request0.push_back(g.tokens[std::size_t(step) * o.batch]);
    return checkQuality(o, prompt0, request0, g.slots, o.logitSlots, 0.25, nullptr);
}

TEST(DecoderGpu, CudaGraphsReplayTheEagerStepsExactly) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device";
    for (auto v : {DecoderVariant::Optimized, DecoderVariant::Cublas}) {
        auto eager = generate(tinyModel(v), false), graphed = generate(tinyModel(v), true);
        EXPECT_EQ(eager.tokens, graphed.tokens) << toString(v);
        EXPECT_EQ(eager.slots, graphed.slots) << toString(v);
    }
}

TEST(DecoderGpu, EveryVariantAgreesWithTheReference) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device";
    for (auto v : {DecoderVariant::Reference, DecoderVariant::Optimized, DecoderVariant::Cublas}) {
        auto o = tinyModel(v);
        auto q = quality(o, generate(o, true));
        EXPECT_TRUE(q.passed) << toString(v) << ": max logit error " << q.maxLogitError;
        EXPECT_GE(q.tokenAgreement, 0.85) << toString(v);
    }
    // Two requests with different prompts decode differently.
    auto g = generate(tinyModel(DecoderVariant::Optimized), false);
    EXPECT_NE(g.tokens[0], g.tokens[1]);
}

TEST(DecoderGpu, Int8WeightOnlyStaysCloseAndAWrongModelIsCaught) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device";
    auto o = tinyModel(DecoderVariant::Optimized);
    o.precision = WeightPrecision::Int8WeightOnly;
    auto q = quality(o, generate(o, true));
    EXPECT_LT(q.maxLogitError, 0.5);
    // Another seed's weights are a different model: the check must fail.
    auto other = tinyModel(DecoderVariant::Optimized);
    other.seed = 6;
    auto g = generate(other, false);
    auto wrong = quality(tinyModel(DecoderVariant::Optimized), g);
    EXPECT_FALSE(wrong.passed);
}

// Writes the weights makeRandomWeights would generate as a Hugging Face file.
void writeSafetensors(const std::string& path, const DecoderOptions& o, bool dropOne) {
    const auto& m = o.shape;
    nlohmann::json header;
    std::string data;
    auto add = [&](const std::string& name, std::vector<std::int64_t> shape,
                   const std::vector<bf16_bits>& v) {
        header[name] = {{"dtype", "BF16"},
                        {"shape", shape},
                        {"data_offsets", {data.size(), data.size() + v.size() * 2}}};
        data.append(reinterpret_cast<const char*>(v.data()), v.size() * 2);
    };
    auto uniform = [](std::uint64_t seed, std::size_t n, float scale) {
        std::vector<bf16_bits> v(n);
        for (std::size_t i = 0; i < n; ++i)
            v[i] = floatToBf16(uniformAt(seed, i, scale));
        return v;
    };
    auto slice = [](const std::vector<bf16_bits>& v, std::size_t from, std::size_t n) {
        return std::vector<bf16_bits>(v.begin() + from, v.begin() + from + n);
    };
    std::vector<bf16_bits> ones(m.hidden, floatToBf16(1.0f));
    std::uint64_t t = o.seed * 1000003ull;
    std::int64_t h = m.hidden, qw = std::int64_t(m.heads) * m.headDim,
                 kw = std::int64_t(m.kvHeads) * m.headDim;
    add("model.embed_tokens.weight", {m.vocab, h}, uniform(++t, std::size_t(m.vocab) * h, 0.5f));
    add("lm_head.weight", {m.vocab, h},
        uniform(++t, std::size_t(m.vocab) * h, std::sqrt(3.0f / h) * 8));
    add("model.norm.weight", {h}, ones);
    for (int l = 0; l < m.layers; ++l) {
        std::string p = "model.layers." + std::to_string(l) + ".";
        auto qkv = uniform(++t, std::size_t(qw + 2 * kw) * h, std::sqrt(3.0f / h));
        add(p + "self_attn.q_proj.weight", {qw, h}, slice(qkv, 0, qw * h));
        add(p + "self_attn.k_proj.weight", {kw, h}, slice(qkv, qw * h, kw * h));
        if (!(dropOne && l == 1))
            add(p + "self_attn.v_proj.weight", {kw, h}, slice(qkv, (qw + kw) * h, kw * h));
        add(p + "self_attn.o_proj.weight", {h, qw},
            uniform(++t, std::size_t(h) * qw, std::sqrt(3.0f / qw)));
        std::size_t gu = std::size_t(m.intermediate) * h;
        auto gateUp = uniform(++t, 2 * gu, std::sqrt(3.0f / h));
        add(p + "mlp.gate_proj.weight", {m.intermediate, h}, slice(gateUp, 0, gu));
        add(p + "mlp.up_proj.weight", {m.intermediate, h}, slice(gateUp, gu, gu));
        add(p + "mlp.down_proj.weight", {h, m.intermediate},
            uniform(++t, gu, std::sqrt(3.0f / m.intermediate)));
        add(p + "input_layernorm.weight", {h}, ones);
        add(p + "post_attention_layernorm.weight", {h}, ones);
    }
    std::string text = header.dump();
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i)
        out[i] = char((std::uint64_t(text.size()) >> (8 * i)) & 0xff);
    std::ofstream(path, std::ios::binary) << out << text << data;
}

TEST(DecoderGpu, SafetensorsWeightsLoadAndBadFilesAreRefusedByName) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device";
    ws::testing::TempDir dir;
    auto o = tinyModel(DecoderVariant::Optimized);
    auto random = generate(o, false);
    o.weightsPath = dir.file("tiny.safetensors");
    writeSafetensors(o.weightsPath, o, false);
    EXPECT_EQ(generate(o, false).tokens, random.tokens);

    o.weightsPath = dir.file("broken.safetensors");
    writeSafetensors(o.weightsPath, o, true);
    try {
        Decoder d(o, nullptr);
        FAIL() << "a file without layer 1's v_proj loaded";
    } catch (const SafetensorsError& e) {
        EXPECT_NE(
            std::string(e.what()).find("missing tensor 'model.layers.1.self_attn.v_proj.weight'"),
            std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace ws::kernels
