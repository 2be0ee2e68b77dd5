// The OpenAI HTTP layer against the real server and the CPU backend over a
// socket on 127.0.0.1: request parsing and every error status, SSE framing,
// non-streaming bodies, token-id prompts, a client that hangs up mid-stream,
// a slow reader, 429 on a full queue, 503 while starting and draining.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <future>
#include <thread>

#include "serving/byte_tokenizer.h"
#include "serving/http/openai_protocol.h"
#include "sse_client.h"
#include "test_server.h"

namespace ws::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;
using serving::ByteTokenizer;
using serving::CpuBackend;
using serving::EngineStats;
using serving::TokenId;
constexpr auto kPatience = 60s;

// What the CPU backend's rule makes of a prompt, greedy, EOS ignored.
std::vector<TokenId> greedyTokens(std::vector<TokenId> tokens, int count) {
    std::vector<TokenId> out;
    for (int i = 0; i < count; ++i) {
        out.push_back(CpuBackend::nextToken(tokens, 0.0, 0, i));
        tokens.push_back(out.back());
    }
    return out;
}

std::string greedyText(const std::string& prompt, int count) {
    return ByteTokenizer::decodeBytes(greedyTokens(ByteTokenizer::encode(prompt), count));
}

json parsed(const std::string& text) {
    return json::parse(text, nullptr, false);
}

// Equal texts; when not, says where they part instead of printing them whole.
::testing::AssertionResult sameText(const json& actual, const std::string& expected) {
    if (!actual.is_string())
        return ::testing::AssertionFailure() << "not a string: " << actual.dump().substr(0, 80);
    const std::string& a = actual.get_ref<const std::string&>();
    if (a == expected) return ::testing::AssertionSuccess();
    std::size_t i = 0;
    while (i < a.size() && i < expected.size() && a[i] == expected[i])
        ++i;
    return ::testing::AssertionFailure() << "texts of " << a.size() << " and " << expected.size()
                                         << " bytes differ from byte " << i;
}

// Checks an OpenAI-shaped error body and returns its "error" object.
json expectError(const HttpReply& reply, int status) {
    EXPECT_EQ(reply.status, status) << reply.body.substr(0, 300) << reply.error;
    EXPECT_EQ(reply.contentType, "application/json");
    json body = parsed(reply.body);
    if (!body.is_object() || !body.contains("error")) {
        ADD_FAILURE() << "not an error body: " << reply.body.substr(0, 200);
        return json::object();
    }
    const json& e = body["error"];
    EXPECT_TRUE(e["message"].is_string());
    EXPECT_TRUE(e["type"].is_string());
    EXPECT_TRUE(e.contains("param"));
    EXPECT_EQ(e["code"], status);
    return e;
}

// Every event is a JSON object but the last, which is [DONE].
void expectWellFormed(const SseReply& reply) {
    EXPECT_EQ(reply.status, 200) << reply.body.substr(0, 300) << reply.error;
    EXPECT_TRUE(reply.completed);
    EXPECT_EQ(reply.malformed, "");
    ASSERT_FALSE(reply.events.empty());
    EXPECT_EQ(reply.events.back(), "[DONE]");
    for (std::size_t i = 0; i + 1 < reply.events.size(); ++i)
        EXPECT_TRUE(parsed(reply.events[i]).is_object())
            << "event " << i << ": " << reply.events[i].substr(0, 200);
}

std::string completionBody(const std::string& prompt, int maxTokens, bool stream = false) {
    return json{{"prompt", prompt},
                {"max_tokens", maxTokens},
                {"temperature", 0},
                {"ignore_eos", true},
                {"stream", stream}}
        .dump();
}

TEST(OpenAiServer, HealthAndModels) {
    TestServer s;
    HttpReply health = httpGet(s.port(), "/health");
    EXPECT_EQ(health.status, 200);
    HttpReply models = httpGet(s.port(), "/v1/models");
    ASSERT_EQ(models.status, 200);
    json m = parsed(models.body);
    EXPECT_EQ(m["object"], "list");
    ASSERT_EQ(m["data"].size(), 1u);
    EXPECT_EQ(m["data"][0]["id"], "test-model");
    EXPECT_EQ(m["data"][0]["object"], "model");
    EXPECT_EQ(m["data"][0]["max_model_len"], TestServer::defaultConfig().maxModelLen);
}

