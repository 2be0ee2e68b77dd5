// The report's contract checks and findings by their rules, on hand-made data.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/capture_cost.h"

#include "report/report_data.h"
#include "report/report_writer.h"
#include "store/store.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

ReportData decoderRun() {
    ReportData d;
    d.run.id = 3;
    d.run.label = "llama & <graphs>";
    WorkloadConfig c;
    c.name = "llama";
    c.kind = WorkloadKind::Decoder;
    c.contract.promptTokens = 512;
    c.contract.outputTokens = 128;
    c.contract.batch = 2;
    c.contract.ttftTargetMs = 50;
    c.contract.tpotTargetMs = 5;
    c.contract.memoryBudgetGiB = 8;
    c.contract.powerLimitW = 700;
    DecoderParams p;
    p.hiddenSize = 4096;
    p.layers = 32;
    p.heads = 32;
    p.kvHeads = 8;
    p.intermediateSize = 14336;
    p.vocabSize = 128256;
    c.decoder = p;
    d.config = c;
    d.latency.ttftMs = {40, 45, 60};  // p99 above the 50 ms target, p50 below
    d.latency.tpotMs = {4, 4.5};
    d.latency.requests.resize(3);
    d.properties["peak_device_memory_bytes"] = "10737418240";  // 10 GiB > 8
    d.samples.powerMaxW = 650;
    return d;
}

TEST(ReportContract, EachLinePassesFailsOrSaysWhyUnknown) {
    auto lines = checkContract(decoderRun());
    ASSERT_EQ(lines.size(), 7u);
    EXPECT_EQ(lines[0].what, "TTFT p50");
    EXPECT_EQ(lines[0].result, CheckResult::Pass);
    EXPECT_EQ(lines[1].result, CheckResult::Fail);  // p99 of {40, 45, 60} = 59.7
    EXPECT_EQ(lines[3].result, CheckResult::Pass);
    EXPECT_EQ(lines[4].what, "peak device memory");
    EXPECT_EQ(lines[4].result, CheckResult::Fail);
    // KV cache: 2 × 32 × 8 × 128 × 640 tokens × 2 requests × 2 bytes = 160 MiB
    EXPECT_EQ(lines[5].measured, "0.156 GiB");
    EXPECT_EQ(lines[5].result, CheckResult::Pass);
    // A shape the decoder could not run has no KV size, and says why.
    auto broken = decoderRun();
    broken.config->decoder->kvHeads = 5;  // 32 heads are no multiple of 5
    auto kv = checkContract(broken)[5];
    EXPECT_EQ(kv.measured, "—");
    EXPECT_EQ(kv.result, CheckResult::Unknown);
    EXPECT_NE(kv.note.find("multiple of kv_heads"), std::string::npos) << kv.note;
    EXPECT_EQ(lines[6].result, CheckResult::Pass);

    auto d = decoderRun();
    d.latency.tpotMs.clear();
    d.samples.powerMaxW.reset();
    d.config->contract.memoryBudgetGiB.reset();
    lines = checkContract(d);
    EXPECT_EQ(lines[2].result, CheckResult::Unknown);
    EXPECT_EQ(lines[2].note, "no requests with this measurement");
    EXPECT_EQ(lines[4].note, "the workload sets no memory budget");
    EXPECT_EQ(lines[6].note, "no power samples (NVML unavailable while recording)");
    d.config.reset();
    EXPECT_TRUE(checkContract(d).empty());
}

