// Where a kernel stalls, from PC samples: shares by stall reason over the
// all-samples reasons only (CUPTI's "not issued" variants repeat some of
// them), hottest instructions and source lines, kernels by samples, and
// CUPTI's names read as Nsight Compute shows them.
#include <gtest/gtest.h>

#include "analysis/pc_sample_summary.h"
#include "model/pc_sampling.h"
#include "report/report_data.h"
#include "report/report_writer.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

constexpr const char* kLong = "smsp__pcsamp_warps_issue_stalled_long_scoreboard";
constexpr const char* kLongNotIssued =
    "smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued";
constexpr const char* kSelected = "smsp__pcsamp_warps_issue_stalled_selected";
constexpr const char* kBarrier = "smsp__pcsamp_warps_issue_stalled_barrier";

std::vector<PcSampleRecord> samples() {
    return {
        // Two instructions on line 42, one on line 50, one without a line.
        // SASS text where nvdisasm was found; the last two have none.
        {"attn", 0x100, kLong, 600, "/k/attn.cu", 42, "LDG.E.128 R4, desc[UR6][R2.64]"},
        {"attn", 0x100, kLongNotIssued, 550, "/k/attn.cu", 42, "LDG.E.128 R4, desc[UR6][R2.64]"},
        {"attn", 0x110, kLong, 100, "/k/attn.cu", 42, "HMMA.16816.F32 R8, R12, R16, R8"},
        {"attn", 0x110, kSelected, 50, "/k/attn.cu", 42, "HMMA.16816.F32 R8, R12, R16, R8"},
        {"attn", 0x200, kBarrier, 200, "/k/attn.cu", 50, "BAR.SYNC.DEFER_BLOCKING 0x0"},
        {"attn", 0x300, kSelected, 50, "", 0, ""},
        {"fill", 0x0, kSelected, 250, "", 0, ""},
    };
}

TEST(PcSampleSummary, SharesByReasonLeaveTheNotIssuedRepeatsOut) {
    auto kernels = summarizePcSamples(samples());
    ASSERT_EQ(kernels.size(), 2u);
    const auto& attn = kernels[0];
    EXPECT_EQ(attn.function, "attn");
    EXPECT_EQ(attn.samples, 1000);  // the 550 not-issued samples are among the 600
    EXPECT_DOUBLE_EQ(attn.runShare, 0.8);
    ASSERT_EQ(attn.reasons.size(), 3u);
    EXPECT_EQ(attn.reasons[0].title, "Long Scoreboard");
    EXPECT_DOUBLE_EQ(attn.reasons[0].share, 0.7);
    EXPECT_EQ(attn.reasons[1].title, "Barrier");
    EXPECT_DOUBLE_EQ(attn.reasons[1].share, 0.2);
    EXPECT_EQ(attn.reasons[2].title, "Selected");
    EXPECT_DOUBLE_EQ(attn.reasons[2].share, 0.1);
    EXPECT_EQ(kernels[1].function, "fill");
    EXPECT_DOUBLE_EQ(kernels[1].runShare, 0.2);
}

TEST(PcSampleSummary, HottestInstructionsAndLinesFirst) {
    auto attn = stallsOfKernel(samples(), "attn", 2);
    ASSERT_TRUE(attn);
    EXPECT_EQ(attn->instructionCount, 4);
    ASSERT_EQ(attn->instructions.size(), 2u);  // the two hottest of four
    EXPECT_EQ(attn->instructions[0].pcOffset, 0x100u);
    EXPECT_DOUBLE_EQ(attn->instructions[0].share, 0.6);
    EXPECT_EQ(attn->instructions[0].topReason, "Long Scoreboard");
    EXPECT_EQ(attn->instructions[1].pcOffset, 0x200u);
    EXPECT_EQ(attn->instructions[1].topReason, "Barrier");
    EXPECT_EQ(attn->instructions[0].sass, "LDG.E.128 R4, desc[UR6][R2.64]");
    EXPECT_EQ(attn->instructions[1].sass, "BAR.SYNC.DEFER_BLOCKING 0x0");
    ASSERT_EQ(attn->lines.size(), 2u);  // the instruction without a line has none
    EXPECT_EQ(attn->lines[0].line, 42u);
    EXPECT_EQ(attn->lines[0].samples, 750);
    EXPECT_EQ(attn->lines[0].instructions, 2);
    EXPECT_EQ(attn->lines[0].topReason, "Long Scoreboard");
    EXPECT_EQ(attn->lines[1].line, 50u);
    EXPECT_DOUBLE_EQ(attn->runShare, 0.8);
    EXPECT_FALSE(stallsOfKernel(samples(), "gemm"));
}

