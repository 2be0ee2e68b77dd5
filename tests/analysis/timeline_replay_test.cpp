// The what-if replay on synthetic timelines whose answer is worked out by
// hand: a GPU-bound and a launch-bound decode loop, two streams, graphs.
// Times in µs, stored in ns.
#include <gtest/gtest.h>

#include <stdexcept>

#include "analysis/kernel_classes.h"
#include "analysis/timeline_replay.h"
#include "analysis/token_steps.h"
#include "analysis/whatif.h"

namespace ws {
namespace {

constexpr std::int64_t us = 1000;

// A program's timeline, written call by call as its host threads made it.
struct Timeline {
    ReplayInput in;
    std::vector<std::string> names;
    std::uint32_t nextCorrelation = 1;

    std::uint32_t thread = 7;  // the host thread the next calls are made on

    ApiCallRecord& call(std::int64_t start, std::int64_t end, const std::string& name) {
        in.apiCalls.push_back(
            {start * us, end * us, 7, thread, nextCorrelation++, ApiKind::Runtime, 0, name, 0});
        return in.apiCalls.back();
    }
    // A launch call [start, end) whose kernel ran [kStart, kEnd) on `stream`.
    void launch(std::int64_t start, std::int64_t end, std::int64_t kStart, std::int64_t kEnd,
                const std::string& kernel = "gemvSplitK", std::uint32_t stream = 1) {
        const auto& c = call(start, end, "cudaLaunchKernel_v7000");
        in.ops.push_back({kStart * us, kEnd * us, 7, 0, stream, c.correlationId});
        names.push_back(kernel);
    }
    void sync(std::int64_t start, std::int64_t end) { call(start, end, "cudaStreamSynchronize"); }
    void token(std::int64_t request, std::int32_t index, std::int64_t at) {
        in.tokens.push_back({request, index, at * us});
    }
    WhatIfRun run() const { return WhatIfRun::withOpNames(in, names); }
};

// Decode steps of four 100 µs kernels, launched 2 µs apart, each step ending
// in a synchronize and a token 1 µs after it returns. The GPU is the
// bottleneck: each step is 5 µs of launch latency + 400 µs of kernels + 3 µs
// of wake-up. Starts at 0, step period 410 µs.
Timeline gpuBoundLoop(int steps) {
    Timeline t;
    t.in.requests.push_back({0, 0, 0, 512, steps, true});
    std::int64_t at = 0;
    for (int s = 0; s < steps; ++s) {
        const std::int64_t first = at + 5;
        for (int k = 0; k < 4; ++k)
            t.launch(at + 2 * k, at + 2 * k + 1, first + 100 * k, first + 100 * (k + 1));
        t.sync(at + 8, first + 400 + 3);
        t.token(0, s, first + 404);
        at = first + 406;  // the host's next step starts 2 µs after the token
    }
    t.in.requests[0].endNs = t.in.tokens.back().timeNs;
    return t;
}

// The same loop launch-bound: each launch call takes 10 µs and its 2 µs
// kernel starts 5 µs into it; the step waits on the host, not the GPU.
Timeline launchBoundLoop(int steps) {
    Timeline t;
    t.in.requests.push_back({0, 0, 0, 512, steps, true});
    std::int64_t at = 0;
    for (int s = 0; s < steps; ++s) {
        for (int k = 0; k < 4; ++k) {
            const std::int64_t start = at + 11 * k;
            t.launch(start, start + 10, start + 5, start + 7);
        }
        const std::int64_t syncStart = at + 44;  // last kernel ended at at + 40
        t.sync(syncStart, syncStart + 2);
        t.token(0, s, syncStart + 3);
        at = syncStart + 5;
    }
    t.in.requests[0].endNs = t.in.tokens.back().timeNs;
    return t;
}

ReplayResult replayed(Timeline t, double scale, ReplayOptions options = {}) {
    for (auto& op : t.in.ops)
        op.durationScale = scale;
    return replayTimeline(t.in, options);
}

TEST(TimelineReplay, UnchangedReplayReproducesTheRecording) {
    for (auto t : {gpuBoundLoop(5), launchBoundLoop(5)}) {
        auto r = replayed(t, 1.0);
        ASSERT_EQ(r.tokens.size(), t.in.tokens.size());
        for (std::size_t i = 0; i < r.tokens.size(); ++i)
            EXPECT_EQ(r.tokens[i].timeNs, t.in.tokens[i].timeNs) << "token " << i;
    }
}

TEST(TimelineReplay, FasterKernelsShortenAGpuBoundStepByTheirTime) {
    auto t = gpuBoundLoop(3);
    auto r = replayed(t, 0.5);
    // Each step: 5 µs latency + 4 × 50 µs + 3 µs wake + 1 µs to the token,
    // then 2 µs of host time to the next step: 211 µs per step instead of 411.
    EXPECT_EQ(r.tokens[0].timeNs, (5 + 200 + 4) * us);
    EXPECT_EQ(r.tokens[1].timeNs - r.tokens[0].timeNs, 211 * us);
    EXPECT_EQ(r.tokens[2].timeNs - r.tokens[1].timeNs, 211 * us);
    EXPECT_EQ(r.floors.launchLatencyNs, 5 * us);
}

TEST(TimelineReplay, FasterKernelsDoNotShortenALaunchBoundStep) {
    // Sums would say a quarter of the step's kernel time goes; the host still
    // takes 44 µs to launch the step, so the tokens come out as before.
    auto t = launchBoundLoop(3);
    auto r = replayed(t, 0.5);
    for (std::size_t i = 0; i < r.tokens.size(); ++i)
        EXPECT_EQ(r.tokens[i].timeNs, t.in.tokens[i].timeNs) << "token " << i;
}

TEST(TimelineReplay, SlowerKernelsMakeALaunchBoundStepWaitOnTheGpu) {
    // At 10× (20 µs each) the kernels queue behind each other: the last ends
    // 5 + 4 × 20 µs after the step starts, past the host's 44 µs.
    auto t = launchBoundLoop(2);
    auto r = replayed(t, 10.0);
    const std::int64_t lastKernelEnd = 5 + 4 * 20;
    // The synchronize waited 0 µs in the recording: it now waits, then wakes
    // up as fast as the run's typical waiting synchronize (none waited here:
    // no wake-up time), and the token follows 1 µs after it returns.
    EXPECT_EQ(r.tokens[0].timeNs, (lastKernelEnd + 1) * us);
}

TEST(TimelineReplay, NoLaunchGapsLeavesOneGraphLaunchAndTheKernels) {
    auto t = launchBoundLoop(2);
    ReplayOptions graphs;
    graphs.noLaunchGaps = true;
    graphs.graphLaunchNs = 3 * us;
    graphs.nodeGapNs = 1 * us;
    auto r = replayed(t, 1.0, graphs);
    // Step 0: graph launch [0, 3), nodes of 2 µs 1 µs apart from 3: the last
    // ends at 3 + 4 × 2 + 3 × 1 = 14; the synchronize returns then (no
    // wake-up in this run), the token 1 µs later.
    EXPECT_EQ(r.tokens[0].timeNs, 15 * us);
    EXPECT_EQ(r.launchesRemoved, 2 * 3);  // all but the first launch of each step
    // Step 1 starts 2 µs after the token (the host's own time between steps).
    EXPECT_EQ(r.tokens[1].timeNs - r.tokens[0].timeNs, (2 + 15) * us);
}

// A decode loop of CUDA graphs traced node by node: each cudaGraphLaunch
// [at, at + 5) waits 200 µs for its first node (the tracer's cost), then four
// 100 µs nodes 1 µs apart; a synchronize returns 3 µs after the last, the
// token 1 µs later, the next launch 2 µs after that. Step: 200 + 403 + 6.
Timeline nodeTracedGraphLoop(int steps) {
    Timeline t;
    t.in.requests.push_back({0, 0, 0, 512, steps, true});
    std::int64_t at = 0;
    for (int s = 0; s < steps; ++s) {
        const auto& c = t.call(at, at + 5, "cudaGraphLaunch_v10000");
        const std::int64_t first = at + 200;
        for (int k = 0; k < 4; ++k) {
            t.in.ops.push_back(
                {(first + 101 * k) * us, (first + 101 * k + 100) * us, 7, 0, 1, c.correlationId});
            t.names.push_back("gemvSplitK");
        }
        t.sync(at + 6, first + 403 + 3);
        t.token(0, s, first + 407);
        at = first + 409;
    }
    t.in.requests[0].endNs = t.in.tokens.back().timeNs;
    return t;
}

TEST(TimelineReplay, UntracedGraphLaunchesStartTheFirstNodeAtTheLaunchCostAndKeepTheNodeGaps) {
    auto t = nodeTracedGraphLoop(3);
    EXPECT_EQ(replayed(t, 1.0).tokens[2].timeNs, t.in.tokens[2].timeNs);  // off: as recorded
    ReplayOptions untraced;
    untraced.untracedGraphLaunches = true;
    untraced.graphLaunchNs = 10 * us;
    auto r = replayed(t, 1.0, untraced);
    // Step 0: the first node at 10 instead of 200; the rest follow 1 µs apart.
    EXPECT_EQ(r.tokens[0].timeNs, (10 + 403 + 3 + 1) * us);
    // Each step 190 µs shorter: 609 µs recorded, 419 replayed.
    EXPECT_EQ(r.tokens[2].timeNs - r.tokens[1].timeNs, 419 * us);
    // The kernels themselves are as recorded.
    EXPECT_EQ(r.replayedGpuTimeNs, r.gpuTimeNs);
}

TEST(TimelineReplay, AKernelOnAnotherStreamOverlapsAndCostsNothingUntilItIsLonger) {
    // One step: stream 1 runs 300 µs of work; stream 2 a 100 µs kernel beside
    // it; the synchronize waits for the later of the two.
    Timeline t;
    t.in.requests.push_back({0, 0, 0, 16, 1, true});
    t.launch(0, 1, 5, 305, "gemm", 1);
    t.launch(2, 3, 8, 108, "attention", 2);
    t.sync(4, 308);
    t.token(0, 0, 309);
    auto faster = t;
    faster.in.ops[1].durationScale = 0.5;  // the overlapped kernel: no change
    EXPECT_EQ(replayTimeline(faster.in).tokens[0].timeNs, 309 * us);
    auto longer = t;
    longer.in.ops[1].durationScale = 4.0;  // 400 µs: now it ends last, at 408
    EXPECT_EQ(replayTimeline(longer.in).tokens[0].timeNs, (408 + 3 + 1) * us);
}

TEST(TimelineReplay, FixedArrivalsStayWhereTheClientSentThem) {
    auto t = gpuBoundLoop(2);
    t.in.requests[0].startNs = 3 * us;
    t.in.arrivalsFixed = true;
    auto r = replayed(t, 0.5);
    EXPECT_EQ(r.requests[0].startNs, 3 * us);
    EXPECT_EQ(r.requests[0].endNs, r.tokens.back().timeNs);
}

TEST(WhatIf, PredictsTpotFromTheReplayWithAnInterval) {
    auto t = gpuBoundLoop(6);
    // Two requests of three tokens each, the second arriving at the first's end.
    for (std::size_t i = 3; i < 6; ++i) {
        t.in.tokens[i].requestId = 1;
        t.in.tokens[i].index = static_cast<std::int32_t>(i - 3);
    }
    t.in.requests[0].endNs = t.in.tokens[2].timeNs;
    t.in.requests[0].outputTokens = 3;
    t.in.requests.push_back({1, t.in.tokens[2].timeNs, t.in.tokens[5].timeNs, 512, 3, true});
    WhatIfScenario halve;
    halve.faster.push_back(parseKernelChange("gemv=2x"));
    auto p = predictWhatIf(t.run(), halve, 200);
    ASSERT_EQ(p.matches.size(), 1u);
    EXPECT_EQ(p.matches[0].ops, 24);
    auto tpot = std::find_if(p.values.begin(), p.values.end(), [](const PredictedValue& v) {
        return v.metric == "tpot" && v.statistic == "mean";
    });
    ASSERT_NE(tpot, p.values.end());
    EXPECT_NEAR(tpot->recorded, 0.411, 1e-9);  // 411 µs apart after the first
    EXPECT_NEAR(tpot->predicted, 0.211, 1e-9);
    EXPECT_TRUE(tpot->hasInterval);
    EXPECT_LE(tpot->ciLow, tpot->predicted);
    EXPECT_GE(tpot->ciHigh, tpot->predicted);
}

TEST(WhatIf, AChangeThatMatchesNothingIsAnErrorNamingIt) {
    WhatIfScenario s;
    s.faster.push_back(parseKernelChange("flashattn=30%"));
    try {
        predictWhatIf(gpuBoundLoop(2).run(), s);
        FAIL() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("flashattn=30%"), std::string::npos) << e.what();
    }
}

TEST(WhatIf, ParsesPercentagesAndSpeedUpsAndRefusesTheRest) {
    EXPECT_DOUBLE_EQ(parseKernelChange("gemv=30%").timeFactor, 0.7);
    EXPECT_DOUBLE_EQ(parseKernelChange("attention=2x").timeFactor, 0.5);
    EXPECT_EQ(parseKernelChange("Attention=2x").kernelClass, KernelClass::Attention);
    EXPECT_FALSE(parseKernelChange("gemvSplitK=2x").kernelClass);
    for (const char* bad : {"gemv", "gemv=", "=2x", "gemv=abc%", "gemv=100%", "gemv=0x", "gemv=2",
                            "gemv=nanx", "gemv=-5%"})
        EXPECT_THROW(parseKernelChange(bad), std::invalid_argument) << bad;
}

TEST(KernelClasses, NamesOfTheEnginesKernels) {
    EXPECT_EQ(classifyKernel("gemvSplitK"), KernelClass::Matmul);
    EXPECT_EQ(classifyKernel("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT"),
              KernelClass::Matmul);
    EXPECT_EQ(classifyKernel("sm90_xmma_gemm_bf16bf16_bf16f32"), KernelClass::Matmul);
    EXPECT_EQ(classifyKernel("flash_fwd_splitkv_kernel"), KernelClass::Attention);
    EXPECT_EQ(classifyKernel("ws::kernels::decodeSplitMma(...)"), KernelClass::Attention);
    EXPECT_EQ(classifyKernel("rmsnormFused<true>"), KernelClass::Elementwise);
    EXPECT_EQ(classifyKernel("void at::native::vectorized_elementwise_kernel<4>"),
              KernelClass::Elementwise);
    EXPECT_EQ(classifyKernel("argmaxPartial"), KernelClass::Sampling);
    EXPECT_EQ(classifyKernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL"), KernelClass::Collective);
    EXPECT_EQ(classifyKernel("fillKernel<ws::kernels::fillUniform>"), KernelClass::Copy);
    EXPECT_EQ(classifyKernel("myKernel"), KernelClass::Other);
    for (const auto& name : kernelClassNames())
        EXPECT_EQ(toString(*kernelClassFromString(name)), name);
}

}  // namespace
}  // namespace ws