TEST(ReportFindings, RulesFireOnTheirThresholdsOnly) {
    auto d = decoderRun();
    d.properties["decoder.tpot_floor_ms"] = "2.0";
    d.latency.tpotMs = {4.0};  // floor / TPOT = 0.5 < 0.7
    KernelStat k;
    k.name = "gemvSplitK";
    k.timePercent = 64.8;
    k.time.count = 10;
    d.summary.kernels = {k};
    d.summary.gpuSpanNs = 100;
    d.summary.gpuBusyNs = 90;
    d.summary.gpuBusyFraction = 0.9;  // busy enough: no idle finding
    d.roofline.ceilings.dramGBs = 4000;
    d.roofline.ceilings.tensorTflops = 800;
    // 2e9 FLOP in 1.25 ms at 1 FLOP/B: 1.6 of an attainable 4 TFLOP/s
    d.roofline.points = {RooflinePoint{"decode step", "model", 2e9, 2e9, 1.25e6, 10, 1.0, {}, {}}};
    d.quality = {QualityRecord{"greedy", "reference", 0.5, 0.9, 0.25, false}};
    d.run.droppedRecords = 12;
    d.samples.clockEvents.samplesWithReasons = 10;
    d.samples.clockEvents.reasons = {{"SW power cap", true, 0.2}};
    auto f = findFindings(d);
    std::vector<std::string> rules;
    for (const auto& x : f)
        rules.push_back(x.rule);
    EXPECT_EQ(rules,
              (std::vector<std::string>{
                  "floor / mean TPOT < 0.70", "top kernel ≥ 30% of kernel time",
                  "a clock event reason other than idle or the application clock setting seen",
                  "point below 50% of min(tensor peak, bandwidth × intensity), ≥ 5% of time",
                  "quality check passed = false", "dropped records > 0"}));
    EXPECT_NE(f[0].title.find("0.50 of the memory-bandwidth floor"), std::string::npos);
    EXPECT_NE(f[2].evidence.find("SW power cap in 20% of samples"), std::string::npos);
    EXPECT_NE(f[3].title.find("reaches 40% of its roof (memory-bound"), std::string::npos);

    d.properties["decoder.tpot_floor_ms"] = "3.0";  // 0.75: fine
    d.summary.kernels[0].timePercent = 29;
    d.roofline.points[0].meanNs = 0.5e6;  // 4 TFLOP/s: at the roof
    d.quality[0].passed = true;
    d.run.droppedRecords = 0;
    d.samples.clockEvents.reasons = {{"GPU idle", false, 0.5}};  // idle is not throttling
    EXPECT_TRUE(findFindings(d).empty());
}

TEST(ReportFindings, FindingsKnowTheWorkloadKind) {
    // "Use CUDA graphs" on a graph run, "optimize gemvNaive first" on a ladder
    // whose reference rung it is, "GPU idle 99.9%" on a counter pass: each
    // said what the figures beside it did not back.
    auto idle = [](ReportData d) {
        d.summary.gpuSpanNs = 1000;
        d.summary.gpuBusyNs = 1;
        d.summary.gpuBusyFraction = 0.001;
        return d;
    };
    auto rulesOf = [](const ReportData& d) {
        std::vector<std::string> rules;
        for (const auto& f : findFindings(d))
            rules.push_back(f.rule);
        return rules;
    };
    auto counterPass = idle(decoderRun());
    counterPass.properties["capture.metrics"] = "roofline";
    EXPECT_TRUE(rulesOf(counterPass).empty());

    auto graphs = idle(decoderRun());
    graphs.properties["decoder.cuda_graphs"] = "yes";
    auto f = findFindings(graphs);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].next.find("use CUDA graphs"), std::string::npos) << f[0].next;
    EXPECT_NE(f[0].next.find("already replay as CUDA graphs"), std::string::npos);

    auto ladder = decoderRun();
    ladder.run.workloadKind = "kernel";
    KernelStat naive;
    naive.name = "gemvNaive";
    naive.timePercent = 80;
    ladder.summary.kernels = {naive};
    EXPECT_TRUE(rulesOf(ladder).empty());
}

// A graph traced whole (--graph-trace graph) is one record per replay, named
// cuda_graph_ID: the advice is to look inside it, not to "optimize" it.
TEST(ReportFindings, AGraphSpanIsNotAKernelToOptimize) {
    auto d = decoderRun();
    KernelStat graph;
    graph.name = "cuda_graph_20";
    graph.timePercent = 90;
    d.summary.kernels = {graph};
    bool found = false;
    for (const auto& f : findFindings(d))
        if (f.rule == "top kernel ≥ 30% of kernel time") {
            found = true;
            EXPECT_NE(f.next.find("--graph-trace node"), std::string::npos) << f.next;
            EXPECT_EQ(f.next.find("optimize or replace it"), std::string::npos) << f.next;
        }
    EXPECT_TRUE(found);
}

