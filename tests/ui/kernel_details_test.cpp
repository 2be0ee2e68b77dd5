// The details of a clicked kernel include its hardware counters when the run
// was recorded with --metrics.
#include <gtest/gtest.h>

#include "model/counter_metrics.h"
#include "viewmodels/run_details_html.h"
#include "viewmodels/store_loader.h"

namespace ws::ui {
namespace {

TEST(KernelDetailsHtml, CountersWhenRecordedAndNothingOtherwise) {
    KernelDetails d;
    d.run = 11;
    d.kernel.name = "_Z4gemmv";
    d.kernel.startNs = 1000;
    d.kernel.endNs = 1000 + 100'000;  // 100 µs
    d.kernel.blockX = 256;
    QString without = kernelDetailsHtml(d);
    EXPECT_FALSE(without.contains("Hardware counters"));
    d.metrics = {{counters::kTensorBf16, 17.18e9},
                 {counters::kDramRead, 16e6},
                 {counters::kDramWrite, 8e6},
                 {counters::kAchievedOccupancy, 22.5}};
    QString with = kernelDetailsHtml(d);
    EXPECT_TRUE(with.contains("Hardware counters")) << with.toStdString();
    EXPECT_TRUE(with.contains("17.180 G (FP32 0.000 G, FP16 0.000 G, tensor 17.180 G)"));
    EXPECT_TRUE(with.contains("24.00 MB, 240 GB/s"));
    EXPECT_TRUE(with.contains("171.80 TFLOP/s"));
    EXPECT_TRUE(with.contains("22.5%"));
}

// A run recorded with --gpu-metrics: this launch's sampled means beside those
// over every launch of the kernel, and a note when the launch filled only
// part of the samples around it.
TEST(KernelDetailsHtml, GpuMetricsOfTheLaunchAndOfAllItsLaunches) {
    KernelDetails d;
    d.kernel.name = "copyKernel";
    EXPECT_FALSE(kernelDetailsHtml(d).contains("GPU metrics"));
    GpuMetricStats launch;
    launch.metric = "dram__bytes_read.sum.per_second";
    launch.mean = 3.1e12;
    launch.spanShare = 1;
    d.gpuMetrics = {launch};
    GpuMetricGroup all;
    all.count = 4000;
    all.stats = {launch};
    all.stats[0].mean = 3.0e12;
    d.gpuMetricsAllLaunches = all;
    QString html = kernelDetailsHtml(d);
    EXPECT_TRUE(html.contains("GPU metrics (sampled)")) << html.toStdString();
    EXPECT_TRUE(html.contains("DRAM read")) << html.toStdString();
    EXPECT_TRUE(html.contains("3100.0 GB/s · all 4000 launches 3000.0 GB/s")) << html.toStdString();
    EXPECT_FALSE(html.contains("mix in"));
    d.gpuMetrics[0].spanShare = 0.05;
    EXPECT_TRUE(kernelDetailsHtml(d).contains("filled 5% of the samples"));
}

// A run recorded with --pc-sampling: the stall reasons as a bar and a list
// with what each means, and the hottest lines, or instructions when the
// kernel has no line information.
TEST(KernelDetailsHtml, WhereItsWarpsStall) {
    KernelDetails d;
    d.kernel.name = "attn";
    EXPECT_FALSE(kernelDetailsHtml(d).contains("Where its warps stall"));
    d.pcSampled = true;  // a sampled run, but nothing landed in this kernel
    EXPECT_TRUE(kernelDetailsHtml(d).contains("ran too briefly for the sampling period"));
    d.stallBufferFull = true;  // the kernel ran after CUPTI stopped sampling
    EXPECT_TRUE(kernelDetailsHtml(d).contains("hardware buffer filled during the run"));
    d.stalls = stallsOfKernel({{"attn", 0x100, "smsp__pcsamp_warps_issue_stalled_long_scoreboard",
                                700, "/src/kernels/attention.cu", 118, ""},
                               {"attn", 0x180, "smsp__pcsamp_warps_issue_stalled_barrier", 200,
                                "/src/kernels/attention.cu", 131, ""},
                               {"attn", 0x200, "smsp__pcsamp_warps_issue_stalled_selected", 100,
                                "/src/kernels/mma.cuh", 44, ""}},
                              "attn");
    d.stalls->runShare = 0.5;
    d.stallPeriodLog2 = 10;
    QString html = kernelDetailsHtml(d);
    for (const char* want :
         {"Where its warps stall (PC sampling)",
          "1000 samples over all its launches (50.0% of the run's) at 3", "2<sup>10</sup> cycles",
          "<td width='70%'", "Long&nbsp;Scoreboard", "70.0%", "waits on a global or local memory",
          "Hottest source lines in <span title='/src/kernels/attention.cu'>attention.cu</span>",
          "<td style='padding-right:10px'>118</td>",
          // A line of another file (an inlined header) names its file.
          "<td style='padding-right:10px'>mma.cuh:44</td>"})
        EXPECT_TRUE(html.contains(QString::fromUtf8(want))) << want << "\n" << html.toStdString();
    EXPECT_FALSE(html.contains("Hottest instructions"));  // lines, and no SASS text
    EXPECT_FALSE(html.contains("Sampling cost"));
    d.stalls = stallsOfKernel(
        {{"attn", 0x1a0, "smsp__pcsamp_warps_issue_stalled_wait", 5, "", 0, ""}}, "attn");
    html = kernelDetailsHtml(d);
    EXPECT_TRUE(html.contains("Hottest instructions")) << html.toStdString();
    EXPECT_TRUE(html.contains("0x1a0")) << html.toStdString();
    EXPECT_TRUE(html.contains("without <code>-lineinfo</code>")) << html.toStdString();
    // With SASS text (nvdisasm at capture): a few instructions under the
    // lines, their text escaped; and what sampling cost the run.
    std::vector<PcSampleRecord> withSass;
    for (int i = 0; i < 8; ++i)
        withSass.push_back({"attn", 0x100u + 0x10u * static_cast<unsigned>(i),
                            "smsp__pcsamp_warps_issue_stalled_long_scoreboard", 100 - i,
                            "/src/kernels/attention.cu", 118,
                            "LDS.U R" + std::to_string(i) + ", [R2<<2]"});
    d.stalls = stallsOfKernel(withSass, "attn");
    d.stallCost = "the sampler's own time 12.5 ms, 0.4% of the run's 3.10 s";
    html = kernelDetailsHtml(d);
    EXPECT_TRUE(html.contains("Hottest source lines")) << html.toStdString();
    EXPECT_TRUE(html.contains("<code>LDS.U R0, [R2&lt;&lt;2]</code>")) << html.toStdString();
    EXPECT_TRUE(html.contains("<code>LDS.U R4, [R2&lt;&lt;2]</code>")) << html.toStdString();
    EXPECT_FALSE(html.contains("LDS.U R5,")) << html.toStdString();  // five under the lines
    EXPECT_TRUE(html.contains("Sampling cost: the sampler's own time 12.5 ms"))
        << html.toStdString();
}

TEST(KernelDetailsHtml, AReplayedKernelNamesTheRangesItWasCapturedIn) {
    KernelDetails d;
    d.kernel.name = "_Z4gemmv";
    d.kernel.graphId = 4;
    d.kernel.graphNodeId = 9;
    EXPECT_FALSE(kernelDetailsHtml(d).contains("Captured in"));
    d.captured = CaptureSite{77, 5000, "decode step 2/layer 3/<attention>"};
    QString html = kernelDetailsHtml(d);
    EXPECT_TRUE(html.contains("decode step 2/layer 3/&lt;attention&gt; (thread 77"))
        << html.toStdString();
    d.captured->rangePath.clear();
    EXPECT_TRUE(kernelDetailsHtml(d).contains("no NVTX range"));
}

}  // namespace
}  // namespace ws::ui
