// A profiler's folder of traces, one per rank (vLLM's torch_profiler_dir),
// becomes one run: each rank's times on the first file's clock, a rank that
// saw its only GPU as 0 renumbered, engine steps from the first file only.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/engine_steps.h"
#include "io/trace_import.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

using nlohmann::json;
using testing::TempDir;

constexpr std::int64_t kBase = 1'790'857'026'000'000'000;  // ns, as Kineto rounds it

// A rank's trace as torch.profiler writes it: baseTimeNanoseconds before
// traceEvents, ts in µs after it; the rank's process saw one GPU, id 0.
// `skewUs` moves its base later and its ts earlier by as much: the same
// moments on another base.
json rankTrace(int pid, std::int64_t skewUs) {
    json events = json::array();
    for (int i = 0; i < 3; ++i) {
        double t = 1000.0 * i - static_cast<double>(skewUs);
        events.push_back({{"ph", "X"},
                          {"cat", "user_annotation"},
                          {"name", "execute_context_0(0)_generation_4(4)"},
                          {"pid", pid},
                          {"tid", pid},
                          {"ts", 5'000'000.0 + t},
                          {"dur", 900}});
        events.push_back({{"ph", "X"},
                          {"cat", "kernel"},
                          {"name", "decode_attention"},
                          {"pid", 0},
                          {"tid", 7},
                          {"ts", 5'000'100.0 + t},
                          {"dur", 300},
                          {"args", {{"device", 0}, {"stream", 7}, {"correlation", i + 1}}}});
    }
    return {{"schemaVersion", 1},
            {"deviceProperties", {{{"id", 0}, {"name", "NVIDIA H100 80GB HBM3"}, {"numSms", 132}}}},
            {"baseTimeNanoseconds", kBase + skewUs * 1000},
            {"traceEvents", events}};
}

TEST(KinetoFolder, RanksAreOneRunOnTheFirstFilesClock) {
    TempDir dir;
    auto folder = dir.file("vllm_profile");
    std::filesystem::create_directory(folder);
    std::ofstream(folder + "/dp0_pp0_tp0_rank0.pt.trace.json") << rankTrace(851, 0).dump();
    std::ofstream(folder + "/dp0_pp0_tp1_rank1.pt.trace.json") << rankTrace(852, 2'000'000).dump();
    std::ofstream(folder + "/notes.json") << R"({"not": "a trace"})";
    auto file = readTraceFile(folder);
    ASSERT_EQ(file.format, TraceFormat::KinetoFolder);
    ASSERT_EQ(file.files.size(), 2u);

    Store store(dir.file("runs.wsdb"));
    auto result = importTrace(store, file, "");
    EXPECT_EQ(result.kernels, 6);
    std::map<std::uint32_t, std::vector<std::int64_t>> starts;  // GPU → kernel starts
    forEachKernel(store, result.run, {}, std::nullopt,
                  [&](const KernelRecord& k) { starts[k.deviceId].push_back(k.startNs); });
    ASSERT_EQ(starts.size(), 2u);  // rank 1's GPU 0 is GPU 1 here
    ASSERT_EQ(starts[0].size(), 3u);
    std::sort(starts[0].begin(), starts[0].end());
    std::sort(starts[1].begin(), starts[1].end());
    EXPECT_EQ(starts[0], starts[1]);                         // the same moments, on one clock
    EXPECT_EQ(engineStepsOf(store, result.run).size(), 3u);  // rank 0's, not each rank's
    auto log = runLog(store, result.run);
    EXPECT_NE(log.find("2 trace files as one run"), std::string::npos) << log;
    EXPECT_NE(log.find("saw its GPU as 0, as an earlier rank did: GPU 1 here"), std::string::npos)
        << log;
    EXPECT_EQ(requireRun(store, result.run).startedAtNs, kBase + 5'000'000'000);
}

TEST(KinetoFolder, AFolderWithoutTracesIsNamed) {
    TempDir dir;
    std::ofstream(dir.file("notes.json")) << R"({"not": "a trace"})";
    try {
        readTraceFile(dir.path().string());
        FAIL() << "a folder without traces was taken";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("one of PyTorch profiler traces"), std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace ws