TEST(ReportFindings, RegressionsAgainstTheBaselineComeFirst) {
    auto d = decoderRun();
    d.run.droppedRecords = 3;  // another finding, which must come after
    Comparison c;
    MetricDelta ttft;  // one request each: no interval, +40%
    ttft.metric = "median_ttft_ms";
    ttft.base = 4.4;
    ttft.candidate = 6.16;
    ttft.verdict = Verdict::NotComparable;
    MetricDelta itl;
    itl.metric = "mean_itl_ms";
    itl.base = 1.0;
    itl.candidate = 1.2;
    itl.ciLow = 0.15;
    itl.ciHigh = 0.25;
    itl.verdict = Verdict::Slower;
    c.latency = {ttft, itl};
    d.comparison = c;
    auto f = findFindings(d);
    ASSERT_EQ(f.size(), 3u);
    EXPECT_NE(f[0].title.find("median_ttft_ms is 40% above the baseline's, without an interval"),
              std::string::npos)
        << f[0].title;
    EXPECT_EQ(f[1].title, "mean_itl_ms regressed against the baseline");
    EXPECT_EQ(f[2].rule, "dropped records > 0");
}

// Findings read in context (issue 47's first-use review): sweep points of
// different loads are not regressions of each other (+1666 % TTFT was one);
// a comparison without kernels points nowhere near kernel deltas; a gain is
// reported as one (the int8 variant's -21.6 % TPOT was not).
TEST(ReportFindings, ComparisonsAreReadInTheirContext) {
    auto d = decoderRun();
    MetricDelta ttft;
    ttft.metric = "median_ttft_ms";
    ttft.base = 30;
    ttft.candidate = 530;
    ttft.ciLow = 480;
    ttft.ciHigh = 520;
    ttft.verdict = Verdict::Slower;
    MetricDelta tpot;
    tpot.metric = "median_tpot_ms";
    tpot.base = 5.0;
    tpot.candidate = 3.92;
    tpot.ciLow = -1.2;
    tpot.ciHigh = -1.0;
    tpot.verdict = Verdict::Faster;
    Comparison c;
    c.latency = {ttft, tpot};
    d.comparison = c;
    auto titles = [&] {
        std::vector<std::string> out;
        for (const auto& f : findFindings(d))
            out.push_back(f.title + " | " + f.next);
        return out;
    };
    auto has = [&](const std::string& text) {
        for (const auto& t : titles())
            if (t.find(text) != std::string::npos) return true;
        return false;
    };
    // Same load, no kernels in either window.
    EXPECT_TRUE(
        has("median_ttft_ms regressed against the baseline | neither comparison window "
            "holds kernels"));
    EXPECT_TRUE(has("median_tpot_ms improved against the baseline"));
    EXPECT_FALSE(has("kernel deltas"));
    // With kernels to point at.
    d.comparison->kernels.push_back({});
    EXPECT_TRUE(has("regressed against the baseline | the kernel deltas in the comparison"));
    // Another concurrency: a reference, not a regression.
    d.properties["bench.max_concurrency"] = "64";
    d.baselineProperties["bench.max_concurrency"] = "1";
    EXPECT_TRUE(has("The baseline ran at another load"));
    EXPECT_FALSE(has("regressed"));
    EXPECT_FALSE(has("improved"));
}

TEST(ReportFindings, ADifferenceSmallerThanTheCaptureCostGapIsFlagged) {
    auto d = decoderRun();
    Comparison c;
    MetricDelta tpot;  // +3 % TPOT
    tpot.metric = "median_tpot_ms";
    tpot.base = 4.0;
    tpot.candidate = 4.12;
    tpot.verdict = Verdict::Slower;
    c.latency = {tpot};
    d.comparison = c;
    auto flagged = [&] {
        for (const auto& f : findFindings(d))
            if (f.rule == "|relative change| < |difference of capture.cost_share|") return true;
        return false;
    };
    EXPECT_FALSE(flagged());  // no capture cost stored: nothing to say
    d.properties[capture_cost::kShare] = "0.08";
    d.baselineProperties[capture_cost::kShare] = "0.02";
    EXPECT_TRUE(flagged());  // 3 % < 6 points
    d.baselineProperties[capture_cost::kShare] = "0.06";
    EXPECT_FALSE(flagged());  // 3 % > 2 points
}