namespace ws {
namespace {

TEST(WhatIf, RanksLaunchGapsFirstForALaunchBoundLoopAndSaysFasterKernelsBuyNothing) {
    auto options = rankOptions(launchBoundLoop(6).run(), 100);
    ASSERT_EQ(options.size(), 2u);  // the matmul class (all its kernels) and the launch gaps
    EXPECT_EQ(options[0].flags, "--no-launch-gaps");
    EXPECT_LT(options[0].value("tpot", "mean")->change(), -0.5);
    EXPECT_EQ(options[1].flags, "--faster matmul=30%");
    EXPECT_DOUBLE_EQ(options[1].gpuShare, 1.0);
    EXPECT_NEAR(options[1].value("tpot", "mean")->change(), 0.0, 1e-12);
}

TEST(WhatIf, OffersNoLaunchGapsToARunThatIsAlreadyGpuBound) {
    // Launch calls per token: 4, but every step waits on the GPU; the option
    // is offered and predicts almost nothing (5 µs of 411).
    auto options = rankOptions(gpuBoundLoop(6).run(), 100);
    ASSERT_EQ(options.size(), 2u);
    EXPECT_EQ(options[0].flags, "--faster matmul=30%");
    EXPECT_NEAR(options[0].value("tpot", "mean")->change(), -120.0 / 411, 1e-9);
}

}  // namespace
}  // namespace ws

