// GuideLLM reports become runs whose TTFT and TPOT equal the per-request
// figures GuideLLM wrote (its ITL is our TPOT), a report of several
// benchmarks one sweep group, and a bad report nothing at all.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/run_latency.h"
#include "analysis/sweep.h"
#include "io/guidellm_import.h"
#include "io/latency_json.h"
#include "io/trace_import.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

using nlohmann::json;
using testing::TempDir;

// A request as GuideLLM 0.7 and later write it (schemas/request_stats.py,
// schemas/info.py): times in epoch seconds under info.timings, the computed
// fields beside them, its own TTFT and ITL per request.
json request(double start, double firstToken, double lastToken, double end, int prompt, int output,
             const char* error = nullptr) {
    json timings = {{"request_start", start},
                    {"first_token_iteration", firstToken},
                    {"last_token_iteration", lastToken},
                    {"request_end", end},
                    {"token_iterations", output}};
    return {{"type_", "generative_request_stats"},
            {"request_id", "r"},
            {"info",
             {{"status", error ? "errored" : "completed"},
              {"error", error ? json(error) : json(nullptr)},
              {"timings", timings}}},
            {"request_start_time", start},
            {"request_end_time", end},
            {"prompt_tokens", prompt},
            {"output_tokens", output},
            {"time_to_first_token_ms", 1000 * (firstToken - start)},
            {"inter_token_latency_ms", 1000 * (lastToken - firstToken) / (output - 1)}};
}

json benchmark(json strategy, double start, double end, json successful,
               json errored = json::array()) {
    return {{"type_", "generative_benchmark"},
            {"config",
             {{"strategy", strategy},
              {"profile", {{"kind", "sweep"}}},
              {"backend", {{"model", "Qwen/Qwen3-0.6B"}}}}},
            {"scheduler_metrics", {{"measure_start_time", start}, {"measure_end_time", end}}},
            {"start_time", start},
            {"end_time", end},
            {"duration", end - start},
            {"metrics",
             {{"request_totals",
               {{"successful", successful.size()},
                {"errored", errored.size()},
                {"incomplete", 0},
                {"total", successful.size() + errored.size()}}},
              {"requests_per_second", {{"successful", {{"mean", 1.8}}}}}}},
            {"requests",
             {{"successful", successful},
              {"errored", errored},
              {"incomplete", json::array()},
              {"total", nullptr}}}};
}

json report(json benchmarks) {
    return {{"metadata", {{"version", 2}, {"guidellm_version", "0.7.3"}}},
            {"config", json::object()},
            {"benchmarks", benchmarks}};
}

constexpr double t0 = 1'780'000'000.0;  // 2026-05-28, epoch seconds

class GuidellmImport : public ::testing::Test {
  protected:
    ImportResult import(const json& doc) {
        auto text = doc.dump();
        EXPECT_TRUE(isGuidellmReport(text));
        return importGuidellmReport(store, path, text, "");
    }
    TempDir dir;
    std::string path = dir.file("benchmarks.json");
    Store store{dir.file("runs.wsdb")};
};

// The report GuideLLM 0.3 shipped as a test asset (tests/data/README.md): one
// request kept of 47, its TTFT and ITL as GuideLLM computed them.
TEST_F(GuidellmImport, AReal03ReportKeepsGuidellmsPerRequestFigures) {
    auto file = readTraceFile(testing::dataFile("guidellm-0.3-benchmarks.json"));
    ASSERT_EQ(file.format, TraceFormat::GuidellmReport);
    auto imported = importTrace(store, file, "");
    ASSERT_EQ(imported.runs.size(), 1u);
    EXPECT_TRUE(imported.sweepGroup.empty());
    auto run = requireRun(store, imported.run);
    EXPECT_EQ(run.label, "GuideLLM example_model synchronous");
    EXPECT_EQ(run.workloadKind, "imported");
    auto latency = runLatency(store, imported.run, {});
    ASSERT_EQ(latency.requests.size(), 1u);
    auto q = json::parse(file.text)["benchmarks"][0]["requests"]["successful"][0];
    EXPECT_NEAR(latency.requests[0].ttftMs, q["time_to_first_token_ms"].get<double>(), 1e-6);
    EXPECT_NEAR(*latency.requests[0].tpotMs, q["inter_token_latency_ms"].get<double>(), 1e-6);
    EXPECT_EQ(latency.requests[0].outputTokens, 128);
    EXPECT_EQ(latency.requests[0].promptTokens, 257);
    EXPECT_TRUE(latency.itlMs.empty());
    EXPECT_EQ(latency.requestsWithoutTokenTimes, 1);
    EXPECT_NEAR(latency.durationS, 29.997, 1e-3);  // GuideLLM's window, not the one request
    // stats --json: what the file cannot give is null, and the count says why.
    auto j = latencyJson(latency, {99});
    EXPECT_EQ(j["requests_without_token_times"], 1);
    EXPECT_TRUE(j["mean_itl_ms"].is_null());
    EXPECT_TRUE(j["p99_itl_ms"].is_null());
    EXPECT_TRUE(j["max_output_tokens_per_s"].is_null());
    EXPECT_FALSE(j["mean_tpot_ms"].is_null());
    auto props = runProperties(store, imported.run);
    EXPECT_EQ(props["client.kept_requests"], "1 of 47");
    EXPECT_EQ(props["guidellm.strategy"], "synchronous");
    EXPECT_NE(props["client.definitions"].find("per-request mean"), std::string::npos);
    EXPECT_NE(runLog(store, imported.run).find("keeps 1 of them"), std::string::npos);
}

