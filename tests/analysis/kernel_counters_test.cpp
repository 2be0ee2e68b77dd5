// Hardware counters (record --metrics roofline) become FLOPs, DRAM bytes and
// achieved occupancy per kernel, and the roofline, summary and occupancy use them.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "analysis/kernel_counters.h"
#include "analysis/kernel_occupancy.h"
#include "analysis/kernel_summary.h"
#include "analysis/roofline.h"
#include "model/counter_metrics.h"
#include "report/report_data.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "support/fixture_store.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

TEST(CounterMetrics, FlopsCountFmaTwiceAndTensorOpsOnce) {
    auto k = counters::fromMetrics({{counters::kFadd, 10},
                                    {counters::kFmul, 20},
                                    {counters::kFfma, 30},
                                    {counters::kHfma, 5},
                                    {counters::kTensorBf16, 1000},
                                    {counters::kDramRead, 300},
                                    {counters::kDramWrite, 100},
                                    {counters::kAchievedOccupancy, 42.5}});
    ASSERT_TRUE(k);
    EXPECT_DOUBLE_EQ(k->fp32Flops, 10 + 20 + 60);
    EXPECT_DOUBLE_EQ(k->fp16Flops, 10);
    EXPECT_DOUBLE_EQ(k->tensorFlops, 1000);
    EXPECT_DOUBLE_EQ(k->flops(), 1100);
    EXPECT_DOUBLE_EQ(k->dramBytes, 400);
    EXPECT_DOUBLE_EQ(*k->achievedOccupancy, 0.425);
    EXPECT_FALSE(counters::fromMetrics({{"some__other.sum", 1}}));
    EXPECT_TRUE(k->flopsCounted);
    // A DRAM-only pass (--metrics dram) counts bytes and no FLOPs: not zero FLOPs.
    auto dram = counters::fromMetrics({{counters::kDramRead, 300}, {counters::kDramWrite, 100}});
    ASSERT_TRUE(dram);
    EXPECT_FALSE(dram->flopsCounted);
    EXPECT_DOUBLE_EQ(dram->dramBytes, 400);
}

KernelRecord kernel(std::int64_t start, std::int64_t ns, std::uint32_t corr, const char* name) {
    KernelRecord k;
    k.startNs = start;
    k.endNs = start + ns;
    k.correlationId = corr;
    k.name = name;
    k.blockX = 256;
    k.registersPerThread = 64;
    return k;
}