TEST(OpenAiServer, Answers503UntilTheEngineIsReady) {
    TestServer s(TestServer::defaultConfig(), {0us, 0us, 0us}, TestServer::defaultOptions(),
                 /*startEngine=*/false);
    json e = expectError(httpGet(s.port(), "/health"), 503);
    EXPECT_EQ(e["type"], "ServiceUnavailableError");
    e = expectError(httpPost(s.port(), "/v1/completions", completionBody("hi", 4)), 503);
    EXPECT_NE(e["message"].get<std::string>().find("starting"), std::string::npos);
    s.start();
    EXPECT_EQ(httpGet(s.port(), "/health").status, 200);
    EXPECT_EQ(httpPost(s.port(), "/v1/completions", completionBody("hi", 4)).status, 200);
}

TEST(OpenAiServer, CompletionBodyWithExactUsage) {
    TestServer s;
    HttpReply reply = httpPost(s.port(), "/v1/completions", completionBody("Hello", 20));
    ASSERT_EQ(reply.status, 200) << reply.body.substr(0, 300);
    EXPECT_EQ(reply.contentType, "application/json");
    json r = parsed(reply.body);
    EXPECT_EQ(r["object"], "text_completion");
    EXPECT_EQ(r["model"], "test-model");
    EXPECT_EQ(r["id"].get<std::string>().rfind("cmpl-", 0), 0u);
    EXPECT_TRUE(r["created"].is_number_integer());
    ASSERT_EQ(r["choices"].size(), 1u);
    EXPECT_EQ(r["choices"][0]["index"], 0);
    EXPECT_TRUE(sameText(r["choices"][0]["text"], greedyText("Hello", 20)));
    EXPECT_EQ(r["choices"][0]["finish_reason"], "length");
    EXPECT_EQ(r["usage"]["prompt_tokens"], 5);
    EXPECT_EQ(r["usage"]["completion_tokens"], 20);
    EXPECT_EQ(r["usage"]["total_tokens"], 25);
}

TEST(OpenAiServer, ChatCompletionBodyUsesTheTemplate) {
    TestServer s;
    json body{{"model", "test-model"},
              {"messages",
               {{{"role", "system"}, {"content", "Be brief."}},
                {{"role", "user"}, {"content", {{{"type", "text"}, {"text", "Hi"}}}}}}},
              {"max_completion_tokens", 12},
              {"temperature", 0},
              {"ignore_eos", true}};
    HttpReply reply = httpPost(s.port(), "/v1/chat/completions", body.dump());
    ASSERT_EQ(reply.status, 200) << reply.body.substr(0, 300);
    json r = parsed(reply.body);
    EXPECT_EQ(r["object"], "chat.completion");
    EXPECT_EQ(r["id"].get<std::string>().rfind("chatcmpl-", 0), 0u);
    const std::string prompt = "<|system|>\nBe brief.\n<|user|>\nHi\n<|assistant|>\n";
    EXPECT_EQ(r["choices"][0]["message"]["role"], "assistant");
    EXPECT_TRUE(sameText(r["choices"][0]["message"]["content"], greedyText(prompt, 12)));
    EXPECT_EQ(r["choices"][0]["finish_reason"], "length");
    EXPECT_EQ(r["usage"]["prompt_tokens"], static_cast<int>(prompt.size()));
    EXPECT_EQ(r["usage"]["completion_tokens"], 12);
}

TEST(OpenAiServer, TokenIdPromptsMeanTheSameAsTheirText) {
    TestServer s;
    const std::string expected = greedyText("Hello", 8);
    const json ids = json::array({72, 101, 108, 108, 111});
    for (const json& prompt : {ids, json::array({ids}), json::array({"Hello"})}) {
        json body{{"prompt", prompt}, {"max_tokens", 8}, {"temperature", 0}, {"ignore_eos", true}};
        HttpReply reply = httpPost(s.port(), "/v1/completions", body.dump());
        ASSERT_EQ(reply.status, 200) << reply.body.substr(0, 300);
        json r = parsed(reply.body);
        EXPECT_TRUE(sameText(r["choices"][0]["text"], expected)) << prompt.dump();
        EXPECT_EQ(r["usage"]["prompt_tokens"], 5);
    }
}

