#include <gtest/gtest.h>

#include "analysis/kernel_summary.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "support/fixture_store.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

TEST(KernelSummary, DemanglesAndShortensNames) {
    EXPECT_EQ(demangle("_Z11fill_kernelPffi"), "fill_kernel(float*, float, int)");
    EXPECT_EQ(shortKernelName(demangle("_Z11fill_kernelPffi")), "fill_kernel");
    EXPECT_EQ(shortKernelName("void at::native::elementwise_kernel<128, 4, at::Foo<int> >(int, "
                              "at::Foo<int>)"),
              "elementwise_kernel");
    EXPECT_EQ(
        shortKernelName("void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::("
                        "anonymous namespace)::OpaqueType<2u>, unsigned int, 4, 64, 64>(int)"),
        "CatArrayBatchedCopy");
    EXPECT_EQ(demangle("add_kernel"), "add_kernel");  // Triton names are not mangled
    EXPECT_EQ(shortKernelName("add_kernel"), "add_kernel");
}

TEST(KernelSummary, UnionOfIntervals) {
    EXPECT_EQ(unionLength({{0, 10}, {5, 15}, {20, 30}, {29, 31}}), 26);
    EXPECT_EQ(unionLength({}), 0);
}

TEST(KernelSummary, HandComputedRun) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto run = store.beginRun({});
    {
        StoreWriter w(store, run);
        auto kernel = [&](std::int64_t start, std::int64_t dur, const char* name,
                          std::uint32_t corr) {
            KernelRecord k;
            k.startNs = start;
            k.endNs = start + dur;
            k.name = name;
            k.correlationId = corr;
            w.add(k);
        };
        kernel(100, 10, "_Z1av", 1);
        kernel(120, 30, "_Z1av", 2);
        kernel(200, 60, "_Z1bv", 3);
        MemcpyRecord m;
        m.startNs = 300;
        m.endNs = 400;
        m.bytes = 1000;
        m.kind = MemcpyKind::HtoD;
        w.add(m);
        // Range "step" [90, 150) on thread 1 holds the launches of kernels 1 and 2.
        w.add(RangeRecord{90, 150, 1, 1, "step", "d", RangeKind::PushPop, 0, 0});
        w.add(ApiCallRecord{95, 98, 1, 1, 1, ApiKind::Runtime, 0, "cudaLaunchKernel", 0});
        w.add(ApiCallRecord{110, 112, 1, 1, 2, ApiKind::Runtime, 0, "cudaLaunchKernel", 0});
        w.add(ApiCallRecord{160, 162, 1, 1, 3, ApiKind::Runtime, 0, "cudaLaunchKernel", 0});
    }
    auto s = summarizeRun(store, run);
    ASSERT_EQ(s.kernels.size(), 2u);
    EXPECT_EQ(s.kernels[0].name, "b");  // 60 ns beats 40 ns
    EXPECT_EQ(s.kernels[1].name, "a");
    EXPECT_EQ(s.kernels[1].time.count, 2);
    EXPECT_DOUBLE_EQ(s.kernels[1].time.meanNs, 20);
    EXPECT_DOUBLE_EQ(s.kernels[1].time.stdNs, 10);
    EXPECT_DOUBLE_EQ(s.kernels[0].timePercent, 60);
    ASSERT_EQ(s.memcpys.size(), 1u);
    EXPECT_DOUBLE_EQ(s.memcpys[0].gbPerS, 10);  // 1000 B in 100 ns
    EXPECT_EQ(s.gpuSpanNs, 300);                // 100 .. 400
    EXPECT_EQ(s.gpuBusyNs, 200);                // 10 + 30 + 60 + 100
    ASSERT_EQ(s.ranges.size(), 1u);
    EXPECT_DOUBLE_EQ(s.ranges[0].kernelTimeNs, 40);  // kernels 1 and 2, launched inside
    EXPECT_DOUBLE_EQ(s.ranges[0].gpuBusyNs, 40);     // [100,110) and [120,150)
}

}  // namespace
}  // namespace ws