TEST(KernelCounters, MeansPerKernelFeedRooflineSummaryAndOccupancy) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto run = store.beginRun({});
    store.setDevice(run, testing::fixtureDevice());
    {
        StoreWriter w(store, run);
        // Two launches of a GEMM with counters (2 GFLOP tensor, 24 MB), one without.
        w.add(kernel(1000, 100'000, 1, "_Z4gemmv"));
        w.add(kernel(200'000, 100'000, 2, "_Z4gemmv"));
        w.add(kernel(400'000, 50'000, 3, "_Z4gemmv"));
        w.add(kernel(500'000, 10'000, 4, "_Z4copyv"));
        for (std::uint32_t corr : {1u, 2u}) {
            w.add(KernelMetricRecord{corr, counters::kTensorBf16, 2e9});
            w.add(KernelMetricRecord{corr, counters::kDramRead, 16e6});
            w.add(KernelMetricRecord{corr, counters::kDramWrite, 8e6});
            w.add(KernelMetricRecord{corr, counters::kAchievedOccupancy, corr == 1 ? 20.0 : 30.0});
        }
        w.add(KernelMetricRecord{4, counters::kDramRead, 20e6});
        w.add(KernelMetricRecord{4, counters::kDramWrite, 20e6});
    }
    store.finishRun(run, RunStatus::Ok);

    auto stats = kernelCounterStats(store, run);
    ASSERT_EQ(stats.size(), 2u);
    const auto& gemm = stats.at("_Z4gemmv");
    EXPECT_EQ(gemm.instances, 2);  // the launch without counters is not averaged in
    EXPECT_DOUBLE_EQ(gemm.meanFlops, 2e9);
    EXPECT_DOUBLE_EQ(gemm.meanDramBytes, 24e6);
    EXPECT_DOUBLE_EQ(gemm.meanNs, 100'000);
    EXPECT_DOUBLE_EQ(gemm.dramGBs(), 240);
    EXPECT_DOUBLE_EQ(*gemm.achievedOccupancy, 0.25);

    // A counter pass's own ceiling measurements ran under kernel replay: the
    // device table is used instead.
    store.setProperty(run, "capture.metrics", "roofline");
    store.setProperty(run, "ceiling.bf16_tflops", "1.2");
    auto roofline = computeRoofline(store, run);
    EXPECT_GT(roofline.ceilings.tensorTflops, 500);
    EXPECT_EQ(roofline.ceilings.tensorSource.find("measured"), std::string::npos);
    ASSERT_EQ(roofline.points.size(), 1u);  // the copy has no FLOPs: not on a roofline
    EXPECT_EQ(roofline.points[0].name, "gemm");
    EXPECT_EQ(roofline.points[0].origin, "counters");
    EXPECT_DOUBLE_EQ(roofline.points[0].tflops(), 20);  // 2 GFLOP in 100 µs
    EXPECT_NEAR(roofline.points[0].intensity(), 2e9 / 24e6, 1e-9);

    auto summary = summarizeRun(store, run);
    ASSERT_EQ(summary.kernels.size(), 2u);
    EXPECT_DOUBLE_EQ(*summary.kernels[0].dramGBs, 240);
    EXPECT_DOUBLE_EQ(*summary.kernels[0].tflops, 20);
    auto occupancy = topKernelOccupancy(store, run, summary, {});
    ASSERT_EQ(occupancy.size(), 2u);
    EXPECT_DOUBLE_EQ(*occupancy[0].achieved, 0.25);
    EXPECT_LE(*occupancy[0].achieved, occupancy[0].occupancy.occupancy);
    EXPECT_FALSE(occupancy[1].achieved);  // copy: bytes counted, occupancy not

    // The report says the run is a counter pass and where its DRAM bytes come from.
    store.setProperty(run, "capture.dram_source", "a one-pass rerun (3 kernels matched)");
    auto report = buildReport(store, run);
    EXPECT_TRUE(std::any_of(report.missing.begin(), report.missing.end(), [](const auto& m) {
        return m.find("--metrics roofline") != std::string::npos &&
               m.find("DRAM bytes from a one-pass rerun (3 kernels matched)") != std::string::npos;
    }));
}

TEST(RangeRoofline, KernelsPooledByTheRangeTheyWereLaunchedOrCapturedIn) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto run = store.beginRun({});
    store.setDevice(run, testing::fixtureDevice());
    {
        StoreWriter w(store, run);
        w.add(RangeRecord{0, 2'000, 1, 1, "layer", "", RangeKind::PushPop, 0, 0});
        w.add(RangeRecord{0, 1'000, 1, 1, "attention", "", RangeKind::PushPop, 0, 1});
        w.add(RangeRecord{1'000, 2'000, 1, 1, "mlp", "", RangeKind::PushPop, 0, 1});
        auto call = [&](std::int64_t at, std::uint32_t corr) {
            ApiCallRecord a;
            a.startNs = at;
            a.endNs = at + 10;
            a.processId = 1;
            a.threadId = 1;
            a.correlationId = corr;
            a.name = "cudaLaunchKernel";
            w.add(a);
        };
        call(100, 1);    // inside attention
        call(1'100, 2);  // inside mlp
        call(5'000, 3);  // outside every range
        call(9'000, 9);  // the graph launch, outside every range too
        w.add(kernel(10'000, 100'000, 1, "_Z4attnv"));
        w.add(kernel(200'000, 200'000, 2, "_Z3mlpv"));
        w.add(kernel(500'000, 200'000, 3, "_Z3mlpv"));
        // Replayed from a graph whose node was captured inside "mlp".
        auto replayed = kernel(800'000, 200'000, 9, "_Z3mlpv");
        replayed.graphNodeId = 77;
        w.add(replayed);
        GraphNodeRecord node;
        node.nodeId = 77;
        node.processId = 1;
        node.threadId = 1;
        node.timeNs = 1'500;
        w.add(node);
        w.add(KernelMetricRecord{1, counters::kTensorBf16, 1e9});
        w.add(KernelMetricRecord{1, counters::kDramRead, 1e6});
        w.add(KernelMetricRecord{1, counters::kAchievedOccupancy, 40.0});
        // Counters per launch: the replay's own (as a range-profiler user
        // replay would give it); the launch outside every range has none.
        for (std::uint32_t corr : {2u, 9u}) {
            w.add(KernelMetricRecord{corr, counters::kTensorBf16, 4e9});
            w.add(KernelMetricRecord{corr, counters::kDramRead, 8e6});
        }
    }
    store.finishRun(run, RunStatus::Ok);

    auto r = computeRangeRoofline(store, run);
    std::map<std::string, RooflinePoint> points;
    for (const auto& p : r.points)
        points[p.name] = p;
    ASSERT_EQ(points.size(), 2u);
    EXPECT_EQ(points["attention"].instances, 1);
    EXPECT_DOUBLE_EQ(points["attention"].flops, 1e9);
    EXPECT_DOUBLE_EQ(points["attention"].bytes, 1e6);
    ASSERT_TRUE(points["attention"].achievedOccupancy);
    EXPECT_DOUBLE_EQ(*points["attention"].achievedOccupancy, 0.4);
    // The launch inside "mlp" and the replay captured there.
    EXPECT_EQ(points["mlp"].instances, 2);
    EXPECT_DOUBLE_EQ(points["mlp"].flops, 4e9);
    EXPECT_DOUBLE_EQ(points["mlp"].intensity(), 500.0);
    EXPECT_FALSE(points["mlp"].achievedOccupancy);
    ASSERT_TRUE(points["mlp"].theoreticalOccupancy);
    EXPECT_GT(*points["mlp"].theoreticalOccupancy, 0.0);
    EXPECT_LE(*points["mlp"].theoreticalOccupancy, 1.0);
    // Its own counters or none: the uncounted launch is no point, and said.
    EXPECT_FALSE(points.count("(outside any range)"));
    EXPECT_NE(r.notes.back().find("29 % of kernel time has no counted FLOPs"), std::string::npos)
        << r.notes.back();
    double shares = 0;
    for (const auto& p : r.points)
        shares += p.timeShare;
    EXPECT_NEAR(shares, 1.0, 1e-12);
    EXPECT_NE(r.notes.front().find("captured: 1 launches"), std::string::npos) << r.notes.front();

    // Without counters there is nothing to place, and the note says why.
    auto bare = store.beginRun({});
    {
        StoreWriter w(store, bare);
        w.add(kernel(0, 10, 1, "_Z4attnv"));
    }
    store.finishRun(bare, RunStatus::Ok);
    auto none = computeRangeRoofline(store, bare);
    EXPECT_TRUE(none.points.empty());
    ASSERT_FALSE(none.notes.empty());
    EXPECT_NE(none.notes.front().find("record --metrics roofline"), std::string::npos);
}

}  // namespace
}  // namespace ws