TEST(OpenAiServer, StopsAtEosWithFinishReasonStop) {
    TestServer s;
    std::string prompt;
    std::vector<TokenId> tokens;
    for (int i = 0; i < 1000 && prompt.empty(); ++i) {
        std::string p = "eos probe " + std::to_string(i);
        std::vector<TokenId> context = ByteTokenizer::encode(p);
        for (int n = 0; n < 100; ++n) {
            TokenId t = CpuBackend::nextToken(context, 0.0, 0, n);
            tokens.push_back(t);
            context.push_back(t);
            if (t == ByteTokenizer::kEos) break;
        }
        if (tokens.back() == ByteTokenizer::kEos)
            prompt = p;
        else
            tokens.clear();
    }
    ASSERT_FALSE(prompt.empty());
    json body{{"prompt", prompt}, {"max_tokens", 200}, {"temperature", 0}};
    HttpReply reply = httpPost(s.port(), "/v1/completions", body.dump());
    json r = parsed(reply.body);
    EXPECT_EQ(r["choices"][0]["finish_reason"], "stop");
    EXPECT_TRUE(sameText(r["choices"][0]["text"], ByteTokenizer::decodeBytes(tokens)));
    EXPECT_EQ(r["usage"]["completion_tokens"], static_cast<int>(tokens.size()));  // EOS counts
}

TEST(OpenAiServer, StreamedCompletionFraming) {
    TestServer s;
    json body{{"prompt", "Hello"}, {"max_tokens", 25},
              {"temperature", 0},  {"ignore_eos", true},
              {"stream", true},    {"stream_options", {{"include_usage", true}}}};
    // aiohttp (vLLM's benchmark client) asks for compression: an event stream
    // must not be buffered by it.
    SseReply reply = ssePost(s.port(), "/v1/completions", body.dump(), {},
                             {{"Accept-Encoding", "gzip, deflate, br"}});
    expectWellFormed(reply);
    EXPECT_EQ(reply.contentType, "text/event-stream");
    EXPECT_EQ(reply.contentEncoding, "");
    ASSERT_EQ(reply.events.size(), 25u + 2u);  // one per token, usage, [DONE]
    std::string text;
    std::string id;
    for (int i = 0; i < 25; ++i) {
        json e = parsed(reply.events[static_cast<std::size_t>(i)]);
        EXPECT_EQ(e["object"], "text_completion");
        if (i == 0) id = e["id"];
        EXPECT_EQ(e["id"], id);
        ASSERT_EQ(e["choices"].size(), 1u);
        text += e["choices"][0]["text"].get<std::string>();
        if (i < 24)
            EXPECT_TRUE(e["choices"][0]["finish_reason"].is_null());
        else
            EXPECT_EQ(e["choices"][0]["finish_reason"], "length");
    }
    EXPECT_TRUE(sameText(text, greedyText("Hello", 25)));
    json usage = parsed(reply.events[25]);
    EXPECT_TRUE(usage["choices"].empty());
    EXPECT_EQ(usage["usage"]["prompt_tokens"], 5);
    EXPECT_EQ(usage["usage"]["completion_tokens"], 25);
    EXPECT_EQ(usage["usage"]["total_tokens"], 30);
}

