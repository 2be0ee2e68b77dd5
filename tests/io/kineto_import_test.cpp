// A PyTorch profiler trace becomes a run. The fixture is a real trace written
// on the H200 by scripts/gpu/torch_profiler_trace.py (torch 2.11, CUDA 13):
// a small Llama generating 6 tokens inside ws.request / ws.token ranges.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "analysis/kernel_summary.h"
#include "analysis/run_latency.h"
#include "io/kineto_import.h"
#include "io/trace_import.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

using testing::TempDir;

std::map<std::string, int> countByCategory(const nlohmann::json& events) {
    std::map<std::string, int> n;
    for (const auto& e : events)
        if (e.value("ph", "") == "X") ++n[e.value("cat", "")];
    return n;
}

TEST(KinetoImport, RealH200TraceBecomesARunWithTokens) {
    TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto path = testing::dataFile("kineto_llama_h200.json");
    auto file = readTraceFile(path);
    ASSERT_EQ(file.format, TraceFormat::KinetoTrace);
    auto result = importTrace(store, file, "torch eager");
    auto doc = nlohmann::json::parse(file.text);
    auto expected = countByCategory(doc["traceEvents"]);

    auto run = requireRun(store, result.run);
    EXPECT_EQ(run.label, "torch eager");
    EXPECT_EQ(run.status, RunStatus::Ok);
    auto agg = runAggregates(store, result.run);
    EXPECT_EQ(agg.kernelCount, expected["kernel"]);
    EXPECT_EQ(agg.memcpyCount, expected["gpu_memcpy"]);
    EXPECT_EQ(agg.memsetCount, expected["gpu_memset"]);
    EXPECT_EQ(agg.apiCallCount, expected["cuda_runtime"] + expected["cuda_driver"]);
    EXPECT_EQ(agg.rangeCount, expected["cpu_op"] + expected["user_annotation"]);
    EXPECT_EQ(agg.overheadCount, expected["overhead"]);
    EXPECT_EQ(result.kernels, expected["kernel"]);

    // The trace's clock: ts in µs relative to baseTimeNanoseconds.
    double firstTs = 1e300;
    for (const auto& e : doc["traceEvents"])
        if (e.value("ph", "") == "X" && e["ts"].is_number())
            firstTs = std::min(firstTs, e["ts"].get<double>());
    std::int64_t expectedStart = doc["baseTimeNanoseconds"].get<std::int64_t>() +
                                 static_cast<std::int64_t>(firstTs * 1000.0);
    EXPECT_NEAR(static_cast<double>(run.startedAtNs), static_cast<double>(expectedStart), 1000.0);

    auto device = runDevice(store, result.run);
    ASSERT_TRUE(device);
    EXPECT_EQ(device->name, "NVIDIA H200");
    EXPECT_EQ(device->ccMajor, 9);
    EXPECT_EQ(device->smCount, 132);
    EXPECT_EQ(device->maxWarpsPerSm, 64);
    EXPECT_EQ(device->cudaVersion, "13.0");

    // The pinned 16 KiB upload the script makes.
    bool upload = false;
    for (const auto& m : memcpysIn(store, result.run))
        upload = upload || (m.kind == MemcpyKind::HtoD && m.srcKind == MemoryKind::Pinned &&
                            m.dstKind == MemoryKind::Device && m.bytes == 16384);
    EXPECT_TRUE(upload);
    // Launch configuration survives, and kernels correlate with their launches.
    auto kernels = kernelsIn(store, result.run);
    ASSERT_FALSE(kernels.empty());
    EXPECT_GT(kernels[0].threadsPerBlock(), 1);
    std::set<std::uint32_t> launches;
    for (const auto& c : apiCallsIn(store, result.run))
        launches.insert(c.correlationId);
    for (const auto& k : kernels)
        EXPECT_TRUE(launches.count(k.correlationId)) << k.name;

    // record_function ranges following the token convention give TTFT/TPOT.
    auto requests = requestsOf(store, result.run);
    ASSERT_EQ(requests.size(), 1u);
    EXPECT_EQ(requests[0].promptTokens, 32);
    EXPECT_EQ(requests[0].outputTokens, 6);
    auto latency = runLatency(store, result.run, {});
    ASSERT_EQ(latency.ttftMs.size(), 1u);
    ASSERT_EQ(latency.tpotMs.size(), 1u);
    EXPECT_GT(latency.ttftMs[0], 0.0);
    EXPECT_GT(latency.tpotMs[0], 0.0);
    // The request spans its record_function range.
    for (const auto& e : doc["traceEvents"])
        if (e.value("cat", "") == "user_annotation" &&
            e.value("name", "") == "ws.request:0:prompt=32") {
            EXPECT_NEAR(static_cast<double>(requests[0].endNs - requests[0].startNs),
                        e["dur"].get<double>() * 1000.0, 1000.0);
        }

    auto summary = summarizeRun(store, result.run);
    ASSERT_FALSE(summary.kernels.empty());
    EXPECT_GT(summary.gpuBusyFraction, 0.0);
}

TEST(KinetoImport, BrokenEventIsNamedAndNothingIsAdded) {
    TempDir dir;
    Store store(dir.file("runs.wsdb"));
    std::string text = R"({"schemaVersion": 1, "traceEvents": [
        {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10.0, "dur": 1.0},
        {"ph": "X", "cat": "kernel", "name": "bad", "pid": 0, "tid": 7, "ts": "soon", "dur": 1.0}]})";
    ASSERT_TRUE(isKinetoTrace(text));
    try {
        importKinetoTrace(store, "trace.json", text, "");
        FAIL() << "a broken trace was imported";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(
                      "trace.json: traceEvents[1] (bad).ts: missing or not a number"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_TRUE(listRuns(store).empty());
    EXPECT_FALSE(isKinetoTrace(R"({"traceEvents": [{"ph": "X", "cat": "cpu"}]})"));
}

}  // namespace
}  // namespace ws
