// AIPerf's per-request export becomes a run whose TTFT and TPOT equal the
// figures AIPerf wrote per request (its ITL is our TPOT), with the chunks'
// times for ITL, the aggregate file's settings where it lies beside, and a
// bad record nothing at all.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/run_latency.h"
#include "io/aiperf_import.h"
#include "io/trace_import.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

using nlohmann::json;
using testing::TempDir;

constexpr std::int64_t t0 = 1'780'000'000'000'000'000;  // 2026-05-28, Unix ns

json ms(double value) {
    return {{"value", value}, {"unit", "ms"}};
}

json count(int value) {
    return {{"value", value}, {"unit", "tokens"}};
}

// A record as AIPerf writes it to profile_export.jsonl
// (common/models/record_models.py, MetricRecordInfo): metadata with wall-clock
// ns, metrics as {value, unit} in display units, its own per-request ITL.
json record(std::int64_t startNs, double ttftMs, std::vector<double> chunksMs, int osl,
            const char* phase = "profiling") {
    double latency = ttftMs;
    for (double c : chunksMs)
        latency += c;
    json metrics = {{"time_to_first_token", ms(ttftMs)},
                    {"request_latency", ms(latency)},
                    {"input_sequence_length", count(128)},
                    {"output_sequence_length", count(osl)},
                    {"inter_token_latency", ms((latency - ttftMs) / (osl - 1))}};
    if (!chunksMs.empty()) metrics["inter_chunk_latency"] = {{"value", chunksMs}, {"unit", "ms"}};
    return {{"metadata",
             {{"session_num", 0},
              {"request_start_ns", startNs},
              {"request_end_ns", startNs + static_cast<std::int64_t>(latency * 1e6) + 300'000},
              {"worker_id", "worker_0"},
              {"record_processor_id", "rp_0"},
              {"benchmark_phase", phase},
              {"was_cancelled", false}}},
            {"metrics", metrics},
            {"error", nullptr}};
}

class AiperfImport : public ::testing::Test {
  protected:
    ImportResult import(const std::vector<json>& records) {
        std::ofstream out(path);
        for (const auto& r : records)
            out << r.dump() << '\n';
        out.close();
        auto file = readTraceFile(path);
        EXPECT_EQ(file.format, TraceFormat::AiperfRecords);
        return importTrace(store, file, "");
    }
    TempDir dir;
    std::string path = dir.file("profile_export.jsonl");
    Store store{dir.file("runs.wsdb")};
};

TEST_F(AiperfImport, PerRequestFiguresEqualAiperfsAndChunksGiveItl) {
    auto failed = record(t0 + 3'000'000, 10, {}, 2);
    failed["metrics"] = {{"error_isl", count(128)}};
    failed["error"] = {{"code", 500}, {"type", "Internal Server Error"}, {"message", "boom"}};
    auto imported =
        import({record(t0 - 1'000'000'000, 5, {1, 1}, 3, "warmup"), record(t0, 40, {10, 12, 14}, 4),
                record(t0 + 2'000'000, 30, {20}, 2), failed});
    auto latency = runLatency(store, imported.run, {});
    ASSERT_EQ(latency.requests.size(), 2u);
    EXPECT_EQ(latency.failedRequests, 1);
    EXPECT_NEAR(latency.requests[0].ttftMs, 40, 1e-6);
    EXPECT_NEAR(*latency.requests[0].tpotMs, 12, 1e-6);  // AIPerf's inter_token_latency
    EXPECT_EQ(latency.requests[0].itlMs, (std::vector<double>{10, 12, 14}));
    EXPECT_EQ(latency.requests[0].promptTokens, 128);
    EXPECT_EQ(latency.requestsWithoutTokenTimes, 0);
    EXPECT_EQ(requireRun(store, imported.run).startedAtNs, t0);
    auto log = runLog(store, imported.run);
    EXPECT_NE(log.find("1 warm-up records left out"), std::string::npos) << log;
    EXPECT_NE(log.find("no profile_export_aiperf.json beside"), std::string::npos) << log;
    EXPECT_EQ(runProperties(store, imported.run)["client"], "AIPerf");
}

// Beside the records, the aggregate file gives the benchmark's duration, its
// concurrency, the model and AIPerf's own figures; a record without chunk
// times keeps its first and last token, and no ITL.
TEST_F(AiperfImport, TheAggregateFileBesideGivesDurationSettingAndOwnFigures) {
    json aggregate = {
        {"time_to_first_token", {{"unit", "ms"}, {"avg", 35.0}, {"p50", 35.0}, {"p99", 39.9}}},
        {"benchmark_duration", {{"unit", "sec"}, {"avg", 12.5}}},
        {"input_config",
         {{"endpoint", {{"model_names", {"Qwen/Qwen3-0.6B"}}}},
          {"loadgen", {{"concurrency", 8}}}}}};
    std::ofstream(dir.file("profile_export_aiperf.json")) << aggregate.dump();
    auto plain = record(t0, 40, {}, 5);
    plain["metrics"]["request_latency"] = ms(80);
    // Only the first of several tokens known: E2E to the request's end, so
    // TPOT is not a false 0.
    auto firstOnly = record(t0 + 1'000'000'000, 40, {}, 5);
    firstOnly["metrics"].erase("request_latency");
    firstOnly["metadata"]["request_end_ns"] = t0 + 1'000'000'000 + 120'000'000;
    auto imported = import({plain, firstOnly});
    auto run = requireRun(store, imported.run);
    EXPECT_EQ(run.label, "AIPerf Qwen/Qwen3-0.6B concurrency 8");
    auto latency = runLatency(store, imported.run, {});
    EXPECT_NEAR(latency.durationS, 12.5, 1e-9);
    ASSERT_EQ(latency.requests.size(), 2u);
    EXPECT_NEAR(*latency.requests[0].tpotMs, 10, 1e-6);  // (80 - 40) / (5 - 1)
    EXPECT_NEAR(*latency.requests[1].tpotMs, 20, 1e-6);  // (120 - 40) / (5 - 1)
    EXPECT_TRUE(latency.itlMs.empty());
    auto props = runProperties(store, imported.run);
    EXPECT_EQ(props["aiperf.time_to_first_token.p99"], "39.9");
    EXPECT_EQ(props["aiperf.concurrency"], "8");
}

// AIPerf's users point at its artifacts folder: the records in it are read.
TEST_F(AiperfImport, TheArtifactsFolderImportsItsRecords) {
    std::ofstream(path) << record(t0, 40, {10}, 2).dump() << '\n';
    auto file = readTraceFile(dir.path().string());
    EXPECT_EQ(file.format, TraceFormat::AiperfRecords);
    EXPECT_EQ(file.path, path);
    auto empty = dir.file("empty");
    std::filesystem::create_directory(empty);
    try {
        readTraceFile(empty);
        FAIL() << "an empty folder was taken";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("is a folder, not a file"), std::string::npos);
    }
}

TEST_F(AiperfImport, ABadRecordNamesItsLineAndFieldAndImportsNothing) {
    auto bad = record(t0, 40, {10, -1}, 3);
    try {
        import({record(t0, 40, {10}, 2), bad});
        FAIL() << "imported";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("line 2: metrics.inter_chunk_latency.value[1]"),
                  std::string::npos)
            << e.what();
    }
    auto seconds = record(t0, 40, {10}, 2);
    seconds["metrics"]["time_to_first_token"]["unit"] = "s";
    EXPECT_THROW(import({seconds}), std::runtime_error);
    EXPECT_THROW(import({record(t0, 40, {10}, 2, "warmup")}), std::runtime_error);
    EXPECT_TRUE(listRuns(store).empty());
    EXPECT_FALSE(isAiperfRecords("{\"metadata\": {}, \"metrics\": {}}"));
}

}  // namespace
}  // namespace ws