// Asked for with kEmitTimeHeader, each streamed write starts with a comment
// holding its Unix time; the events are the same. Not asked, no comments.
TEST(OpenAiServer, StreamedWritesCarryTheirTimeWhenAsked) {
    TestServer s;
    const auto body = completionBody("Hi", 12, true);
    auto unixNs = [] {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
    };
    const auto before = unixNs();
    SseReply stamped =
        ssePost(s.port(), "/v1/completions", body, {}, {{serving::http::kEmitTimeHeader, "1"}});
    const auto after = unixNs();
    expectWellFormed(stamped);
    ASSERT_EQ(stamped.events.size(), 12u + 1u);  // tokens, [DONE]
    ASSERT_FALSE(stamped.comments.empty());
    std::int64_t last = before;
    for (const auto& c : stamped.comments) {
        ASSERT_EQ(c.rfind(" emit ", 0), 0u) << c;
        const std::int64_t t = std::stoll(c.substr(6));
        EXPECT_GE(t, last);
        EXPECT_LE(t, after);
        last = t;
    }
    SseReply plain = ssePost(s.port(), "/v1/completions", body);
    expectWellFormed(plain);
    EXPECT_TRUE(plain.comments.empty());
    EXPECT_EQ(plain.body.find(": emit"), std::string::npos);
    auto text = [](const SseReply& r) {
        std::string t;
        for (std::size_t i = 0; i + 1 < r.events.size(); ++i)
            t += parsed(r.events[i])["choices"][0]["text"].get<std::string>();
        return t;
    };
    EXPECT_TRUE(sameText(text(stamped), greedyText("Hi", 12)));
    EXPECT_EQ(text(plain), text(stamped));
}

TEST(OpenAiServer, StreamedChatFraming) {
    TestServer s;
    json body{{"messages", {{{"role", "user"}, {"content", "Hi"}}}},
              {"max_tokens", 10},
              {"temperature", 0},
              {"ignore_eos", true},
              {"stream", true}};
    SseReply reply = ssePost(s.port(), "/v1/chat/completions", body.dump());
    expectWellFormed(reply);
    ASSERT_EQ(reply.events.size(), 1u + 10u + 1u);  // role, tokens, [DONE]: no usage unless asked
    json first = parsed(reply.events[0]);
    EXPECT_EQ(first["object"], "chat.completion.chunk");
    EXPECT_EQ(first["choices"][0]["delta"]["role"], "assistant");
    std::string text;
    for (std::size_t i = 1; i <= 10; ++i) {
        json e = parsed(reply.events[i]);
        EXPECT_FALSE(e.contains("usage"));
        text += e["choices"][0]["delta"]["content"].get<std::string>();
    }
    EXPECT_EQ(parsed(reply.events[10])["choices"][0]["finish_reason"], "length");
    EXPECT_TRUE(sameText(text, greedyText("<|user|>\nHi\n<|assistant|>\n", 10)));

    // The role chunk is written with the first token, not before the prefill
    // (a client times the first chunk with choices as the first token): no
    // write's ": emit" stamp between the two events, with a prefill (10 ms a
    // prompt token, ~250 ms) longer than the server's 100 ms wait for tokens.
    TestServer slowPrefill(TestServer::defaultConfig(), {0us, 0us, 10ms});
    SseReply stamped = ssePost(slowPrefill.port(), "/v1/chat/completions", body.dump(), {},
                               {{serving::http::kEmitTimeHeader, "1"}});
    expectWellFormed(stamped);
    const auto role = stamped.body.find("\"role\":\"assistant\"");
    ASSERT_NE(role, std::string::npos);
    const auto firstToken = stamped.body.find("data: ", role);
    ASSERT_NE(firstToken, std::string::npos);
    EXPECT_EQ(stamped.body.substr(role, firstToken - role).find(": emit"), std::string::npos)
        << stamped.body.substr(0, 600);
}

TEST(OpenAiServer, SeedsMakeSampledOutputsReproducible) {
    TestServer s;
    auto sample = [&](int seed) {
        json body{{"prompt", "sample"},
                  {"max_tokens", 48},
                  {"temperature", 0.9},
                  {"seed", seed},
                  {"ignore_eos", true}};
        return parsed(
            httpPost(s.port(), "/v1/completions", body.dump()).body)["choices"][0]["text"];
    };
    const json five = sample(5);
    EXPECT_TRUE(sameText(five, sample(5).get<std::string>()));
    EXPECT_FALSE(sameText(five, sample(6).get<std::string>()));
    EXPECT_FALSE(sameText(five, greedyText("sample", 48)));
}

struct BadRequest {
    const char* path;
    std::string body;
    const char* param;  // "" for null
    const char* says;   // part of the message
};

