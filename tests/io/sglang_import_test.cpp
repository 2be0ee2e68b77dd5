// SGLang bench_serving's JSON Lines results become runs whose statistics
// equal the ones SGLang wrote, several lines one sweep group, a bad line
// nothing at all.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>

#include "analysis/run_latency.h"
#include "analysis/statistics.h"
#include "analysis/sweep.h"
#include "io/sglang_import.h"
#include "io/trace_import.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

using nlohmann::json;
using testing::TempDir;

double mean(const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

// One line as bench_serving writes it with --output-details
// (python/sglang/bench_serving.py, benchmark()): settings, SGLang's own
// figures in ms, the per-request arrays in seconds. Its own means are
// computed from the arrays as bench_serving computes them.
json line(json maxConcurrency, bool details) {
    std::vector<double> ttfts = {0.120, 0.090, 0.300};
    std::vector<std::vector<double>> itls = {{0.010, 0.012, 0.011}, {0.020}, {}};
    std::vector<int> outputLens = {4, 2, 0};
    std::vector<double> itlMs, ttftMs;
    for (std::size_t i = 0; i < 2; ++i) {
        ttftMs.push_back(1000 * ttfts[i]);
        for (double g : itls[i])
            itlMs.push_back(1000 * g);
    }
    json out = {{"backend", "sglang"},
                {"dataset_name", "random"},
                {"request_rate", "INFINITY"},  // replaced by a bare Infinity below
                {"max_concurrency", maxConcurrency},
                {"duration", 2.5},
                {"completed", 2},
                {"total_input_tokens", 300},
                {"total_output_tokens", 6},
                {"total_output_tokens_retokenized", 6},
                {"request_throughput", 0.8},
                {"output_throughput", 2.4},
                {"mean_e2e_latency_ms", 250.0},
                {"mean_ttft_ms", mean(ttftMs)},
                {"mean_itl_ms", mean(itlMs)},
                {"concurrency", 0.2}};
    if (details) {
        out["ttfts"] = ttfts;
        out["itls"] = itls;
        out["input_lens"] = {100, 100, 100};
        out["output_lens"] = outputLens;
        out["generated_texts"] = {"a \"quoted\" Infinity", "b", ""};
        out["errors"] = {"", "", "Connection refused"};
    }
    return out;
}

std::string jsonl(const std::vector<json>& lines) {
    std::string text;
    for (const auto& l : lines) {
        auto s = l.dump();
        // Python's json.dumps writes float("inf") as a bare Infinity.
        auto at = s.find("\"INFINITY\"");
        if (at != std::string::npos) s.replace(at, 10, "Infinity");
        text += s + "\n";
    }
    return text;
}

class SglangImport : public ::testing::Test {
  protected:
    TraceFile write(const std::string& text) {
        std::ofstream(path) << text;
        return readTraceFile(path);
    }
    TempDir dir;
    std::string path = dir.file("sglang.jsonl");
    Store store{dir.file("runs.wsdb")};
};

TEST_F(SglangImport, StatisticsEqualThoseSglangWrote) {
    auto file = write(jsonl({line(8, true)}));
    ASSERT_EQ(file.format, TraceFormat::SglangResults);  // not taken for vLLM's result
    auto imported = importTrace(store, file, "");
    ASSERT_EQ(imported.runs.size(), 1u);
    auto latency = runLatency(store, imported.run, {});
    EXPECT_EQ(latency.requests.size(), 2u);
    EXPECT_EQ(latency.failedRequests, 1);
    auto sglang = json::parse(withNonFiniteNumbersReplaced(file.text));
    EXPECT_NEAR(stats::summarize(latency.ttftMs).mean, sglang["mean_ttft_ms"].get<double>(), 1e-9);
    EXPECT_NEAR(stats::summarize(latency.itlMs).mean, sglang["mean_itl_ms"].get<double>(), 1e-9);
    EXPECT_NEAR(latency.durationS, 2.5, 1e-9);
    EXPECT_EQ(latency.totalOutputTokens, 6);
    auto props = runProperties(store, imported.run);
    EXPECT_EQ(props["sglang.request_rate"], "inf");
    EXPECT_EQ(props["sglang.max_concurrency"], "8");
    EXPECT_EQ(props["client"], "SGLang bench_serving");
    EXPECT_EQ(requireRun(store, imported.run).label,
              "SGLang bench_serving sglang request-rate inf max-concurrency 8");
}

// bench_serving appends a line per benchmark: lines that differ in
// concurrency are one group by concurrency; a line without --output-details
// is a run of SGLang's figures that says what it lacks.
TEST_F(SglangImport, LinesAreOneSweepGroup) {
    auto imported = importTrace(store, write(jsonl({line(4, true), line(16, false)})), "");
    ASSERT_EQ(imported.runs.size(), 2u);
    auto group = findSweepGroup(store, imported.sweepGroup);
    ASSERT_TRUE(group);
    EXPECT_EQ(group->parameter, "max-concurrency");
    auto table = sweepTable(store, *group);
    ASSERT_EQ(table.points.size(), 2u);
    EXPECT_EQ(table.points[0].value, "4");
    EXPECT_EQ(table.points[1].value, "16");
    EXPECT_EQ(table.points[0].completed, 2);
    EXPECT_EQ(table.points[1].completed, 0);
    EXPECT_NE(runLog(store, imported.runs[1]).find("--output-details"), std::string::npos);
    EXPECT_EQ(runProperties(store, imported.runs[1])["sglang.mean_e2e_latency_ms"], "250.0");
}

TEST_F(SglangImport, ABadLineNamesItselfAndImportsNothing) {
    auto bad = line(8, true);
    bad["itls"][1] = {0.01, -0.5};
    try {
        importTrace(store, write(jsonl({line(4, true), bad})), "");
        FAIL() << "imported";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("line 2: itls[1][1]: negative"), std::string::npos)
            << e.what();
    }
    try {
        importTrace(store, write(jsonl({line(4, true)}) + "{not json\n"), "");
        FAIL() << "imported";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("line 2: not valid JSON"), std::string::npos)
            << e.what();
    }
    EXPECT_TRUE(listRuns(store).empty());
}

// Repeats of one setting are runs of their own, not a sweep; a setting of
// the wrong type is named.
TEST_F(SglangImport, RepeatsAreNoSweepAndABadSettingIsNamed) {
    auto repeats = importTrace(store, write(jsonl({line(8, true), line(8, true)})), "");
    EXPECT_EQ(repeats.runs.size(), 2u);
    EXPECT_TRUE(repeats.sweepGroup.empty());
    auto bad = line(8, true);
    bad["max_concurrency"] = true;
    try {
        importTrace(store, write(jsonl({bad})), "");
        FAIL() << "imported";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("line 1: max_concurrency: not a non-negative number"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_EQ(listRuns(store).size(), 2u);
}

TEST(SglangJson, NonFiniteNumbersOutsideStringsOnly) {
    EXPECT_EQ(withNonFiniteNumbersReplaced(R"({"a": Infinity, "b": -Infinity, "c": NaN})"),
              R"({"a": "inf", "b": "-inf", "c": null})");
    const std::string inStrings = R"({"t": "Infinity \" NaN", "u": "\\", "v": Infinity})";
    EXPECT_EQ(withNonFiniteNumbersReplaced(inStrings),
              R"({"t": "Infinity \" NaN", "u": "\\", "v": "inf"})");
    EXPECT_FALSE(isSglangResults(testing::readFile(testing::dataFile("vllm_result.json"))));
    EXPECT_FALSE(isSglangResults(""));
}

}  // namespace
}  // namespace ws