// A served run whose p99 ITLs were mostly prefill steps: a finding, and the
// outliers section with the split of every ITL and of the tail.
TEST(ReportFindings, PrefillInterferenceInTheItlTailIsAFinding) {
    auto d = decoderRun();
    auto fired = [&] {
        for (const auto& f : findFindings(d))
            if (f.rule == "prefill share of p99 ITL outliers ≥ 50%") return true;
        return false;
    };
    EXPECT_FALSE(fired());  // no engine steps: nothing to say
    ItlOutlierReport o;
    o.itlCount = 100;
    o.engineSteps = 60;
    o.stepsDescribed = true;
    o.p50Ms = 2;
    o.p99Ms = 9;
    o.outlierCount = 1;
    ItlInterval slowest;
    slowest.requestId = 7;
    slowest.tokenIndex = 12;
    slowest.endNs = 9'600'000;
    slowest.prefillTokens = 2048;
    slowest.steps = 2;
    slowest.maxRunning = 9;
    slowest.split = {9'000'000, 0, 100'000, 500'000};
    o.outliers = {slowest};
    o.outlierTotal = slowest.split;
    o.allTotal = {20e6, 150e6, 20e6, 10e6};
    d.itlOutliers = o;
    EXPECT_TRUE(fired());
    auto md = writeReport(d, ReportFormat::Markdown);
    EXPECT_NE(md.find("## ITL outliers"), std::string::npos) << md;
    EXPECT_NE(md.find("| every ITL | 10% | 75% | 10% | 5% |"), std::string::npos) << md;
    EXPECT_NE(md.find("| 7 | 12 | 9.600 | 2 | 2048 | 9 | 94% | 0% | 1% | 5% |"), std::string::npos)
        << md;
    d.itlOutliers->outlierTotal = {1e6, 8e6, 0, 0};  // the tail is kernel time
    EXPECT_FALSE(fired());
}

// Engine steps far from their floors: a finding naming the largest part of
// the window above them, and the report's section with both tables.
TEST(ReportFindings, EngineStepsFarFromTheirFloorNameTheLargestGap) {
    auto d = decoderRun();
    auto fired = [&]() -> std::optional<Finding> {
        for (const auto& f : findFindings(d))
            if (f.rule == "sum of step floors / sum of step times < 50 %") return f;
        return std::nullopt;
    };
    EXPECT_FALSE(fired());
    EngineStepSol sol;
    sol.cost.copyGbs = 4000;
    sol.cost.tensorTflops = 800;
    StepSolKind all;
    all.kind = "all";
    all.steps = 100;
    all.stepNs = 100e6;
    all.floorNs = 30e6;
    sol.kinds = {all};
    sol.windowNs = 120e6;
    sol.floorMatmulNs = 25e6;
    sol.floorAttentionNs = 5e6;
    sol.kernelNs = {{KernelClass::Matmul, 40e6}, {KernelClass::Attention, 20e6}};
    sol.launchGapNs = 10e6;
    sol.hostInStepsNs = 30e6;
    sol.hostBetweenStepsNs = 20e6;
    sol.prefillInterferenceNs = 6e6;
    d.engineStepSol = sol;
    auto f = fired();
    ASSERT_TRUE(f);
    EXPECT_NE(f->title.find("30.0 % of their speed of light; the largest part above it: host "
                            "inside steps"),
              std::string::npos)
        << f->title;
    EXPECT_NE(f->evidence.find("decodes waited 5.0 % of it on prefill"), std::string::npos)
        << f->evidence;
    EXPECT_NE(f->next.find("the GPU waits on the engine"), std::string::npos) << f->next;
    auto md = writeReport(d, ReportFormat::Markdown);
    EXPECT_NE(md.find("## Engine steps against the speed of light"), std::string::npos) << md;
    EXPECT_NE(md.find("| all | 100 | 100.000 ms | 30.000 ms | 30.0 % |"), std::string::npos) << md;
    EXPECT_NE(md.find("| matmul kernels above their floor | 15.000 ms | 12.5 % |"),
              std::string::npos)
        << md;
    d.engineStepSol->kinds[0].floorNs = 60e6;  // 60 %: no finding
    EXPECT_FALSE(fired());
}