TEST(PcSampleSummary, WithoutLineInformationThereAreNoLines) {
    auto fill = stallsOfKernel(samples(), "fill");
    ASSERT_TRUE(fill);
    EXPECT_TRUE(fill->lines.empty());
    ASSERT_EQ(fill->instructions.size(), 1u);
    EXPECT_EQ(fill->instructions[0].line, 0u);
    EXPECT_EQ(fill->instructions[0].sass, "");
    EXPECT_TRUE(summarizePcSamples({}).empty());
}

// The per-run statement of what sampling cost: the sampler's own time, and
// its share of the run's wall time where that is known.
TEST(PcSampleSummary, TheSamplersOwnTimeIsStatedAgainstTheRun) {
    const std::map<std::string, std::string> props{{pc_sampling::kHostMs, "45.5"}};
    EXPECT_EQ(samplerCostText(props, 9'100'000'000),
              "the sampler's own time 45.5 ms, 0.5% of the "
              "run's 9.10 s");
    EXPECT_EQ(samplerCostText(props, 0), "the sampler's own time 45.5 ms");
    EXPECT_EQ(samplerCostText({}, 9'100'000'000), "");
    EXPECT_EQ(samplerCostText({{pc_sampling::kHostMs, "n/a"}}, 1), "");
}

TEST(PcSampleSummary, StallReasonsReadAsNsightComputeNamesThem) {
    auto r = pc_sampling::describeStallReason(kLongNotIssued);
    EXPECT_EQ(r.title, "Long Scoreboard");
    EXPECT_TRUE(r.notIssued);
    EXPECT_FALSE(r.hint.empty());
    EXPECT_TRUE(pc_sampling::describeStallReason(kSelected).issuing);
    EXPECT_EQ(
        pc_sampling::describeStallReason("smsp__pcsamp_warps_issue_stalled_math_pipe_throttle")
            .title,
        "Math Pipe Throttle");
    // One CUPTI may add: its words, capitalised.
    auto unknown = pc_sampling::describeStallReason("smsp__pcsamp_warps_issue_stalled_tmem_wait");
    EXPECT_EQ(unknown.title, "Tmem Wait");
    EXPECT_TRUE(unknown.hint.empty());
    EXPECT_EQ(pc_sampling::describeStallReason("odd").title, "Odd");
}

// The report of a PC-sampled run: the most-sampled kernels with their top
// reasons and hottest lines; none for a run without samples.
TEST(PcSampleSummary, TheReportSaysWhereKernelsStall) {
    testing::TempDir dir;
    Store store(dir.file("r.wsdb"));
    RunId run = store.beginRun({});
    {
        StoreWriter w(store, run);
        for (const auto& r : samples())
            w.add(r);
        KernelRecord k;
        k.name = "attn";
        k.startNs = 1'000;
        k.endNs = 2'000;
        w.add(k);
    }
    store.finishRun(run, RunStatus::Ok);
    const auto md = writeReport(buildReport(store, run), ReportFormat::Markdown);
    EXPECT_NE(md.find("## Where kernels stall"), std::string::npos) << md;
    EXPECT_NE(md.find("| attn | 80.0% | Long Scoreboard 70.0%, Barrier 20.0%, Selected 10.0% | "
                      "attn.cu:42 75.0%, attn.cu:50 20.0% |"),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("| fill | 20.0% | Selected 100.0% | — (no -lineinfo) |"), std::string::npos)
        << md;
    EXPECT_EQ(md.find("Sampling cost"), std::string::npos) << md;  // no figure recorded
    store.setProperty(run, pc_sampling::kHostMs, "3.0");
    const auto costed = writeReport(buildReport(store, run), ReportFormat::Markdown);
    EXPECT_NE(costed.find("Sampling cost: the sampler's own time 3.00 ms, "), std::string::npos)
        << costed;
    RunId plain = store.beginRun({});
    store.finishRun(plain, RunStatus::Ok);
    EXPECT_EQ(writeReport(buildReport(store, plain), ReportFormat::Markdown).find("stall"),
              std::string::npos);
}

}  // namespace
}  // namespace ws