TEST(OpenAiServer, BadBodiesAre400NamingTheField) {
    TestServer s;
    const BadRequest cases[] = {
        {"/v1/completions", "{\"prompt\": \"x\"", "", "not valid JSON"},
        {"/v1/completions", "[1, 2]", "", "JSON object"},
        // 100,000 nested arrays (200 KB): refused, not printed (it crashed the server).
        {"/v1/completions", std::string(100000, '[') + std::string(100000, ']'), "",
         "deeper than 64"},
        {"/v1/completions", "{\"prompt\": " + std::string(65, '[') + std::string(65, ']') + "}", "",
         "deeper than 64"},
        {"/v1/completions", "{}", "prompt", "required"},
        {"/v1/completions", "{\"prompt\": 5}", "prompt", "expected a string"},
        {"/v1/completions", "{\"prompt\": []}", "prompt", "must not be empty"},
        {"/v1/completions", "{\"prompt\": [\"a\", \"b\"]}", "prompt", "one prompt"},
        {"/v1/completions", "{\"prompt\": [1, -2]}", "prompt[1]", "token id"},
        {"/v1/completions", "{\"prompt\": [1, 900]}", "prompt", "vocabulary"},
        {"/v1/completions", "{\"prompt\": \"\"}", "prompt", "empty"},
        {"/v1/completions", "{\"prompt\": \"x\", \"max_tokens\": \"abc\"}", "max_tokens",
         "integer"},
        {"/v1/completions", "{\"prompt\": \"x\", \"max_tokens\": 0}", "max_tokens", ">= 1"},
        {"/v1/completions", "{\"prompt\": \"x\", \"max_tokens\": 2.5}", "max_tokens", "integer"},
        // Past a double's range: the JSON library refuses it while parsing (it was a 500).
        {"/v1/completions", "{\"prompt\": \"x\", \"max_tokens\": 1e400}", "", "out of range"},
        {"/v1/completions", "{\"prompt\": \"x\", \"max_tokens\": 16384}", "max_tokens",
         "maximum context length"},
        {"/v1/completions", "{\"prompt\": \"x\", \"temperature\": -1}", "temperature", "between"},
        {"/v1/completions", "{\"prompt\": \"x\", \"temperature\": \"hot\"}", "temperature",
         "number"},
        {"/v1/completions", "{\"prompt\": \"x\", \"seed\": \"s\"}", "seed", "integer"},
        {"/v1/completions", "{\"prompt\": \"x\", \"stream\": \"yes\"}", "stream", "true or false"},
        {"/v1/completions", "{\"prompt\": \"x\", \"ignore_eos\": 1}", "ignore_eos",
         "true or false"},
        {"/v1/completions", "{\"prompt\": \"x\", \"stream_options\": {\"include_usage\": true}}",
         "stream_options", "stream"},
        {"/v1/completions",
         "{\"prompt\": \"x\", \"stream\": true, \"stream_options\": {\"include_usage\": 3}}",
         "stream_options.include_usage", "true or false"},
        {"/v1/completions", "{\"prompt\": \"x\", \"n\": 2}", "n", "n = 1"},
        {"/v1/completions", "{\"prompt\": \"x\", \"stop\": [\"\\n\"]}", "stop", "not supported"},
        {"/v1/completions", "{\"prompt\": \"x\", \"logprobs\": 3}", "logprobs", "not supported"},
        {"/v1/completions", "{\"prompt\": \"x\", \"model\": 7}", "model", "string"},
        {"/v1/chat/completions", "{\"prompt\": \"x\"}", "messages", "required"},
        {"/v1/chat/completions", "{\"messages\": []}", "messages", "non-empty"},
        {"/v1/chat/completions", "{\"messages\": [{\"role\": \"robot\", \"content\": \"x\"}]}",
         "messages[0].role", "one of"},
        {"/v1/chat/completions", "{\"messages\": [{\"role\": \"user\"}]}", "messages[0].content",
         "required"},
        {"/v1/chat/completions",
         "{\"messages\": [{\"role\": \"user\", \"content\": [{\"type\": \"image_url\"}]}]}",
         "messages[0].content[0]", "text"},
        {"/v1/chat/completions",
         "{\"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"max_completion_tokens\": "
         "20000}",
         "max_completion_tokens", "maximum context length"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(std::string(c.path) + " " + c.body.substr(0, 80));
        json e = expectError(httpPost(s.port(), c.path, c.body), 400);
        EXPECT_EQ(e["type"], "BadRequestError");
        if (*c.param)
            EXPECT_EQ(e["param"], c.param);
        else
            EXPECT_TRUE(e["param"].is_null());
        EXPECT_NE(e["message"].get<std::string>().find(c.says), std::string::npos) << e["message"];
    }
    EXPECT_EQ(s.engine().stats().submitted, 0);  // none reached the engine
}

TEST(OpenAiServer, UnknownPathsAndModelsAre404) {
    TestServer s;
    json e = expectError(httpGet(s.port(), "/v1/nothing"), 404);
    EXPECT_EQ(e["type"], "NotFoundError");
    expectError(httpPost(s.port(), "/v2/completions", "{}"), 404);
    e = expectError(httpPost(s.port(), "/v1/completions", R"({"prompt": "x", "model": "gpt-9"})"),
                    404);
    EXPECT_EQ(e["param"], "model");
    EXPECT_NE(e["message"].get<std::string>().find("gpt-9"), std::string::npos);
}

// vLLM's profiler switches, for `bench serve --profile`: there when the
// server has a profiler (each POST reaches it, its error is a 500), absent
// (404) when not.
TEST(OpenAiServer, ProfilerSwitchesAreRoutedOnlyWhereThereIsAProfiler) {
    expectError(httpPost(TestServer().port(), "/start_profile", ""), 404);
    std::vector<bool> asked;
    auto options = TestServer::defaultOptions();
    options.profiler = [&](bool start) {
        asked.push_back(start);
        return asked.size() == 3 ? std::string("cudaProfilerStart failed: no device") : "";
    };
    TestServer s(TestServer::defaultConfig(), {0us, 0us, 0us}, options);
    EXPECT_EQ(httpPost(s.port(), "/start_profile", "").status, 200);
    EXPECT_EQ(httpPost(s.port(), "/stop_profile", "").status, 200);
    json e = expectError(httpPost(s.port(), "/start_profile", ""), 500);
    EXPECT_NE(e["message"].get<std::string>().find("no device"), std::string::npos);
    EXPECT_EQ(asked, (std::vector<bool>{true, false, true}));
}

TEST(OpenAiServer, OversizedBodiesAre413) {
    auto options = TestServer::defaultOptions();
    options.maxBodyBytes = 1024;
    TestServer s(TestServer::defaultConfig(), {0us, 0us, 0us}, options);
    json e = expectError(
        httpPost(s.port(), "/v1/completions", completionBody(std::string(4096, 'a'), 4)), 413);
    EXPECT_NE(e["message"].get<std::string>().find("1024"), std::string::npos);
    EXPECT_EQ(httpPost(s.port(), "/v1/completions", completionBody("small", 4)).status, 200);
}

TEST(OpenAiServer, MalformedHttpIs400) {
    TestServer s;
    std::string reply = rawExchange(s.port(), "NONSENSE\r\n\r\n");
    EXPECT_EQ(reply.rfind("HTTP/1.1 400", 0), 0u) << reply.substr(0, 200);
    EXPECT_NE(reply.find("\"BadRequestError\""), std::string::npos);
    EXPECT_EQ(s.engine().stats().submitted, 0);
}

TEST(OpenAiServer, ConcurrentStreamsEachGetTheirOwnOutput) {
    TestServer s;
    constexpr int kClients = 48;  // at once: well past httplib's default accept backlog of 5
    std::vector<std::future<SseReply>> replies;
    for (int i = 0; i < kClients; ++i)
        replies.push_back(std::async(std::launch::async, [&, i] {
            return ssePost(s.port(), "/v1/completions",
                           completionBody("client " + std::to_string(i), 30 + i, true));
        }));
    for (int i = 0; i < kClients; ++i) {
        SseReply reply = replies[static_cast<std::size_t>(i)].get();
        expectWellFormed(reply);
        std::string text;
        for (std::size_t k = 0; k + 1 < reply.events.size(); ++k)
            text += parsed(reply.events[k])["choices"][0]["text"].get<std::string>();
        EXPECT_TRUE(sameText(text, greedyText("client " + std::to_string(i), 30 + i)))
            << "client " << i;
    }
    ASSERT_TRUE(
        s.engine().waitFor([](const EngineStats& st) { return st.active == 0; }, kPatience));
    EXPECT_EQ(s.engine().stats().kvBlocksUsed, 0);
}

TEST(OpenAiServer, AClientThatHangsUpMidStreamFreesItsSequence) {
    TestServer s(TestServer::defaultConfig(), {1ms, 0us, 0us});
    // Far more tokens than the test waits for: only the hang-up can end it in time.
    SseReply reply = ssePost(s.port(), "/v1/completions", completionBody("bye", 16000, true),
                             [](const std::string&) { return false; });
    EXPECT_EQ(reply.status, 200);
    EXPECT_EQ(reply.events.size(), 1u);
    EXPECT_FALSE(reply.completed);
    ASSERT_TRUE(s.engine().waitFor([](const EngineStats& st) { return st.active == 0; }, kPatience))
        << "the sequence still runs after its client left";
    EngineStats st = s.engine().stats();
    EXPECT_EQ(st.aborted, 1);
    EXPECT_EQ(st.finished, 0);
    EXPECT_EQ(st.kvBlocksUsed, 0);
    EXPECT_LT(st.outputTokens, 16000);
}

TEST(OpenAiServer, ASlowReaderStallsNeitherTheEngineNorOtherClients) {
    TestServer s;
    constexpr int kTokens = 3000;
    std::promise<void> firstEvent, resume;
    std::shared_future<void> resumed = resume.get_future().share();
    bool waited = false;
    auto slow = std::async(std::launch::async, [&] {
        return ssePost(s.port(), "/v1/completions", completionBody("slow", kTokens, true),
                       [&](const std::string&) {
                           if (!waited) {
                               waited = true;
                               firstEvent.set_value();
                               resumed.wait();  // reads nothing more until told
                           }
                           return true;
                       });
    });
    ASSERT_EQ(firstEvent.get_future().wait_for(kPatience), std::future_status::ready);
    // While it reads nothing: its sequence runs to the end, and another client is served.
    ASSERT_TRUE(
        s.engine().waitFor([](const EngineStats& st) { return st.finished == 1; }, kPatience));
    HttpReply other = httpPost(s.port(), "/v1/completions", completionBody("other", 50));
    EXPECT_EQ(other.status, 200);
    // The reply can reach us before the engine's step that finished it has
    // returned the blocks: wait for that, do not race it.
    EXPECT_TRUE(s.engine().waitFor(
        [](const EngineStats& st) { return st.finished == 2 && st.kvBlocksUsed == 0; }, kPatience))
        << "blocks still held: " << s.engine().stats().kvBlocksUsed;
    resume.set_value();
    SseReply reply = slow.get();
    expectWellFormed(reply);
    ASSERT_EQ(reply.events.size(), kTokens + 1u);
    std::string text;
    for (std::size_t k = 0; k < kTokens; ++k)
        text += parsed(reply.events[k])["choices"][0]["text"].get<std::string>();
    EXPECT_TRUE(sameText(text, greedyText("slow", kTokens)));
}

TEST(OpenAiServer, AFullQueueIs429) {
    auto config = TestServer::defaultConfig();
    config.maxNumSeqs = 1;
    config.maxWaiting = 1;
    TestServer s(config, {1ms, 0us, 0us});
    std::promise<void> running;
    std::atomic<bool> hangUp{false};
    bool told = false;
    auto first = std::async(std::launch::async, [&] {
        return ssePost(s.port(), "/v1/completions", completionBody("first", 16000, true),
                       [&](const std::string&) {
                           if (!told) {
                               told = true;
                               running.set_value();
                           }
                           return !hangUp.load();
                       });
    });
    ASSERT_EQ(running.get_future().wait_for(kPatience), std::future_status::ready);
    auto second = std::async(std::launch::async, [&] {
        return httpPost(s.port(), "/v1/completions", completionBody("second", 5));
    });
    ASSERT_TRUE(
        s.engine().waitFor([](const EngineStats& st) { return st.waiting == 1; }, kPatience));
    json e = expectError(httpPost(s.port(), "/v1/completions", completionBody("third", 5)), 429);
    EXPECT_EQ(e["type"], "RateLimitError");
    EXPECT_NE(e["message"].get<std::string>().find("queue is full"), std::string::npos);
    hangUp = true;  // the first leaves; the second runs
    EXPECT_EQ(second.get().status, 200);
    first.get();
}

TEST(OpenAiServer, ADrainLetsRunningStreamsFinishAndRefusesNewOnes) {
    TestServer s(TestServer::defaultConfig(), {1ms, 0us, 0us});
    std::promise<void> started;
    std::atomic<bool> hangUp{false};
    bool told = false;
    // The long one ends only when its client leaves; the short one finishes in the drain.
    auto endless = std::async(std::launch::async, [&] {
        return ssePost(s.port(), "/v1/completions", completionBody("endless", 16000, true),
                       [&](const std::string&) {
                           if (!told) {
                               told = true;
                               started.set_value();
                           }
                           return !hangUp.load();
                       });
    });
    ASSERT_EQ(started.get_future().wait_for(kPatience), std::future_status::ready);
    auto brief = std::async(std::launch::async, [&] {
        return ssePost(s.port(), "/v1/completions", completionBody("brief", 2000, true));
    });
    ASSERT_TRUE(
        s.engine().waitFor([](const EngineStats& st) { return st.running == 2; }, kPatience));
    auto drained = std::async(std::launch::async, [&] { s.shutdown(kPatience); });
    ASSERT_TRUE(s.engine().waitFor(
        [](const EngineStats& st) { return st.state == serving::EngineState::Draining; },
        kPatience));
    json e = expectError(httpPost(s.port(), "/v1/completions", completionBody("late", 5)), 503);
    EXPECT_NE(e["message"].get<std::string>().find("shutting down"), std::string::npos);
    EXPECT_EQ(httpGet(s.port(), "/health").status, 503);

    SseReply b = brief.get();  // finished normally while draining
    expectWellFormed(b);
    EXPECT_EQ(b.events.size(), 2001u);
    EXPECT_EQ(parsed(b.events[1999])["choices"][0]["finish_reason"], "length");
    hangUp = true;
    endless.get();
    ASSERT_EQ(drained.wait_for(kPatience), std::future_status::ready);
    EXPECT_EQ(httpGet(s.port(), "/health").status, 0);  // nobody listens any more
}

TEST(OpenAiServer, ADrainPastItsTimeoutEndsStreamsWithAnErrorEvent) {
    TestServer s(TestServer::defaultConfig(), {1ms, 0us, 0us});
    std::promise<void> started;
    bool told = false;
    auto endless = std::async(std::launch::async, [&] {
        return ssePost(s.port(), "/v1/completions", completionBody("endless", 16000, true),
                       [&](const std::string&) {
                           if (!told) {
                               told = true;
                               started.set_value();
                           }
                           return true;
                       });
    });
    auto whole = std::async(std::launch::async, [&] {
        return httpPost(s.port(), "/v1/completions", completionBody("whole", 16000));
    });
    ASSERT_EQ(started.get_future().wait_for(kPatience), std::future_status::ready);
    ASSERT_TRUE(
        s.engine().waitFor([](const EngineStats& st) { return st.running == 2; }, kPatience));
    s.shutdown(200ms);
    SseReply reply = endless.get();
    expectWellFormed(reply);
    ASSERT_GE(reply.events.size(), 3u);
    json error = parsed(reply.events[reply.events.size() - 2]);
    ASSERT_TRUE(error.contains("error")) << reply.events[reply.events.size() - 2];
    EXPECT_EQ(error["error"]["code"], 503);
    EXPECT_NE(error["error"]["message"].get<std::string>().find("shutting down"),
              std::string::npos);
    json e = expectError(whole.get(), 503);
    EXPECT_NE(e["message"].get<std::string>().find("drain timeout"), std::string::npos);
    EngineStats st = s.engine().stats();
    EXPECT_EQ(st.aborted, 2);
    EXPECT_EQ(st.kvBlocksUsed, 0);
}

}  // namespace
}  // namespace ws::testing
