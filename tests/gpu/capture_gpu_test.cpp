// On a GPU: `warpscope-cli record` of the fixture program stores exactly the
// kernels and copies it launched. Skips without a GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "analysis/kernel_counters.h"
#include "analysis/pc_sample_summary.h"
#include "model/pc_sampling.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "support/run_process.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

bool haveGpu() {
    return ::access("/dev/nvidia0", F_OK) == 0 || ::access("/dev/nvidiactl", F_OK) == 0;
}

TEST(CaptureGpu, FixtureRowsMatchCountForCount) {
    if (!haveGpu()) GTEST_SKIP() << "no NVIDIA GPU on this machine";
    testing::TempDir dir;
    auto db = dir.file("capture.wsdb");
    auto r = testing::runProcess({WARPSCOPE_CLI_PATH, "record", "--db", db, "--progress", "none",
                                  "--", WARPSCOPE_FIXTURE_PATH, "fixture"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    Store store(db);
    auto runs = listRuns(store);
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].status, RunStatus::Ok);
    EXPECT_EQ(runs[0].device.substr(0, 6), "NVIDIA");
    std::map<std::string, std::vector<KernelRecord>> byName;
    for (const auto& k : kernelsIn(store, runs[0].id))
        for (const char* n : {"fill_kernel", "stencil_kernel", "reduce_kernel"})
            if (k.name.find(n) != std::string::npos) byName[n].push_back(k);
    ASSERT_EQ(byName["fill_kernel"].size(), 10u);
    ASSERT_EQ(byName["stencil_kernel"].size(), 5u);
    ASSERT_EQ(byName["reduce_kernel"].size(), 3u);
    const auto& s = byName["stencil_kernel"][0];
    EXPECT_EQ(std::tie(s.gridX, s.gridY, s.gridZ), std::make_tuple(32, 2, 1));
    EXPECT_EQ(s.blockX, 128);
    EXPECT_EQ(s.staticSharedBytes, 1024);
    EXPECT_EQ(s.dynamicSharedBytes, 4096);
    EXPECT_GT(s.registersPerThread, 0);
    auto streamA = byName["fill_kernel"][0].streamId, streamB = s.streamId;
    EXPECT_NE(streamA, streamB);
    EXPECT_EQ(byName["reduce_kernel"][0].streamId, streamA);
    std::map<std::pair<MemcpyKind, std::int64_t>, int> copies;
    for (const auto& m : memcpysIn(store, runs[0].id))
        ++copies[{m.kind, m.bytes}];
    EXPECT_EQ((copies[{MemcpyKind::HtoD, 1 << 20}]), 1);
    EXPECT_EQ((copies[{MemcpyKind::DtoD, 2 << 20}]), 2);
    EXPECT_EQ((copies[{MemcpyKind::DtoH, 4 << 20}]), 1);
    EXPECT_EQ(memsetsIn(store, runs[0].id).size(), 1u);
    EXPECT_EQ(tokensOf(store, runs[0].id).size(), 4u);
    auto device = runDevice(store, runs[0].id);
    ASSERT_TRUE(device);
    EXPECT_GT(device->smCount, 0);
    EXPECT_GT(device->reservedSmemPerBlock, 0);
}

