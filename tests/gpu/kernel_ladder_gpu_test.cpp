// Every rung of every ladder against its CPU reference on the GPU, at shapes
// that include ragged edges. Skips without a CUDA device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "ceilings/ceilings.h"
#include "common/device_buffer.h"
#include "common/timing.h"
#include "config/workload_config.h"
#include "ladders/ladder.h"
#include "model/ladder_catalog.h"

namespace ws::kernels {
namespace {

bool haveGpu() {
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

struct LadderParam {
    std::string kernel;
    Shape shape;
    std::vector<std::string> skip;  // rungs whose shape rules exclude this shape
};

class LadderGpuTest : public ::testing::TestWithParam<LadderParam> {};

TEST_P(LadderGpuTest, EveryRungMatchesTheCpuReference) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device";
    const auto& p = GetParam();
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    auto ladder = makeLadderCase(p.kernel, p.shape, 2, 42);
    for (const auto& rung : ladder->rungs()) {
        if (std::find(p.skip.begin(), p.skip.end(), rung) != p.skip.end()) continue;
        auto a = ladder->verify(rung, s);
        EXPECT_TRUE(a.ok(ladder->tolerance(rung)))
            << p.kernel << "/" << rung << ": max scaled error " << a.maxScaledError << ", "
            << a.nonFinite << " non-finite of " << a.compared;
        // The timed path (input copy 1) runs too.
        EXPECT_NO_THROW(ladder->run(rung, 1, s));
    }
    EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    cudaStreamDestroy(s);
}

INSTANTIATE_TEST_SUITE_P(
    Ladders, LadderGpuTest,
    ::testing::Values(
        LadderParam{"gemm_bf16", {{"m", 256}, {"n", 384}, {"k", 512}}, {}},
        LadderParam{"gemm_bf16", {{"m", 200}, {"n", 136}, {"k", 96}}, {"regblock"}},
        LadderParam{"gemv_bf16", {{"batch", 1}, {"n", 1000}, {"k", 2048}}, {}},
        LadderParam{"gemv_bf16", {{"batch", 5}, {"n", 777}, {"k", 4096}}, {}},
        LadderParam{"gemv_bf16", {{"batch", 16}, {"n", 512}, {"k", 1024}}, {}},
        LadderParam{"rmsnorm", {{"rows", 33}, {"cols", 4096}}, {}},
        // Rows longer than 32768 columns: clusters of 4, 2 and 4 blocks per row,
        // with 64 KiB, 50000-byte and again 64 KiB of shared memory a block: a
        // shape asked about before must still launch after a smaller one.
        LadderParam{"softmax", {{"rows", 2}, {"cols", 131072}}, {}},
        LadderParam{"softmax", {{"rows", 17}, {"cols", 50000}}, {}},
        LadderParam{"softmax", {{"rows", 3}, {"cols", 100000}}, {}},
        LadderParam{"softmax", {{"rows", 1}, {"cols", 131072}}, {}},
        LadderParam{"silu_mul", {{"rows", 9}, {"cols", 1000}}, {}},
        LadderParam{"rope", {{"tokens", 300}, {"heads", 6}, {"head_dim", 64}}, {}},
        LadderParam{
            "attention_decode",
            {{"batch", 3}, {"heads", 14}, {"kv_heads", 2}, {"head_dim", 64}, {"context", 1000}},
            {}},
        LadderParam{
            "attention_decode",
            {{"batch", 2}, {"heads", 32}, {"kv_heads", 8}, {"head_dim", 128}, {"context", 4097}},
            {}},
        LadderParam{
            "attention_prefill",
            {{"batch", 2}, {"heads", 8}, {"kv_heads", 2}, {"head_dim", 128}, {"tokens", 150}},
            {}},
        LadderParam{
            "attention_prefill",
            {{"batch", 1}, {"heads", 14}, {"kv_heads", 2}, {"head_dim", 64}, {"tokens", 64}},
            {}},
        LadderParam{"copy", {{"bytes", 1 << 20}}, {}}),
    [](const ::testing::TestParamInfo<LadderParam>& info) {
        return info.param.kernel + "_" + std::to_string(info.index);
    });

// Needs no GPU: what a workload config accepts is exactly what can run.
TEST(LadderNames, WorkloadConfigsAcceptEveryLadderAndNothingElse) {
    std::vector<std::string> accepted;
    for (const auto& spec : ws::ladderCatalog())
        accepted.push_back(spec.kernel);
    auto ladders = ladderNames();
    std::sort(accepted.begin(), accepted.end());
    std::sort(ladders.begin(), ladders.end());
    EXPECT_EQ(accepted, ladders);
}

TEST(LadderGpu, BadShapesAndRungsAreRefusedByName) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device";
    EXPECT_THROW(makeLadderCase("gemm_bf16", {{"q", 1}}, 1, 1), std::invalid_argument);
    EXPECT_THROW(makeLadderCase("nope", {}, 1, 1), std::invalid_argument);
    auto g = makeLadderCase("gemm_bf16", {{"m", 100}, {"n", 100}, {"k", 100}}, 1, 1);
    EXPECT_THROW(g->run("regblock", 0, nullptr), std::invalid_argument);
    EXPECT_THROW(g->run("wgmma", 0, nullptr), std::invalid_argument);
}

TEST(LadderGpu, GraphTimingMeasuresCapturableLaunchesAndRefusesOthers) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device";
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    DeviceBuffer<unsigned char> a(1 << 24), b(1 << 24);
    auto copy = [&](int) { copyKernel(a.get(), b.get(), a.size(), s); };
    double perLaunch = timeGraphLaunches(copy, 10, 3, s);
    EXPECT_GT(perLaunch, 0.0);
    EXPECT_LT(perLaunch, 10.0);  // ms for 16 MiB: a wrong count or unit shows here
    // A host synchronization cannot be captured: no figure, and the stream
    // is left usable.
    double refused = timeGraphLaunches(
        [&](int i) {
            copy(i);
            if (cudaStreamSynchronize(s) != cudaSuccess) throw std::runtime_error("not capturable");
        },
        2, 3, s);
    EXPECT_EQ(refused, 0.0);
    copy(0);
    EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    cudaStreamDestroy(s);
}

}  // namespace
}  // namespace ws::kernels
