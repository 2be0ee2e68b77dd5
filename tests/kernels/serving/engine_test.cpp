// The engine loop with the CPU backend: outputs follow the backend's rule
// whatever is batched alongside and through preemption, sampling honours
// seeds and temperature, and the queue, cancellation and drain behave.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

#include "serving/byte_tokenizer.h"
#include "serving/cpu_backend.h"
#include "serving/engine.h"

namespace ws::serving {
namespace {

using namespace std::chrono_literals;
constexpr auto kPatience = 60s;  // generous: a loaded 2-core machine under ASan

struct Result {
    std::vector<TokenId> tokens;
    std::optional<FinishReason> finish;
    std::string error;
};

Result collect(RequestStream& stream) {
    Result r;
    const auto deadline = std::chrono::steady_clock::now() + kPatience;
    while (!r.finish && std::chrono::steady_clock::now() < deadline) {
        auto chunk = stream.take(100ms);
        r.tokens.insert(r.tokens.end(), chunk.tokens.begin(), chunk.tokens.end());
        r.finish = chunk.finish;
        r.error = chunk.error;
    }
    return r;
}

// The backend's rule applied one token at a time, with nothing else around.
std::vector<TokenId> reference(std::vector<TokenId> tokens, const SamplingParams& p) {
    std::vector<TokenId> out;
    while (static_cast<int>(out.size()) < p.maxTokens) {
        TokenId t = CpuBackend::nextToken(tokens, p.temperature, p.seed.value_or(0),
                                          static_cast<int>(out.size()));
        out.push_back(t);
        tokens.push_back(t);
        if (t == ByteTokenizer::kEos && !p.ignoreEos) break;
    }
    return out;
}

EngineConfig smallConfig() {
    EngineConfig c;
    c.maxNumSeqs = 8;
    c.maxNumBatchedTokens = 64;
    c.blockSize = 16;
    c.numBlocks = 64;
    c.maxModelLen = 512;
    c.maxWaiting = 64;
    return c;
}

std::unique_ptr<Engine> startEngine(const EngineConfig& c, CpuPace pace = {0us, 0us, 0us}) {
    auto engine = std::make_unique<Engine>(c, std::make_unique<CpuBackend>(pace));
    engine->start();
    EXPECT_TRUE(engine->waitUntilReady(kPatience));
    return engine;
}

// Room for a request that would run for minutes: tests end it themselves, so
// no timing decides whether it is still running when they look.
EngineConfig roomyConfig() {
    EngineConfig c = smallConfig();
    c.maxModelLen = 100000;
    c.numBlocks = 6400;
    return c;
}
constexpr int kEndless = 90000;

// The CPU backend, whose first step waits until the test lets it go: requests
// submitted meanwhile are all in the engine before the second step.
class GatedBackend : public CpuBackend {
  public:
    GatedBackend() : CpuBackend({0us, 0us, 0us}) {}
    std::vector<TokenId> execute(const StepPlan& plan) override {
        if (!opened_) {
            gate_.wait();
            opened_ = true;
        }
        return CpuBackend::execute(plan);
    }
    void open() {
        std::call_once(opened_once_, [this] { opener_.set_value(); });
    }

