// The serving engine on the GPU backend, on a small Llama-shaped model with
// random weights: greedy outputs at batch 1 equal the offline decoder's token
// for token; 64 requests of mixed lengths batched together (chunked prefill
// beside decodes, graphs and eager steps) each equal their batch-1 output;
// after thousands of requests, preemptions included, the pool is empty and
// the device memory is back where it started. Skips without a GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "decoder/decoder.h"
#include "host/bf16.h"
#include "serving/engine.h"
#include "serving/gpu_backend.h"

namespace ws::serving {
namespace {

using namespace std::chrono_literals;
constexpr auto kPatience = 120s;

bool haveGpu() {
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

DecoderParams smallModel() {
    DecoderParams p;
    p.hiddenSize = 512;
    p.layers = 4;
    p.heads = 8;
    p.kvHeads = 2;
    p.intermediateSize = 1024;
    p.vocabSize = 4096;
    p.ropeTheta = 500000.0;
    p.seed = 3;
    p.cudaGraphs = true;
    return p;
}

std::vector<TokenId> prompt(int length, std::uint64_t seed) {
    std::vector<TokenId> ids(static_cast<std::size_t>(length));
    for (int i = 0; i < length; ++i)
        ids[std::size_t(i)] = TokenId(kernels::hashIndex(seed, std::uint64_t(i)) % 4096u);
    return ids;
}

struct Output {
    std::vector<TokenId> tokens;
    std::optional<FinishReason> finish;
};

Output collect(RequestStream& stream) {
    Output r;
    const auto deadline = std::chrono::steady_clock::now() + kPatience;
    while (!r.finish && std::chrono::steady_clock::now() < deadline) {
        auto chunk = stream.take(100ms);
        r.tokens.insert(r.tokens.end(), chunk.tokens.begin(), chunk.tokens.end());
        r.finish = chunk.finish;
    }
    return r;
}

SamplingParams sampling(int maxTokens, double temperature = 0, std::uint64_t seed = 0) {
    SamplingParams p;
    p.maxTokens = maxTokens;
    p.ignoreEos = true;
    p.temperature = temperature;
    p.seed = seed;
    return p;
}

// An engine of `seqs` sequences, `tokens` a step, a pool of `blocks` KV
// blocks and contexts up to `maxLen`.
EngineConfig engineConfig(int seqs, int tokens, int blocks, int maxLen) {
    EngineConfig c;
    c.maxNumSeqs = seqs;
    c.maxNumBatchedTokens = tokens;
    c.numBlocks = blocks;
    c.maxModelLen = maxLen;
    return c;
}

std::unique_ptr<Engine> startEngine(const EngineConfig& c, const GpuBackendOptions& o) {
    auto engine = std::make_unique<Engine>(c, std::make_unique<GpuBackend>(o));
    engine->start();
    EXPECT_TRUE(engine->waitUntilReady(kPatience)) << engine->stats().failure;
    return engine;
}

TEST(ServingGpu, BatchOneGreedyEqualsTheOfflineDecoder) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device";
    const int promptLen = 150, output = 48;
    const auto ids = prompt(promptLen, 1);
    // The offline decoder: one request, prefilled whole, decoded with its graph.
    kernels::DecoderOptions d;
    d.shape = ModelShape::from(smallModel());
    d.batch = 1;
    d.maxPrefillTokens = promptLen;
    d.capacity = promptLen + output;
    d.seed = 3;
    d.ropeTheta = 500000.0f;
    std::vector<int> offline;
    {
        cudaStream_t s;
        ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
        kernels::Decoder decoder(d, s);
        decoder.prefill(std::vector<int>(ids.begin(), ids.end()), promptLen);
        for (int i = 1; i < output; ++i) {
            if (i == 2) decoder.captureDecodeGraph();
            decoder.decodeStep();
        }
        ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
        offline = decoder.generated(output);
        cudaStreamDestroy(s);
    }
    // The server: the same weights, a context as long as the decoder's cache
    // (so decode attention splits alike), the prompt in one step.
    EngineConfig c = engineConfig(4, 256, 64, promptLen + output);
    auto engine = startEngine(c, GpuBackendOptions::from(smallModel()));
    Output served = collect(*engine->submit(ids, sampling(output)).stream);
    ASSERT_EQ(served.finish, FinishReason::Length);
    EXPECT_EQ(served.tokens, std::vector<TokenId>(offline.begin(), offline.end()));
    auto& backend = static_cast<const GpuBackend&>(engine->backend());
    EXPECT_EQ(backend.graphSteps(), output - 1);  // every decode step replayed a graph
}

// serve.linear = "tuned": each matrix shape timed against cuBLAS at every
// decode bucket when prepared; the engine then serves with the choice.
TEST(ServingGpu, TunedLinearLayersSayWhatTheyChoseAndServe) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device";
    EngineConfig c = engineConfig(8, 256, 256, 256);
    GpuBackendOptions o = GpuBackendOptions::from(smallModel());
    o.tuneLinear = true;
    auto engine = startEngine(c, o);
    auto& backend = static_cast<const GpuBackend&>(engine->backend());
    ASSERT_FALSE(backend.linearTuning().empty());
    const auto notes = backend.preparedNotes();
    ASSERT_GE(notes.size(), 4u);  // qkv, o, gate/up, down, lm head (equal shapes share a line)
    for (const auto& n : notes) {
        EXPECT_EQ(n.rfind("linear ", 0), 0u) << n;
        EXPECT_NE(n.find("rows 1"), std::string::npos) << n;  // every bucket from 1 measured
    }
    std::vector<std::shared_ptr<RequestStream>> streams;
    for (int i = 0; i < 8; ++i)
        streams.push_back(engine->submit(prompt(20 + 7 * i, 40 + i), sampling(16)).stream);
    for (auto& st : streams) {
        Output out = collect(*st);
        EXPECT_EQ(out.finish, FinishReason::Length);
        EXPECT_EQ(out.tokens.size(), 16u);
    }
}

TEST(ServingGpu, Batch64MixedLengthsEqualTheirBatchOneOutputs) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device";
    // 512 tokens a step: long prompts are chunked beside running decodes;
    // 2048 blocks: no preemption, every sequence fits at once.
    EngineConfig c = engineConfig(64, 512, 2048, 1024);
    GpuBackendOptions o = GpuBackendOptions::from(smallModel());
    o.batchInvariant = true;
    auto engine = startEngine(c, o);
    std::vector<std::vector<TokenId>> prompts;
    std::vector<SamplingParams> params;
    for (int i = 0; i < 64; ++i) {
        prompts.push_back(prompt(1 + (i * 37) % 700, 100 + std::uint64_t(i)));
        // A quarter sample with temperature: their draws hang on (seed, index) alone.
        params.push_back(i % 4 == 3 ? sampling(24 + i % 9, 0.8, 7000 + std::uint64_t(i))
                                    : sampling(24 + i % 9));
    }
    std::vector<std::vector<TokenId>> alone;
    for (int i = 0; i < 64; ++i) {
        Output r = collect(*engine->submit(prompts[std::size_t(i)], params[std::size_t(i)]).stream);
        ASSERT_EQ(r.finish, FinishReason::Length) << "request " << i;
        alone.push_back(r.tokens);
    }
    std::vector<std::shared_ptr<RequestStream>> streams;
    for (int i = 0; i < 64; ++i) {
        auto sub = engine->submit(prompts[std::size_t(i)], params[std::size_t(i)]);
        ASSERT_EQ(sub.status, SubmitStatus::Accepted);
        streams.push_back(sub.stream);
    }
    for (int i = 0; i < 64; ++i) {
        Output r = collect(*streams[std::size_t(i)]);
        ASSERT_EQ(r.finish, FinishReason::Length) << "request " << i;
        EXPECT_EQ(r.tokens, alone[std::size_t(i)])
            << "request " << i << ", prompt " << prompts[std::size_t(i)].size();
    }
    ASSERT_TRUE(engine->waitFor([](const EngineStats& s) { return s.active == 0; }, kPatience));
    EngineStats s = engine->stats();
    EXPECT_EQ(s.preemptions, 0);
    EXPECT_EQ(s.kvBlocksUsed, 0);
    EXPECT_GT(s.lastStep.step, 0);
}