TEST(ReportData, SaysWhenStateReadingCallsWereLeftOut) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto byDefault = store.beginRun({});
    store.setProperty(byDefault, "capture.query_calls", "left out");
    store.finishRun(byDefault, RunStatus::Ok, 0);
    auto everyCall = store.beginRun({});
    store.setProperty(everyCall, "capture.query_calls", "traced");
    store.finishRun(everyCall, RunStatus::Ok, 0);
    auto says = [&](RunId run) {
        auto d = buildReport(store, run);
        return std::any_of(d.missing.begin(), d.missing.end(), [](const std::string& m) {
            return m.find("record with --all-apis") != std::string::npos;
        });
    };
    EXPECT_TRUE(says(byDefault));
    EXPECT_FALSE(says(everyCall));
}

TEST(ReportWriter, MarkdownAndEscapedHtml) {
    auto d = decoderRun();
    d.contract = checkContract(d);
    d.missing = {"no device samples (power, clocks)"};
    d.samples.clockEvents.samplesWithReasons = 4;
    d.samples.clockEvents.reasons = {{"SW power cap", true, 0.25}};
    // Two GPUs' NVLink: one sent 1.5 GB peaking at 40 GB/s, one idle.
    d.samples.nvlink[0] = {{{0, 50, 40e9, 0}}, 40e9, 0, 1'500'000'000, 0};
    d.samples.nvlink[1] = {{{0, 50, 0, 0}}, 0, 0, 0, 0};
    d.samples.nvlink[2] = {{{0, 50, 9e9, 9e9}}, 9e9, 9e9, 450'000'000, 450'000'000};
    d.samples.busyDevices = {0, 1};  // GPU 2's traffic is another job's
    auto md = writeReport(d, ReportFormat::Markdown);
    EXPECT_NE(
        md.find("NVLink, GPU 0 | sent 1.50 GB (peak 40.0 GB/s), received 0.00 GB (peak 0.0 GB/s)"),
        std::string::npos)
        << md;
    EXPECT_NE(md.find("NVLink, GPU 1 | no traffic"), std::string::npos) << md;
    EXPECT_EQ(md.find("NVLink, GPU 2"), std::string::npos) << md;
    EXPECT_NE(md.find("clock event reasons | SW power cap (25%) of samples"), std::string::npos)
        << md;
    // Markdown viewers pass inline HTML through: labels are escaped there too.
    EXPECT_NE(md.find("# Warpscope report: run 3 — llama &amp; &lt;graphs&gt;"), std::string::npos);
    EXPECT_EQ(md.find("<graphs>"), std::string::npos);
    EXPECT_NE(md.find("| TTFT p99 | ≤ 50.00 ms | 59.700 ms | FAIL |"), std::string::npos);
    EXPECT_NE(md.find("- no device samples (power, clocks)"), std::string::npos);
    auto html = writeReport(d, ReportFormat::Html, [](const std::string& id) {
        return id == "latency" ? std::string("latency.png") : std::string();
    });
    EXPECT_NE(html.find("llama &amp; &lt;graphs&gt;"), std::string::npos);
    EXPECT_EQ(html.find("<graphs>"), std::string::npos);
    EXPECT_NE(html.find("<td class=\"fail\">FAIL</td>"), std::string::npos);
    EXPECT_NE(html.find("src=\"latency.png\""), std::string::npos);
    EXPECT_EQ(html.find("roofline.png"), std::string::npos);  // no source: no image
}

TEST(ReportWriter, MarkupInLabelsNeverReachesAMarkdownViewerAsMarkup) {
    auto d = decoderRun();
    d.run.label = "<img src=x onerror=alert(1)> [click](javascript:alert(2)) <script>x</script>";
    auto md = writeReport(d, ReportFormat::Markdown);
    EXPECT_EQ(md.find("<img"), std::string::npos) << md;
    EXPECT_EQ(md.find("<script"), std::string::npos) << md;
    EXPECT_EQ(md.find("[click]"), std::string::npos) << md;
    EXPECT_NE(md.find("\\[click\\](javascript:alert(2))"), std::string::npos) << md;
    // Control characters: not text in HTML, acted on by a terminal showing Markdown.
    d.run.label = std::string("bell\x07 escape\x1b[2J nul") + '\0' + " del\x7f";
    for (auto format : {ReportFormat::Markdown, ReportFormat::Html}) {
        auto text = writeReport(d, format);
        for (char c : {'\x07', '\x1b', '\0', '\x7f'})
            EXPECT_EQ(text.find(c), std::string::npos) << int(c);
        EXPECT_NE(text.find("bell\\x07 escape\\x1b"), std::string::npos);
    }
}

TEST(ReportWriter, StatesOnlyWhatWasMeasuredForThisDevice) {
    auto d = decoderRun();
    d.samples.clockEvents.samplesWithReasons = 4;
    d.samples.clockEvents.reasons = {{"SW power cap", true, 0.25}};
    DeviceInfo other;
    other.name = "NVIDIA L4";
    d.device = other;
    auto md = writeReport(d, ReportFormat::Markdown);
    // Sampled reasons are shown; no stale "not sampled" line contradicts them.
    EXPECT_EQ(md.find("not sampled yet"), std::string::npos) << md;
    EXPECT_EQ(md.find("slower traced on the H200"), std::string::npos) << md;
    EXPECT_NE(md.find("measured on an NVIDIA H200 only"), std::string::npos) << md;
    EXPECT_NE(md.find("not on NVIDIA L4"), std::string::npos) << md;
    d.device->name = "NVIDIA H200";
    md = writeReport(d, ReportFormat::Markdown);
    EXPECT_NE(md.find("slower traced on the H200"), std::string::npos) << md;
    // A run recorded with its capture cost calibrated states that instead.
    d.properties[capture_cost::kPerLaunchNs] = "1500.0";
    d.properties[capture_cost::kShare] = "0.02";
    md = writeReport(d, ReportFormat::Markdown);
    EXPECT_NE(md.find("capture cost ≈ 1.50 µs per launch, ≈ 2.0 % of this run's wall time"),
              std::string::npos)
        << md;
    EXPECT_EQ(md.find("slower traced on the H200"), std::string::npos) << md;
}

}  // namespace
}  // namespace ws