namespace ws {
namespace {

TEST(TokenSteps, SplitEachStepIntoKernelsLaunchGapsAndHostAgainstItsFloor) {
    // GPU-bound: 411 µs from token to token, 400 of them back-to-back
    // kernels, 11 outside them.
    auto gpu = tokenSteps(gpuBoundLoop(3).run(), StepFloor{205.5e3, 1.0});
    EXPECT_EQ(gpu.steps, 2);
    EXPECT_DOUBLE_EQ(gpu.meanNs, 411 * us);
    EXPECT_DOUBLE_EQ(gpu.kernelNs.at(KernelClass::Matmul), 400 * us);
    EXPECT_DOUBLE_EQ(gpu.launchGapNs, 0);
    EXPECT_DOUBLE_EQ(gpu.hostNs, 11 * us);
    EXPECT_DOUBLE_EQ(gpu.solPercent(gpu.meanNs), 50.0);
    // Launch-bound: 49 µs steps, 4 kernels of 2 µs spread over 35 µs.
    auto host = tokenSteps(launchBoundLoop(3).run(), std::nullopt);
    EXPECT_EQ(host.steps, 2);
    EXPECT_DOUBLE_EQ(host.meanNs, 49 * us);
    EXPECT_DOUBLE_EQ(host.kernelNs.at(KernelClass::Matmul), 8 * us);
    EXPECT_DOUBLE_EQ(host.launchGapNs, 27 * us);
    EXPECT_DOUBLE_EQ(host.hostNs, 14 * us);
    EXPECT_EQ(host.solPercent(host.meanNs), 0);  // no floor declared
}

TEST(TokenSteps, ABatchedStepCountsOnceAndTheFloorComesFromTheRunsProperties) {
    auto t = gpuBoundLoop(3);
    auto other = t.in.tokens;  // a second request in the same batch, 1 µs behind
    for (auto& token : other) {
        token.requestId = 1;
        token.timeNs += us;
    }
    t.in.tokens.insert(t.in.tokens.end(), other.begin(), other.end());
    EXPECT_EQ(tokenSteps(t.run(), std::nullopt).steps, 2);
    auto floor = declaredStepFloor(
        {{"decoder.decode_step_bytes", "2488934400"}, {"ceiling.copy_gbs", "4173.955976"}});
    ASSERT_TRUE(floor);
    EXPECT_NEAR(floor->ns() / 1e6, 0.5963, 1e-4);
    EXPECT_FALSE(declaredStepFloor({{"decoder.decode_step_bytes", "2488934400"}}));
    EXPECT_FALSE(
        declaredStepFloor({{"decoder.decode_step_bytes", "nan"}, {"ceiling.copy_gbs", "1"}}));
}

TEST(TokenSteps, PrefillIsArrivalToFirstTokenAgainstTheLongerOfFlopsAndWeights) {
    // The request arrives at 0 and its first token comes at 409 µs.
    // 204.5 MFLOP at 1 TFLOP/s: 204.5 µs; 100 kB of weights at 1 GB/s: 100 µs.
    auto flopsBound =
        tokenSteps(gpuBoundLoop(3).run(), std::nullopt, PrefillFloor{204.5e6, 1.0, 100e3, 1.0});
    EXPECT_EQ(flopsBound.prefills, 1);
    EXPECT_DOUBLE_EQ(flopsBound.ttftMeanNs, 409 * us);
    EXPECT_DOUBLE_EQ(flopsBound.prefillFloor->ns(), 204.5 * us);
    EXPECT_DOUBLE_EQ(flopsBound.prefillSolPercent(), 50.0);
    // 409 kB of weights: reading them once is the longer, the whole TTFT.
    auto bytesBound =
        tokenSteps(gpuBoundLoop(3).run(), std::nullopt, PrefillFloor{204.5e6, 1.0, 409e3, 1.0});
    EXPECT_DOUBLE_EQ(bytesBound.prefillSolPercent(), 100.0);
    EXPECT_EQ(tokenSteps(gpuBoundLoop(3).run(), std::nullopt).prefillSolPercent(), 0);

    auto declared = declaredPrefillFloor({{"decoder.prefill_flops", "1.0e12"},
                                          {"ceiling.bf16_tflops", "800"},
                                          {"model.weight_bytes", "2.5e9"},
                                          {"ceiling.copy_gbs", "3000"}});
    ASSERT_TRUE(declared);
    EXPECT_DOUBLE_EQ(declared->ns(), 1.25e6);  // FLOPs: 1.25 ms; weights 0.83 ms
    auto noWeights =
        declaredPrefillFloor({{"decoder.prefill_flops", "1.0e12"}, {"ceiling.bf16_tflops", "800"}});
    ASSERT_TRUE(noWeights);
    EXPECT_DOUBLE_EQ(noWeights->ns(), 1.25e6);
    EXPECT_FALSE(declaredPrefillFloor({{"decoder.prefill_flops", "1.0e12"}}));
}

}  // namespace
}  // namespace ws