  private:
    std::once_flag opened_once_;
    std::promise<void> opener_;
    std::shared_future<void> gate_ = opener_.get_future().share();
    bool opened_ = false;
};

SamplingParams greedy(int maxTokens, bool ignoreEos = true) {
    SamplingParams p;
    p.maxTokens = maxTokens;
    p.ignoreEos = ignoreEos;
    p.temperature = 0;
    return p;
}

TEST(Engine, GreedyOutputsFollowTheRuleWhateverIsBatchedAndThroughPreemption) {
    EngineConfig c = smallConfig();
    c.numBlocks = 24;  // 384 positions for 16 sequences of up to 170: preemption happens
    c.maxModelLen = 384;
    c.maxNumSeqs = 16;
    auto gated = std::make_unique<GatedBackend>();
    GatedBackend& gate = *gated;
    Engine engine(c, std::move(gated));
    std::shared_ptr<void> opensAtExit(nullptr,
                                      [&](void*) { gate.open(); });  // an ASSERT leaves early
    engine.start();
    ASSERT_TRUE(engine.waitUntilReady(kPatience));
    std::vector<std::vector<TokenId>> prompts;
    std::vector<SamplingParams> params;
    std::vector<std::shared_ptr<RequestStream>> streams;
    for (int i = 0; i < 16; ++i) {
        prompts.push_back(ByteTokenizer::encode("request " + std::to_string(i) +
                                                std::string(static_cast<std::size_t>(i * 5), 'x')));
        params.push_back(greedy(40 + i * 3));
        auto sub = engine.submit(prompts.back(), params.back());
        ASSERT_EQ(sub.status, SubmitStatus::Accepted);
        streams.push_back(sub.stream);
    }
    gate.open();  // all 16 compete for the pool from the second step on
    for (std::size_t i = 0; i < streams.size(); ++i) {
        Result r = collect(*streams[i]);
        ASSERT_EQ(r.finish, FinishReason::Length) << "request " << i;
        EXPECT_TRUE(r.tokens == reference(prompts[i], params[i])) << "request " << i;
    }
    ASSERT_TRUE(engine.waitFor([](const EngineStats& s) { return s.active == 0; }, kPatience));
    EngineStats s = engine.stats();
    EXPECT_GT(s.preemptions, 0);  // or the test did not test recompute
    EXPECT_EQ(s.finished, 16);
    EXPECT_EQ(s.kvBlocksUsed, 0);
}

TEST(Engine, StopsAtEosUnlessItIsIgnored) {
    auto engine = startEngine(smallConfig());
    // A prompt whose greedy continuation reaches EOS within 200 tokens.
    std::vector<TokenId> prompt;
    std::vector<TokenId> expected;
    for (int i = 0; i < 1000 && expected.empty(); ++i) {
        auto p = ByteTokenizer::encode("eos probe " + std::to_string(i));
        auto out = reference(p, greedy(200, false));
        if (out.back() == ByteTokenizer::kEos) {
            prompt = p;
            expected = out;
        }
    }
    ASSERT_FALSE(expected.empty());
    Result stopped = collect(*engine->submit(prompt, greedy(200, false)).stream);
    EXPECT_EQ(stopped.finish, FinishReason::Stop);
    EXPECT_TRUE(stopped.tokens == expected);
    const int length = static_cast<int>(expected.size()) + 5;
    Result ignored = collect(*engine->submit(prompt, greedy(length, true)).stream);
    EXPECT_EQ(ignored.finish, FinishReason::Length);
    ASSERT_EQ(ignored.tokens.size(), static_cast<std::size_t>(length));
    EXPECT_EQ(ignored.tokens[expected.size() - 1], ByteTokenizer::kEos);
}

TEST(Engine, SeededSamplingIsReproducibleAndTemperatureMatters) {
    auto engine = startEngine(smallConfig());
    auto prompt = ByteTokenizer::encode("sample me");
    auto run = [&](double temperature, std::optional<std::uint64_t> seed) {
        SamplingParams p = greedy(64);
        p.temperature = temperature;
        p.seed = seed;
        return collect(*engine->submit(prompt, p).stream).tokens;
    };
    auto a = run(1.0, 42);
    auto b = run(1.0, 42);
    auto c = run(1.0, 43);
    auto g = run(0.0, std::nullopt);
    EXPECT_TRUE(a == b);
    EXPECT_FALSE(a == c);
    EXPECT_FALSE(a == g);
    EXPECT_TRUE(g == reference(prompt, greedy(64)));
    EXPECT_TRUE(run(0.0, 7) == g);  // greedy ignores the seed
    EXPECT_EQ(run(1.0, std::nullopt).size(), 64u);
}

TEST(Engine, RefusesBeforeStartWhenTheQueueIsFullAndWhileDraining) {
    EngineConfig c = roomyConfig();
    c.maxNumSeqs = 1;
    c.maxWaiting = 1;
    Engine engine(c, std::make_unique<CpuBackend>(CpuPace{200us, 0us, 0us}));
    auto prompt = ByteTokenizer::encode("hello");
    EXPECT_EQ(engine.submit(prompt, greedy(4)).status, SubmitStatus::NotReady);
    engine.start();
    ASSERT_TRUE(engine.waitUntilReady(kPatience));

    auto first = engine.submit(prompt, greedy(kEndless));
    ASSERT_EQ(first.status, SubmitStatus::Accepted);
    ASSERT_TRUE(engine.waitFor(
        [](const EngineStats& s) { return s.running == 1 && s.waiting == 0; }, kPatience));
    auto second = engine.submit(prompt, greedy(4));
    EXPECT_EQ(second.status, SubmitStatus::Accepted);  // waits: one sequence at a time
    auto third = engine.submit(prompt, greedy(4));
    EXPECT_EQ(third.status, SubmitStatus::QueueFull);
    EXPECT_NE(third.message.find("queue is full"), std::string::npos);

    auto invalid = engine.submit({}, greedy(4));
    EXPECT_EQ(invalid.status, SubmitStatus::Invalid);
    ASSERT_TRUE(invalid.invalid);
    EXPECT_EQ(invalid.invalid->field, "prompt");
    invalid = engine.submit(prompt, greedy(c.maxModelLen));
    ASSERT_TRUE(invalid.invalid);
    EXPECT_EQ(invalid.invalid->field, "max_tokens");
    invalid = engine.submit({1, 300}, greedy(4));
    ASSERT_TRUE(invalid.invalid);
    EXPECT_NE(invalid.invalid->message.find("vocabulary"), std::string::npos);

    first.stream->cancel();  // the second runs once the first is gone
    EXPECT_TRUE(engine.drain(kPatience));
    EXPECT_EQ(collect(*first.stream).finish, FinishReason::Abort);
    EXPECT_EQ(collect(*second.stream).finish, FinishReason::Length);
    EXPECT_EQ(engine.submit(prompt, greedy(4)).status, SubmitStatus::ShuttingDown);
}

TEST(Engine, ADrainPastItsTimeoutAbortsWithAnError) {
    auto engine = startEngine(roomyConfig(), CpuPace{1ms, 0us, 0us});
    auto sub = engine->submit(ByteTokenizer::encode("long"), greedy(kEndless));
    ASSERT_EQ(sub.status, SubmitStatus::Accepted);
    ASSERT_TRUE(
        engine->waitFor([](const EngineStats& s) { return s.outputTokens > 0; }, kPatience));
    EXPECT_FALSE(engine->drain(0ms));
    Result r = collect(*sub.stream);
    EXPECT_EQ(r.finish, FinishReason::Abort);
    EXPECT_NE(r.error.find("shutting down"), std::string::npos);
    EngineStats s = engine->stats();
    EXPECT_EQ(s.aborted, 1);
    EXPECT_EQ(s.kvBlocksUsed, 0);
    EXPECT_EQ(s.state, EngineState::Draining);
}

TEST(Engine, ACancelledRequestIsAbortedAndFreesItsBlocks) {
    auto engine = startEngine(roomyConfig(), CpuPace{200us, 0us, 0us});
    auto sub = engine->submit(ByteTokenizer::encode(std::string(100, 'p')), greedy(kEndless));
    ASSERT_EQ(sub.status, SubmitStatus::Accepted);
    auto chunk = sub.stream->take(kPatience);
    ASSERT_FALSE(chunk.tokens.empty());
    EXPECT_GT(engine->stats().kvBlocksUsed, 0);
    sub.stream->cancel();
    ASSERT_TRUE(engine->waitFor([](const EngineStats& s) { return s.active == 0; }, kPatience));
    EngineStats s = engine->stats();
    EXPECT_EQ(s.aborted, 1);
    EXPECT_EQ(s.finished, 0);
    EXPECT_EQ(s.kvBlocksUsed, 0);
    EXPECT_EQ(collect(*sub.stream).finish, FinishReason::Abort);
}

TEST(Engine, ReportsEveryStepToItsObserver) {
    Engine engine(smallConfig(), std::make_unique<CpuBackend>(CpuPace{0us, 0us, 0us}));
    std::atomic<int> steps{0}, prefill{0}, decode{0};
    engine.setStepObserver([&](const StepStats& s) {
        ++steps;
        prefill += s.prefillTokens;
        decode += s.decodeTokens;
    });
    engine.start();
    ASSERT_TRUE(engine.waitUntilReady(kPatience));
    auto sub = engine.submit(ByteTokenizer::encode(std::string(100, 'a')), greedy(10));
    EXPECT_EQ(collect(*sub.stream).tokens.size(), 10u);
    engine.stop();
    EXPECT_EQ(prefill.load(), 100);
    EXPECT_EQ(decode.load(), 9);     // the first token comes from the prefill
    EXPECT_EQ(steps.load(), 2 + 9);  // 100 prompt tokens in chunks of 64
    EXPECT_EQ(engine.stats().steps, steps.load());
}

// The gated CPU backend until the third step that runs two sequences, which
// throws (as a CUDA error or an out-of-memory would in the GPU backend).
class FailingBackend : public GatedBackend {
  public:
    std::vector<TokenId> execute(const StepPlan& plan) override {
        if (plan.seqs.size() == 2 && ++pairs_ == 3) throw std::runtime_error("device lost");
        return GatedBackend::execute(plan);
    }

