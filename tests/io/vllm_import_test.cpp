// Our statistics on an imported vLLM result equal the ones vLLM wrote.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdint>

#include "analysis/run_latency.h"
#include "io/latency_json.h"
#include "io/trace_import.h"
#include "io/vllm_import.h"
#include "report/report_data.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

using testing::TempDir;

TEST(VllmImport, StatisticsEqualThoseVllmWrote) {
    TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto path = testing::dataFile("vllm_result.json");
    auto text = testing::readFile(path);
    ASSERT_TRUE(isVllmResult(text));
    auto imported = importVllmResult(store, path, text, "");
    auto run = requireRun(store, imported.run);
    EXPECT_EQ(run.label, "vLLM meta-llama/Llama-3.2-1B");
    EXPECT_EQ(run.workloadKind, "imported");
    EXPECT_EQ(run.status, RunStatus::Ok);
    auto vllm = nlohmann::json::parse(text);
    auto report = runLatency(store, imported.run, {.ttftMs = 300.0, .tpotMs = 25.0, .e2elMs = {}});
    auto ours = latencyJson(report, {90, 99});
    // Compared as numbers: an ordered and a plain nlohmann JSON value have
    // two operator== candidates under clang 14.
    for (const char* key : {"completed", "total_input_tokens", "total_output_tokens"})
        EXPECT_EQ(ours[key].get<std::int64_t>(), vllm[key].get<std::int64_t>()) << key;
    for (const char* key : {"duration", "request_throughput", "request_goodput",
                            "output_throughput", "total_token_throughput"})
        EXPECT_NEAR(ours[key].get<double>(), vllm[key].get<double>(), 1e-9) << key;
    for (const char* metric : {"ttft", "tpot", "itl", "e2el"})
        for (const char* stat : {"mean", "median", "std", "p90", "p99"}) {
            std::string key = std::string(stat) + "_" + metric + "_ms";
            // Token times are stored in whole nanoseconds: agreement to 1e-5 ms.
            EXPECT_NEAR(ours[key].get<double>(), vllm[key].get<double>(), 1e-5) << key;
        }
}

TEST(VllmImport, ForeignOrBrokenFilesAddNothing) {
    TempDir dir;
    Store store(dir.file("runs.wsdb"));
    EXPECT_FALSE(isVllmResult("{\"traceEvents\": []}"));
    EXPECT_FALSE(isVllmResult("not json"));
    std::string broken = R"({"duration": 1.0, "ttfts": [0.1, 0.2], "itls": [[0.01], "x"],
                              "output_lens": [2, 2]})";
    try {
        importVllmResult(store, "broken.json", broken, "");
        FAIL() << "a broken file was imported";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("broken.json: itls[1]: not an array"),
                  std::string::npos)
            << e.what();
    }
    std::string mismatched = R"({"duration": 1.0, "ttfts": [0.1], "itls": [], "output_lens": []})";
    EXPECT_THROW(importVllmResult(store, "m.json", mismatched, ""), std::runtime_error);
    EXPECT_TRUE(listRuns(store).empty());
}

TEST(VllmImport, TheReportOfAnImportedRunSaysSoWithoutAConfigError) {
    // It once printed a TOML parse error about the vLLM summary stored with it.
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto path = testing::dataFile("vllm_result.json");
    auto result = importTrace(store, readTraceFile(path), "");
    auto d = buildReport(store, result.run);
    std::string missing;
    for (const auto& m : d.missing)
        missing += m + "\n";
    EXPECT_EQ(missing.find("could not be read"), std::string::npos) << missing;
    EXPECT_NE(missing.find("an imported run"), std::string::npos) << missing;
}

}  // namespace
}  // namespace ws