namespace ws {
namespace {

TEST(TimelineReplay, ASynchronizeThatDidNotWaitIsReproducedBesideOnesThatDid) {
    // The GPU-bound loop's synchronizes wait (3 µs wake-up); then a last
    // 2 µs kernel ends 1 µs before a synchronize that finds it done.
    auto t = gpuBoundLoop(2);
    const std::int64_t at = t.in.tokens.back().timeNs / us + 2;
    t.launch(at, at + 1, at + 5, at + 7);
    t.sync(at + 8, at + 9);
    t.token(0, 2, at + 10);
    t.in.requests[0].endNs = (at + 12) * us;  // the request ends 2 µs after its last token
    auto same = replayed(t, 1.0);
    for (std::size_t i = 0; i < same.tokens.size(); ++i)
        EXPECT_EQ(same.tokens[i].timeNs, t.in.tokens[i].timeNs) << "token " << i;
    EXPECT_EQ(same.requests[0].endNs, t.in.requests[0].endNs);
}

TEST(TimelineReplay, ASynchronizeOnAnotherThreadWaitsForTheWorkItLaunched) {
    // Thread 7 launches a 300 µs kernel; thread 8 synchronizes and marks the
    // token. At half the time the token comes 150 µs sooner.
    Timeline t;
    t.in.requests.push_back({0, 0, 0, 16, 1, true});
    t.launch(0, 1, 5, 305);
    t.thread = 8;
    t.sync(2, 308);
    t.token(0, 0, 309);
    t.in.requests[0].endNs = 309 * us;
    EXPECT_EQ(replayed(t, 0.5).tokens[0].timeNs, (309 - 150) * us);
}

// Steps of a 100 µs GEMV and a 10 µs norm, then a synchronize and a token:
// GPU-bound, 121 µs apart.
Timeline gemvAndNormLoop(int steps) {
    Timeline t;
    t.in.requests.push_back({0, 0, 0, 512, steps, true});
    std::int64_t at = 0;
    for (int s = 0; s < steps; ++s) {
        const std::int64_t first = at + 5;
        t.launch(at, at + 1, first, first + 100, "gemvSplitK");
        t.launch(at + 2, at + 3, first + 100, first + 110, "rmsnormFused");
        t.sync(at + 4, first + 113);
        t.token(0, s, first + 114);
        at = first + 116;
    }
    t.in.requests[0].endNs = t.in.tokens.back().timeNs;
    return t;
}

double tpotMean(const WhatIfPrediction& p, bool predicted) {
    for (const auto& v : p.values)
        if (v.metric == "tpot" && v.statistic == "mean")
            return predicted ? v.predicted : v.recorded;
    return -1;
}

TEST(WhatIf, AKernelAtRoofTakesItsCountedWorkAtTheCeilingsButNoLessThanTheShortestKernel) {
    const auto t = gemvAndNormLoop(6);
    RooflineCeilings ceilings;
    ceilings.dramGBs = 1000;  // bytes per ns
    ceilings.tensorTflops = 100;
    std::map<std::string, KernelCounterStat> counted;
    counted["gemvSplitK"].instances = 6;
    counted["gemvSplitK"].meanDramBytes = 40e3 * 1000;  // 40 µs at 1000 GB/s
    counted["rmsnormFused"].instances = 6;
    counted["rmsnormFused"].meanDramBytes = 1e3 * 1000;  // 1 µs: below the 10 µs norm itself

    WhatIfScenario gemv;
    gemv.faster.push_back(kernelAtRoof("gemv"));
    setRoofFloors(gemv.faster[0], counted, ceilings);
    auto p = predictWhatIf(t.run(), gemv, 100);
    EXPECT_NEAR(tpotMean(p, false), 0.121, 1e-9);
    EXPECT_NEAR(tpotMean(p, true), 0.061, 1e-9);  // 60 µs of each step saved
    EXPECT_EQ(p.matches[0].floorNs, 6 * 40'000);

    // Matched twice (by name and by its class), a kernel is still at its
    // floor, not below it.
    WhatIfScenario twice = gemv;
    twice.faster.push_back(kernelAtRoof("matmul"));
    setRoofFloors(twice.faster[1], counted, ceilings);
    EXPECT_NEAR(tpotMean(predictWhatIf(t.run(), twice, 100), true), 0.061, 1e-9);

    // The norm's roofline floor (1 µs) lies below the run's shortest kernel:
    // it stays at 10 µs, and nothing changes.
    WhatIfScenario norm;
    norm.faster.push_back(kernelAtRoof("rmsnorm"));
    setRoofFloors(norm.faster[0], counted, ceilings);
    EXPECT_NEAR(tpotMean(predictWhatIf(t.run(), norm, 100), true), 0.121, 1e-9);

    // FLOPs set the floor where they take longer than the bytes.
    counted["gemvSplitK"].flopsCounted = true;
    counted["gemvSplitK"].meanTensorFlops = 8e9;  // 80 µs at 100 TFLOP/s
    setRoofFloors(gemv.faster[0], counted, ceilings);
    EXPECT_NEAR(tpotMean(predictWhatIf(t.run(), gemv, 100), true), 0.101, 1e-9);

    // Matched kernels without counted work: refused, saying how to count them.
    WhatIfScenario uncounted;
    uncounted.faster.push_back(kernelAtRoof("gemv"));
    try {
        predictWhatIf(t.run(), uncounted, 100);
        FAIL() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("--metrics roofline"), std::string::npos) << e.what();
    }
    EXPECT_THROW(kernelAtRoof("gemv=30%"), std::invalid_argument);
}

TEST(WhatIf, OneRequestGivesNoInterval) {
    auto t = gpuBoundLoop(4);  // one request
    WhatIfScenario halve;
    halve.faster.push_back(parseKernelChange("matmul=2x"));
    auto p = predictWhatIf(t.run(), halve, 100);
    ASSERT_FALSE(p.values.empty());
    for (const auto& v : p.values)
        EXPECT_FALSE(v.hasInterval) << v.metric << " " << v.statistic;
}

}  // namespace
}  // namespace ws

namespace ws {
namespace {

TEST(TimelineReplay, AServerWaitingForRequestsDoesNotAnswerBeforeTheyArrive) {
    // Requests arrive every 1000 µs; each is served by one 400 µs step that
    // starts 10 µs after its arrival, and its token comes at the step's end.
    // Faster kernels shorten each answer, never move it before its arrival.
    Timeline t;
    t.in.arrivalsFixed = true;
    for (int r = 0; r < 3; ++r) {
        const std::int64_t arrival = 1000 * r;
        const std::int64_t at = arrival + 10;
        t.launch(at, at + 1, at + 5, at + 405);
        t.sync(at + 2, at + 408);
        t.token(r, 0, at + 409);
        t.in.requests.push_back({r, arrival * us, (at + 409) * us, 16, 1, true});
    }
    auto r = replayed(t, 0.5);
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(r.requests[i].startNs, 1000 * i * us);
        // 10 µs to the launch, 5 to the kernel, 200 of kernel, 3 of wake-up, 1 to the token.
        EXPECT_EQ(r.tokens[i].timeNs, (1000 * i + 10 + 5 + 200 + 3 + 1) * us) << "request " << i;
    }
}

}  // namespace
}  // namespace ws