  private:
    int pairs_ = 0;
};

TEST(Engine, ABackendFailureEndsEveryRequestWithItsMessage) {
    auto failing = std::make_unique<FailingBackend>();
    FailingBackend& backend = *failing;
    Engine engine(smallConfig(), std::move(failing));
    std::shared_ptr<void> opensAtExit(nullptr, [&](void*) { backend.open(); });
    engine.start();
    ASSERT_TRUE(engine.waitUntilReady(kPatience));
    auto a = engine.submit(ByteTokenizer::encode("a"), greedy(400));
    auto b = engine.submit(ByteTokenizer::encode("b"), greedy(400));
    ASSERT_EQ(a.status, SubmitStatus::Accepted);
    ASSERT_EQ(b.status, SubmitStatus::Accepted);
    backend.open();
    Result ra = collect(*a.stream), rb = collect(*b.stream);
    EXPECT_EQ(ra.finish, FinishReason::Abort);
    EXPECT_NE(ra.error.find("device lost"), std::string::npos) << ra.error;
    EXPECT_EQ(rb.finish, FinishReason::Abort);
    EXPECT_EQ(engine.state(), EngineState::Failed);
    auto late = engine.submit(ByteTokenizer::encode("c"), greedy(4));
    EXPECT_EQ(late.status, SubmitStatus::ShuttingDown);
    EXPECT_NE(late.message.find("device lost"), std::string::npos);
    EXPECT_EQ(engine.stats().aborted, 2);
}

TEST(Engine, StepsTakeTheConfiguredPace) {
    auto engine = startEngine(smallConfig(), CpuPace{2ms, 1ms, 0us});
    const auto began = std::chrono::steady_clock::now();
    auto sub = engine->submit(ByteTokenizer::encode("pace"), greedy(20));
    EXPECT_EQ(collect(*sub.stream).tokens.size(), 20u);
    // 20 steps of at least 3 ms each (a lower bound: a loaded machine only adds).
    EXPECT_GE(std::chrono::steady_clock::now() - began, 60ms);
}

}  // namespace
}  // namespace ws::serving