TEST(ServingGpu, TextOnlySamplesPrintableBytesAndEos) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device";
    EngineConfig c = engineConfig(8, 256, 64, 256);
    GpuBackendOptions o = GpuBackendOptions::from(smallModel());
    o.textOnly = true;
    auto engine = startEngine(c, o);
    int tokens = 0;
    for (int i = 0; i < 8; ++i) {
        Output r = collect(
            *engine->submit(prompt(20 + i, 40 + std::uint64_t(i)), sampling(64, i % 2 ? 1.5 : 0, i))
                 .stream);
        ASSERT_TRUE(r.finish.has_value()) << "request " << i;
        for (TokenId t : r.tokens) {
            EXPECT_TRUE((t >= 32 && t <= 126) || t == 256) << "token " << t;
            ++tokens;
        }
    }
    EXPECT_GT(tokens, 8 * 32);  // the test saw outputs, not only EOS
}

TEST(ServingGpu, ThousandsOfRequestsLeaveThePoolEmptyAndTheMemoryAsItWas) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device";
    ASSERT_EQ(cudaFree(nullptr), cudaSuccess);  // the context exists before the baseline
    std::size_t freeBefore = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&freeBefore, &total), cudaSuccess);
    {
        // 96 blocks, short of what 64 running sequences want: preemptions.
        EngineConfig c = engineConfig(64, 256, 96, 256);
        c.maxWaiting = 10000;
        auto engine = startEngine(c, GpuBackendOptions::from(smallModel()));
        std::vector<std::shared_ptr<RequestStream>> streams;
        for (int i = 0; i < 10000; ++i) {
            auto sub = engine->submit(prompt(1 + i % 97, std::uint64_t(i)),
                                      sampling(1 + (i * 7) % 40, i % 2 ? 0.7 : 0.0, i));
            ASSERT_EQ(sub.status, SubmitStatus::Accepted) << "request " << i;
            if (i % 10 == 9) sub.stream->cancel();  // some clients leave early
            streams.push_back(sub.stream);
        }
        ASSERT_TRUE(
            engine->waitFor([](const EngineStats& s) { return s.active == 0; }, kPatience * 5));
        EngineStats s = engine->stats();
        EXPECT_EQ(s.finished + s.aborted, 10000);
        EXPECT_GT(s.preemptions, 0);  // or recompute was not exercised
        EXPECT_EQ(s.kvBlocksUsed, 0);
        engine->stop();
    }
    std::size_t freeAfter = 0;
    ASSERT_EQ(cudaMemGetInfo(&freeAfter, &total), cudaSuccess);
    // Everything the backend allocated is returned (the driver may keep a
    // little for itself: modules loaded, cuBLAS's handles).
    EXPECT_GE(std::int64_t(freeAfter), std::int64_t(freeBefore) - (64ll << 20));
}

}  // namespace
}  // namespace ws::serving