namespace ws {
namespace {

TEST(ReportWriter, WhatTheNextOptimizationBuysListsEachOptionWithItsInterval) {
    auto d = decoderRun();
    RankedOption gaps{"no launch gaps (CUDA graphs)", "--no-launch-gaps", 0, {}};
    gaps.prediction.values.push_back({"tpot", "mean", 1.373, 1.096, 1.095, 1.098});
    RankedOption matmul{"matmul 30 % faster", "--faster matmul=30%", 0.782, {}};
    matmul.prediction.values.push_back({"tpot", "mean", 1.373, 1.332, 1.320, 1.346});
    d.nextOptimizations = {gaps, matmul};
    auto md = writeReport(d, ReportFormat::Markdown);
    const auto section = md.find("## What the next optimization buys");
    ASSERT_NE(section, std::string::npos) << md;
    EXPECT_LT(section, md.find("## Workload contract"));
    EXPECT_NE(md.find("| no launch gaps (CUDA graphs) | — | 1.096 \\[1.095, "
                      "1.098\\] (-20.2 %) | — | — | — | --no-launch-gaps |"),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("| matmul 30 % faster | 78.2 % | 1.332"), std::string::npos) << md;
    d.nextOptimizations.clear();
    EXPECT_EQ(writeReport(d, ReportFormat::Markdown).find("next optimization"), std::string::npos);
}

}  // namespace
}  // namespace ws

namespace ws {
namespace {

TEST(ReportWriter, DecodeStepsAgainstTheirFloorSplitTheMeanStep) {
    auto d = decoderRun();
    TokenStepReport steps;
    steps.steps = 248;
    steps.meanNs = 1.212e6;
    steps.p50Ns = 1.201e6;
    steps.p99Ns = 1.375e6;
    steps.floor = StepFloor{2.4889344e9, 4174};
    steps.kernelNs[KernelClass::Matmul] = 0.721e6;
    steps.launchGapNs = 0.013e6;
    steps.hostNs = 0.266e6;
    d.tokenSteps = steps;
    auto md = writeReport(d, ReportFormat::Markdown);
    EXPECT_NE(md.find("## Decode steps against the speed of light"), std::string::npos) << md;
    EXPECT_NE(md.find("Floor 0.596 ms per step: 2.49 GB at the measured 4174 GB/s"),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("| step (mean / p50 / p99) | 1.212 ms / 1.201 ms / 1.375 ms | SOL 49.2 %"),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("| host (before the first kernel, after the last) | 0.266 ms | 21.9 % |"),
              std::string::npos)
        << md;
}

}  // namespace
}  // namespace ws

