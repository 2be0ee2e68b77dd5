// GPU metric samples summarised over stretches of the timeline: each sample
// weighs the time it shares with the stretch, overlapping stretches count
// once, and the per-kernel and per-range groups read the run's own records.
#include <gtest/gtest.h>

#include "analysis/gpu_metric_summary.h"
#include "report/report_data.h"
#include "report/report_writer.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

constexpr const char* kSm = "sm__cycles_active.avg.pct_of_peak_sustained_elapsed";

// 100 µs samples from 0: value 10 for the first five, 90 for the next five.
GpuMetricSeries stepSeries(std::uint32_t device = 0) {
    GpuMetricSeries s{device, kSm, {}};
    for (int i = 0; i < 10; ++i)
        s.samples.push_back({i * 100'000LL, (i + 1) * 100'000LL, i < 5 ? 10.0 : 90.0});
    return s;
}

TEST(GpuMetricSummary, SamplesWeighTheTimeTheyShareWithTheStretch) {
    // 450..650 µs: 50 µs of a 10 sample, 150 µs of 90 samples.
    auto stats = summarizeGpuMetrics({stepSeries()}, {{450'000, 650'000}});
    ASSERT_EQ(stats.size(), 1u);
    EXPECT_EQ(stats[0].samples, 3);
    EXPECT_EQ(stats[0].overlapNs, 200'000);
    EXPECT_DOUBLE_EQ(stats[0].mean, (10.0 * 50 + 90.0 * 150) / 200);
    EXPECT_DOUBLE_EQ(stats[0].p50, 90);
    EXPECT_DOUBLE_EQ(stats[0].max, 90);
    EXPECT_DOUBLE_EQ(stats[0].spanShare, 200.0 / 300);
}

TEST(GpuMetricSummary, OverlappingStretchesCountOnceAndOtherGpusStayOut) {
    // Two kernels on two streams over the same 100 µs, and one on GPU 1.
    auto stats = summarizeGpuMetrics({stepSeries(0), stepSeries(1)},
                                     {{0, 100'000}, {50'000, 100'000}, {900'000, 1'000'000}}, 0u);
    ASSERT_EQ(stats.size(), 1u);
    EXPECT_EQ(stats[0].deviceIndex, 0u);
    EXPECT_EQ(stats[0].overlapNs, 200'000);
    EXPECT_DOUBLE_EQ(stats[0].mean, 50);
    EXPECT_DOUBLE_EQ(stats[0].p50, 10);  // half the weight at 10: the lower one
    EXPECT_DOUBLE_EQ(stats[0].p99, 90);
}

TEST(GpuMetricSummary, NothingInsideTheStretchGivesNoRow) {
    EXPECT_TRUE(summarizeGpuMetrics({stepSeries()}, {{2'000'000, 3'000'000}}).empty());
    EXPECT_TRUE(summarizeGpuMetrics({stepSeries()}, {}).empty());
}

TEST(GpuMetricReport, GroupsByKernelNameOnItsGpuAndByRangeName) {
    testing::TempDir dir;
    Store store(dir.file("g.wsdb"));
    RunId run = store.beginRun({});
    {
        StoreWriter w(store, run);
        w.add(stepSeries());
        KernelRecord k;
        k.deviceId = 0;
        k.streamId = 7;
        k.name = "busy";
        for (int i = 0; i < 4; ++i) {  // 600..1000 µs: the 90 stretch
            k.startNs = 600'000 + i * 100'000LL;
            k.endNs = k.startNs + 100'000;
            k.correlationId = static_cast<std::uint32_t>(i + 1);
            w.add(k);
        }
        k.name = "idle";
        k.startNs = 0;
        k.endNs = 100'000;
        k.correlationId = 9;
        w.add(k);
        RangeRecord r;
        r.name = "decode_step";
        r.startNs = 0;
        r.endNs = 500'000;
        w.add(r);
    }
    auto byKernel = gpuMetricReport(store, run, GpuMetricGrouping::Kernel, 10);
    ASSERT_EQ(byKernel.groups.size(), 2u);
    EXPECT_EQ(byKernel.samplePeriodNs, 100'000);
    EXPECT_EQ(byKernel.groups[0].name, "busy");  // longest first
    EXPECT_EQ(byKernel.groups[0].count, 4);
    EXPECT_EQ(byKernel.groups[0].totalNs, 400'000);
    EXPECT_DOUBLE_EQ(byKernel.groups[0].stats.at(0).mean, 90);
    EXPECT_DOUBLE_EQ(byKernel.groups[1].stats.at(0).mean, 10);
    EXPECT_EQ(gpuMetricReport(store, run, GpuMetricGrouping::Kernel, 1).groups.size(), 1u);
    // One kernel alone (the kernel details panel): the same group.
    auto busy = gpuMetricsOfKernel(store, run, "busy", 0);
    ASSERT_TRUE(busy);
    EXPECT_EQ(busy->count, 4);
    EXPECT_EQ(busy->totalNs, 400'000);
    EXPECT_DOUBLE_EQ(busy->stats.at(0).mean, 90);
    EXPECT_FALSE(gpuMetricsOfKernel(store, run, "busy", 1));

    auto byRange = gpuMetricReport(store, run, GpuMetricGrouping::Range, 10);
    ASSERT_EQ(byRange.groups.size(), 1u);
    EXPECT_EQ(byRange.groups[0].name, "decode_step");
    EXPECT_DOUBLE_EQ(byRange.groups[0].stats.at(0).mean, 10);

    auto whole = gpuMetricReport(store, run, GpuMetricGrouping::Run, 10);
    ASSERT_EQ(whole.groups.size(), 1u);
    EXPECT_DOUBLE_EQ(whole.groups[0].stats.at(0).mean, 50);
}

// A run recorded with --gpu-metrics: its report has a GPU metrics section
// with the window's means and each top kernel's, in the units a user reads.
TEST(GpuMetricReport, TheReportShowsTheWindowAndTheTopKernels) {
    testing::TempDir dir;
    Store store(dir.file("r.wsdb"));
    RunId run = store.beginRun({});
    {
        StoreWriter w(store, run);
        w.add(stepSeries());
        GpuMetricSeries dram{0, "dram__bytes_read.sum.per_second", {}};
        for (int i = 0; i < 10; ++i)
            dram.samples.push_back({i * 100'000LL, (i + 1) * 100'000LL, 2.0e12});
        w.add(dram);
        KernelRecord k;
        k.name = "busy";
        k.startNs = 600'000;
        k.endNs = 1'000'000;
        k.correlationId = 1;
        w.add(k);
    }
    store.finishRun(run, RunStatus::Ok);
    const auto md = writeReport(buildReport(store, run), ReportFormat::Markdown);
    EXPECT_NE(md.find("## GPU metrics"), std::string::npos) << md;
    EXPECT_NE(md.find("| SM active | 0 | 50.0 % | 90.0 % | 90.0 % |"), std::string::npos) << md;
    // The default set's order: SM active before DRAM read.
    EXPECT_LT(md.find("| SM active |"), md.find("| DRAM read |")) << md;
    EXPECT_NE(md.find("| kernel | time | SM active % | DRAM read GB/s |"), std::string::npos) << md;
    EXPECT_NE(md.find("| busy | 400 µs | 90.0 | 2000.0 |"), std::string::npos) << md;

    // Without samples, no section.
    RunId plain = store.beginRun({});
    store.finishRun(plain, RunStatus::Ok);
    EXPECT_EQ(writeReport(buildReport(store, plain), ReportFormat::Markdown).find("GPU metrics"),
              std::string::npos);
}

}  // namespace
}  // namespace ws