// record --capture-range cudaProfilerApi: only what ran between
// cudaProfilerStart and Stop is stored, every window is a "capture range"
// range, and one still open at exit ends there.
TEST(CaptureGpu, CaptureRangeKeepsOnlyTheProfilerStartStopWindows) {
    if (!haveGpu()) GTEST_SKIP() << "no NVIDIA GPU on this machine";
    testing::TempDir dir;
    auto db = dir.file("windows.wsdb");
    auto r = testing::runProcess({WARPSCOPE_CLI_PATH, "record", "--db", db, "--progress", "none",
                                  "--capture-range", "cudaProfilerApi", "--",
                                  WARPSCOPE_FIXTURE_PATH, "windows"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    Store store(db);
    const RunId run = listRuns(store).at(0).id;
    int inside = 0, outside = 0;
    for (const auto& k : kernelsIn(store, run)) {
        inside += k.name.find("inside_kernel") != std::string::npos;
        outside += k.name.find("outside_kernel") != std::string::npos;
    }
    EXPECT_EQ(inside, 14);
    EXPECT_EQ(outside, 0);
    std::vector<RangeRecord> windows;
    for (const auto& range : rangesIn(store, run))
        if (range.name == "capture range" && range.domain == "Warpscope") windows.push_back(range);
    ASSERT_EQ(windows.size(), 3u);
    int copies = 0;
    for (const auto& m : memcpysIn(store, run)) {
        ++copies;
        bool inAWindow = false;
        for (const auto& w : windows)
            inAWindow |= m.startNs >= w.startNs && m.endNs <= w.endNs;
        EXPECT_TRUE(inAWindow) << "a copy at " << m.startNs << " outside every window";
    }
    EXPECT_EQ(copies, 1);
    for (const auto& k : kernelsIn(store, run)) {
        bool inAWindow = false;
        for (const auto& w : windows)
            inAWindow |= k.startNs >= w.startNs && k.startNs <= w.endNs;
        EXPECT_TRUE(inAWindow) << k.name << " at " << k.startNs << " outside every window";
    }
    // API calls too, but the profiler calls themselves (a stop is entered
    // traced): none begun before a window opened, none after it closed.
    int calls = 0;
    for (const auto& a : apiCallsIn(store, run)) {
        if (a.name.find("ProfilerSt") != std::string::npos) continue;
        ++calls;
        bool inAWindow = false;
        for (const auto& w : windows)
            inAWindow |= a.startNs >= w.startNs && a.startNs <= w.endNs;
        EXPECT_TRUE(inAWindow) << a.name << " at " << a.startNs << " outside every window";
    }
    EXPECT_GE(calls, 14);  // at least the 14 launches
    EXPECT_EQ(runProperties(store, run)["capture.range"], "cudaProfilerApi");
}

// record --metrics roofline on the GEMM ladder: each rung's counted FP32 and
// tensor-core FLOPs are 2·M·N·K within 2%, and every kernel has a place and a
// duration on the timeline although kernel replay gives it no timestamps.
TEST(CaptureGpu, CountedGemmFlopsAreTwoMnkWithinTwoPercent) {
    if (!haveGpu()) GTEST_SKIP() << "no NVIDIA GPU on this machine";
    testing::TempDir dir;
    auto config = dir.file("gemm.toml");
    testing::writeFile(config, R"(name = "gemm-2048-counters"
kind = "kernel"
[kernel]
name = "gemm_bf16"
rung = "all"
shape = { m = 2048, n = 2048, k = 2048 }
iterations = 1
warmup = 0
)");
    auto db = dir.file("counters.wsdb");
    auto r = testing::runProcess({WARPSCOPE_CLI_PATH, "record", "--db", db, "--progress", "none",
                                  "--metrics", "roofline", "--workload", config});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    Store store(db);
    auto run = listRuns(store).at(0).id;
    EXPECT_EQ(runProperties(store, run)["capture.metrics"], "roofline");
    const double twoMnk = 2.0 * 2048 * 2048 * 2048;
    int gemms = 0;
    for (const auto& [name, c] : kernelCounterStats(store, run)) {
        if (name.find("fill") != std::string::npos) continue;  // input set-up kernels
        ++gemms;
        double counted = c.meanFp32Flops + c.meanTensorFlops;
        EXPECT_NEAR(counted / twoMnk, 1.0, 0.02) << name;
        EXPECT_GT(c.meanDramBytes, 12e6) << name;  // A, B and C hold 24 MiB
        EXPECT_GT(c.meanNs, 0) << name;
        ASSERT_TRUE(c.achievedOccupancy) << name;
        EXPECT_GT(*c.achievedOccupancy, 0.0) << name;
    }
    EXPECT_GE(gemms, 6);  // naive, tiled, regblock, mma, mma_wide, cuBLAS
    for (const auto& k : kernelsIn(store, run))
        EXPECT_GT(k.startNs, 0) << k.name;  // placed at its launch call
}

// record --pc-sampling on the split-KV MMA decode attention (built with
// -lineinfo): samples land in the kernel, every reason CUPTI names is one we
// describe, and its hottest lines are in its own source file. On an H100
// (2026-12-07) Long Scoreboard held 60 % of its samples, 59 % at one line.
TEST(CaptureGpu, PcSamplingSaysWhereDecodeAttentionStalls) {
    if (!haveGpu()) GTEST_SKIP() << "no NVIDIA GPU on this machine";
    testing::TempDir dir;
    auto config = dir.file("attention.toml");
    testing::writeFile(config, R"(name = "attention-pc"
kind = "kernel"
[kernel]
name = "attention_decode"
rung = "splitkv_mma"
shape = { batch = 8, context = 4096 }
iterations = 20
warmup = 3
)");
    auto db = dir.file("pc.wsdb");
    auto r = testing::runProcess({WARPSCOPE_CLI_PATH, "record", "--db", db, "--progress", "none",
                                  "--pc-sampling", "--workload", config});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    Store store(db);
    auto run = listRuns(store).at(0).id;
    EXPECT_GT(std::stoll(runProperties(store, run)[pc_sampling::kSamples]), 0);
    auto kernels = summarizePcSamples(pcSamplesOf(store, run));
    ASSERT_FALSE(kernels.empty());
    const auto& top = kernels.front();
    EXPECT_NE(top.function.find("decodeSplitMma"), std::string::npos) << top.function;
    EXPECT_GT(top.samples, 10000);
    for (const auto& reason : top.reasons)
        EXPECT_FALSE(pc_sampling::describeStallReason(reason.reason).hint.empty()) << reason.reason;
    ASSERT_FALSE(top.lines.empty());
    EXPECT_NE(top.lines.front().sourceFile.find("decode_attention_mma.cu"), std::string::npos)
        << top.lines.front().sourceFile;
    // With the CUDA toolkit's nvdisasm where it ran: each hot instruction's SASS.
    if (std::filesystem::exists("/usr/local/cuda/bin/nvdisasm")) {
        for (const auto& i : top.instructions)
            EXPECT_FALSE(i.sass.empty()) << std::hex << i.pcOffset;
    }
    EXPECT_GE(std::stod(runProperties(store, run)[pc_sampling::kHostMs]), 0.0);
}

}  // namespace
}  // namespace ws
