// On a GPU: `warpscope-cli record` of the fixture program stores exactly the
// kernels and copies it launched. Skips without a GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <map>

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

}  // namespace
}  // namespace ws