// A sweep as 0.7 writes it: synchronous, throughput and a constant rate become
// three runs of one group ordered by rate; requests outside a benchmark's
// measurement window are left out as GuideLLM leaves them out; an errored one
// is a failed request.
TEST_F(GuidellmImport, ASweepOf07IsOneGroupOfRunsWithGuidellmsWindow) {
    json sync = benchmark({{"type_", "synchronous"}}, t0, t0 + 10,
                          {request(t0 - 1, t0 - 0.9, t0 - 0.5, t0 - 0.5, 100, 9),  // warm-up
                           request(t0 + 1, t0 + 1.05, t0 + 1.45, t0 + 1.46, 100, 9),
                           request(t0 + 2, t0 + 2.02, t0 + 2.22, t0 + 2.22, 120, 11)});
    json throughput = benchmark({{"type_", "throughput"}, {"max_concurrency", 64}}, t0 + 20,
                                t0 + 30, {request(t0 + 21, t0 + 21.1, t0 + 21.9, t0 + 22, 100, 17)},
                                {request(t0 + 22, t0 + 22, t0 + 22, t0 + 22.5, 100, 2, "timeout")});
    json constant = benchmark({{"type_", "constant"}, {"rate", 4.0}}, t0 + 40, t0 + 50,
                              {request(t0 + 41, t0 + 41.2, t0 + 42.2, t0 + 42.2, 100, 21)});
    auto imported = import(report({sync, throughput, constant}));
    ASSERT_EQ(imported.runs.size(), 3u);
    EXPECT_EQ(imported.requests, 5);  // the warm-up request left out

    auto group = findSweepGroup(store, imported.sweepGroup);
    ASSERT_TRUE(group);
    EXPECT_EQ(group->parameter, "request-rate");
    // Ordered by rate, throughput last, as GuideLLM's own table reads.
    EXPECT_EQ(group->runs,
              (std::vector<RunId>{imported.runs[0], imported.runs[2], imported.runs[1]}));
    auto table = sweepTable(store, *group);
    ASSERT_EQ(table.points.size(), 3u);
    EXPECT_EQ(table.points[0].value, "1.8");  // the rate the synchronous run reached
    EXPECT_EQ(table.points[1].value, "4");
    EXPECT_EQ(table.points[2].value, "inf");
    EXPECT_EQ(table.points[2].failed, 1);

    auto first = runLatency(store, imported.runs[0], {});
    ASSERT_EQ(first.requests.size(), 2u);
    EXPECT_NEAR(first.requests[0].ttftMs, 50, 1e-3);
    EXPECT_NEAR(*first.requests[0].tpotMs, 400.0 / 8, 1e-3);  // GuideLLM's ITL of the request
    EXPECT_NEAR(first.requests[0].e2elMs, 450, 1e-3);         // to the last token, not the close
    EXPECT_NEAR(first.durationS, 10, 1e-6);
    EXPECT_EQ(requireRun(store, imported.runs[2]).label, "GuideLLM Qwen/Qwen3-0.6B constant 4");
    EXPECT_NE(runLog(store, imported.runs[0]).find("1 of 3 requests lie outside"),
              std::string::npos);
    EXPECT_NE(runLog(store, imported.runs[1]).find("errored: timeout"), std::string::npos);
}

TEST_F(GuidellmImport, FixedConcurrenciesLineUpByConcurrency) {
    auto req = [](double at) { return request(at, at + 0.1, at + 0.5, at + 0.5, 10, 5); };
    auto imported = import(report(
        {benchmark({{"type_", "synchronous"}}, t0, t0 + 5, {req(t0 + 1)}),
         benchmark({{"type_", "concurrent"}, {"streams", 8}}, t0 + 10, t0 + 15, {req(t0 + 11)})}));
    auto table = sweepTable(store, *findSweepGroup(store, imported.sweepGroup));
    EXPECT_EQ(table.group.parameter, "max-concurrency");
    ASSERT_EQ(table.points.size(), 2u);
    EXPECT_EQ(table.points[0].value, "1");
    EXPECT_EQ(table.points[1].value, "8");
}

// A damaged report names the benchmark, the request and the field, and adds
// no run, not even the benchmarks read before the bad one.
TEST_F(GuidellmImport, ABadRequestNamesItsFieldAndImportsNothing) {
    json good = benchmark({{"type_", "synchronous"}}, t0, t0 + 5,
                          {request(t0 + 1, t0 + 1.1, t0 + 1.5, t0 + 1.5, 10, 5)});
    json bad = good;
    bad["requests"]["successful"][0].erase("request_end_time");
    bad["requests"]["successful"][0]["info"]["timings"].erase("request_end");
    try {
        import(report({good, bad}));
        FAIL() << "imported";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(
                      "benchmarks[1].requests.successful[0].request_end_time: missing"),
                  std::string::npos)
            << e.what();
    }
    json backwards = good;
    backwards["requests"]["successful"][0]["info"]["timings"]["last_token_iteration"] = t0 + 1.0;
    EXPECT_THROW(import(report({backwards})), std::runtime_error);
    json ancient = good;
    ancient["start_time"] = -5;
    EXPECT_THROW(import(report({ancient})), std::runtime_error);
    EXPECT_TRUE(listRuns(store).empty());
}

TEST_F(GuidellmImport, OtherJsonIsNotAGuidellmReport) {
    EXPECT_FALSE(isGuidellmReport("{\"benchmarks\": []}"));
    EXPECT_FALSE(isGuidellmReport("{\"benchmarks\": [{\"type_\": \"other\"}]}"));
    EXPECT_FALSE(isGuidellmReport(testing::readFile(testing::dataFile("vllm_result.json"))));
    EXPECT_FALSE(isGuidellmReport("not json"));
}

}  // namespace
}  // namespace ws
