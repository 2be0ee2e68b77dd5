// GenAI-Perf's profile export becomes runs whose requests start when
// GenAI-Perf sent them and whose tokens arrive with the responses that carried
// text; its experiments become a sweep group; a bad file imports nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/run_latency.h"
#include "io/trace_import.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

using nlohmann::json;
using testing::TempDir;

constexpr std::int64_t t0 = 1'780'000'000'000'000'000;  // 2026-05-28, Unix ns

// One streamed chat completion as perf_analyzer keeps it: each response the
// raw server-sent events, a role-only first chunk, text chunks, the usage
// chunk and [DONE]; `gapsMs` between the text chunks.
json request(std::int64_t startNs, double ttftMs, std::vector<double> gapsMs, int completion) {
    auto event = [](const json& delta, const json& usage = nullptr) {
        json chunk = {{"id", "c"},
                      {"object", "chat.completion.chunk"},
                      {"model", "meta-llama/Llama-3.1-8B-Instruct"},
                      {"choices", json::array({{{"index", 0}, {"delta", delta}}})}};
        if (!usage.is_null()) {
            chunk["choices"] = json::array();
            chunk["usage"] = usage;
        }
        return "data: " + chunk.dump() + "\n\n";
    };
    json times = json::array(), outputs = json::array();
    auto at = [&](double ms) { return startNs + static_cast<std::int64_t>(ms * 1e6); };
    times.push_back(at(ttftMs * 0.5));
    outputs.push_back({{"response", event({{"role", "assistant"}})}});
    double ms = ttftMs;
    times.push_back(at(ms));
    outputs.push_back({{"response", event({{"content", "Hello"}})}});
    for (double g : gapsMs) {
        ms += g;
        times.push_back(at(ms));
        outputs.push_back({{"response", event({{"content", " there"}})}});
    }
    times.push_back(at(ms + 0.1));
    outputs.push_back(
        {{"response", event(nullptr, {{"prompt_tokens", 200}, {"completion_tokens", completion}}) +
                          "data: [DONE]\n\n"}});
    json payload = {{"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"stream", true}};
    return {{"timestamp", startNs},
            {"request_inputs", {{"payload", payload.dump()}}},
            {"response_timestamps", times},
            {"response_outputs", outputs}};
}

json experiment(int concurrency, std::vector<json> requests) {
    return {{"experiment", {{"mode", "concurrency"}, {"value", concurrency}}},
            {"requests", requests},
            {"window_boundaries", json::array()}};
}

class GenaiPerfImport : public ::testing::Test {
  protected:
    ImportResult import(const json& doc) {
        std::ofstream(path) << doc.dump(2);
        auto file = readTraceFile(path);
        EXPECT_EQ(file.format, TraceFormat::GenaiPerfExport);
        return importTrace(store, file, "");
    }
    TempDir dir;
    std::string path = dir.file("profile_export.json");
    Store store{dir.file("runs.wsdb")};
};

TEST_F(GenaiPerfImport, TokensArriveWithTheResponsesThatCarriedText) {
    auto imported = import({{"experiments",
                             {experiment(1, {request(t0, 40, {10, 12, 14}, 7),
                                             request(t0 + 200'000'000, 30, {20}, 2)})}},
                            {"version", ""},
                            {"service_kind", "openai"},
                            {"endpoint", "v1/chat/completions"}});
    auto run = requireRun(store, imported.run);
    EXPECT_EQ(run.label, "GenAI-Perf meta-llama/Llama-3.1-8B-Instruct concurrency 1");
    EXPECT_EQ(run.startedAtNs, t0);
    auto latency = runLatency(store, imported.run, {});
    ASSERT_EQ(latency.requests.size(), 2u);
    EXPECT_NEAR(latency.requests[0].ttftMs, 40, 1e-6);  // the role-only chunk is no token
    EXPECT_EQ(latency.requests[0].itlMs, (std::vector<double>{10, 12, 14}));
    // The server's usage count where the last chunk reported it: 7 tokens
    // in 4 chunks, TPOT over the server's count, to the stream's end (the
    // usage chunk 0.1 ms after the last text), as GenAI-Perf's request latency.
    EXPECT_EQ(latency.requests[0].outputTokens, 7);
    EXPECT_EQ(latency.requests[0].promptTokens, 200);
    EXPECT_NEAR(*latency.requests[0].tpotMs, 36.1 / 6, 1e-6);
    EXPECT_EQ(latency.requests[1].outputTokens, 2);
    auto props = runProperties(store, imported.run);
    EXPECT_EQ(props["client"], "GenAI-Perf");
    EXPECT_EQ(props["genai_perf.endpoint"], "v1/chat/completions");
    EXPECT_NE(props["client.definitions"].find("tokenizer"), std::string::npos);
}

// Experiments at several concurrencies are one sweep, ordered by concurrency.
TEST_F(GenaiPerfImport, ExperimentsAtSeveralConcurrenciesAreOneSweep) {
    auto imported = import({{"experiments",
                             {experiment(4, {request(t0 + 5'000'000'000, 40, {10}, 2)}),
                              experiment(1, {request(t0, 30, {8}, 2)})}}});
    ASSERT_EQ(imported.runs.size(), 2u);
    EXPECT_FALSE(imported.sweepGroup.empty());
    auto props = runProperties(store, imported.runs[0]);
    EXPECT_EQ(props["sweep.parameter"], "max-concurrency");
    EXPECT_EQ(runProperties(store, imported.runs[1])["genai_perf.value"], "1");
}

TEST_F(GenaiPerfImport, ABadRequestImportsNothingAndSaysWhere) {
    auto bad = request(t0, 40, {10}, 2);
    bad["response_timestamps"][1] = t0 - 5;
    std::ofstream(path)
        << json{{"experiments", {experiment(1, {request(t0, 30, {8}, 2), bad})}}}.dump();
    try {
        importTrace(store, readTraceFile(path), "");
        FAIL() << "a response before its request was taken";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(
                      "experiments[0].requests[1].response_timestamps[1]: before the request's "
                      "timestamp"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_TRUE(listRuns(store).empty());
}

// GenAI-Perf's users point at its artifacts folder: the export in it is read.
TEST_F(GenaiPerfImport, TheArtifactsFolderImportsItsExport) {
    std::ofstream(path) << json{{"experiments", {experiment(2, {request(t0, 30, {8}, 2)})}}}.dump();
    auto file = readTraceFile(dir.path().string());
    EXPECT_EQ(file.format, TraceFormat::GenaiPerfExport);
    EXPECT_EQ(file.path, path);
}

}  // namespace
}  // namespace ws