namespace ws {
namespace {

// The eager 1B decode of the H200 samples, as the replay read it: GEMVs are
// 78 % of kernel time, yet 30 % off them buys 3 %; no launch gaps buys 20 %.
ReportData launchBoundDecode() {
    auto d = decoderRun();
    KernelStat k;
    k.name = "gemvSplitK";
    k.timePercent = 78;
    k.time.count = 18144;
    d.summary.kernels.push_back(k);
    RankedOption gaps{"no launch gaps (CUDA graphs)", "--no-launch-gaps", 0, {}};
    gaps.prediction.values.push_back({"tpot", "mean", 1.373, 1.096, 1.095, 1.098});
    RankedOption matmul{"matmul 30 % faster", "--faster matmul=30%", 0.78, {}};
    matmul.prediction.values.push_back({"tpot", "mean", 1.373, 1.332, 1.320, 1.346});
    d.nextOptimizations = {gaps, matmul};
    return d;
}

TEST(ReportFindings, TheBestReplayedOptionIsAFindingNamingItsFigure) {
    auto findings = findFindings(launchBoundDecode());
    auto next = std::find_if(findings.begin(), findings.end(),
                             [](const Finding& f) { return f.title.rfind("Next: ", 0) == 0; });
    ASSERT_NE(next, findings.end());
    EXPECT_EQ(next->title, "Next: no launch gaps (CUDA graphs) would cut mean TPOT by 20.2 %");
    EXPECT_NE(next->evidence.find("1.096 ms (95 % over requests 1.095–1.098) against 1.373 ms"),
              std::string::npos)
        << next->evidence;
    EXPECT_NE(next->next.find("whatif 3 --no-launch-gaps"), std::string::npos) << next->next;
    // Under 5 %: not worth a finding.
    auto small = launchBoundDecode();
    small.nextOptimizations.erase(small.nextOptimizations.begin());
    for (const auto& f : findFindings(small))
        EXPECT_NE(f.title.rfind("Next: ", 0), 0u) << f.title;
}

TEST(ReportFindings, ATopKernelThatBuysLittleWhenReplayedIsNotAdvisedFirst) {
    auto findings = findFindings(launchBoundDecode());
    auto top = std::find_if(findings.begin(), findings.end(), [](const Finding& f) {
        return f.title == "gemvSplitK is 78.0% of kernel time";
    });
    ASSERT_NE(top, findings.end());
    EXPECT_NE(top->evidence.find("its class (matmul 30 % faster) predicts TPOT -3.0 %"),
              std::string::npos)
        << top->evidence;
    EXPECT_EQ(top->next.rfind("making it faster buys little here", 0), 0u) << top->next;
    // Without a replay the old advice stands.
    auto unreplayed = launchBoundDecode();
    unreplayed.nextOptimizations.clear();
    for (const auto& f : findFindings(unreplayed)) {
        if (f.title == "gemvSplitK is 78.0% of kernel time") {
            EXPECT_EQ(f.next.rfind("optimize or replace it first", 0), 0u) << f.next;
        }
    }
}

}  // namespace
}  // namespace ws

namespace ws {
namespace {

TEST(ReportFindings, InputInitialisationIsNotTheKernelToOptimize) {
    auto d = decoderRun();
    KernelStat fill;
    fill.name = "fillKernel<ws::kernels::fillUniform>";
    fill.timePercent = 60;
    KernelStat gemv;
    gemv.name = "gemvSplitK";
    gemv.timePercent = 35;
    d.summary.kernels = {fill, gemv};
    auto findings = findFindings(d);
    for (const auto& f : findings)
        EXPECT_EQ(f.title.find("fillKernel"), std::string::npos) << f.title;
    EXPECT_TRUE(std::any_of(findings.begin(), findings.end(), [](const Finding& f) {
        return f.title == "gemvSplitK is 35.0% of kernel time";
    }));
}

}  // namespace
}  // namespace ws
