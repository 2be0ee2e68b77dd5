// The capture-cost estimate: the calibration's arithmetic and how a run
// states it (show, the details panel and the report read the same line).
#include <gtest/gtest.h>

#include "analysis/capture_cost.h"
#include "model/query_calls.h"

namespace ws {
namespace {

TEST(CaptureCost, PerLaunchCostIsTheDifferenceOfMedians) {
    // 20,000 launches: untraced rounds 80, 100 (median), 120 ms; traced 130,
    // 110 and 200 ms (median 130): 30 ms / 20,000 = 1.5 µs per launch.
    auto c = launchCostFrom({80e6, 120e6, 100e6}, {130e6, 110e6, 200e6}, 20000);
    EXPECT_DOUBLE_EQ(c.untracedNs, 5000);
    EXPECT_DOUBLE_EQ(c.tracedNs, 6500);
    EXPECT_DOUBLE_EQ(c.perLaunchNs, 1500);
    EXPECT_EQ(c.rounds, 3);
    // Noise that makes tracing look free is not a negative cost.
    EXPECT_DOUBLE_EQ(launchCostFrom({100e6}, {99e6}, 20000).perLaunchNs, 0);
    EXPECT_DOUBLE_EQ(launchCostFrom({1, 3}, {5, 9}, 1).perLaunchNs, 5);  // even count: mean of two
    EXPECT_THROW(launchCostFrom({}, {1}, 10), std::invalid_argument);
    EXPECT_THROW(launchCostFrom({1}, {1}, 0), std::invalid_argument);
}

TEST(CaptureCost, StatedFromTheRunsPropertiesOrNotAtAll) {
    std::map<std::string, std::string> p;
    EXPECT_FALSE(captureCostLine(p));
    p[capture_cost::kPerLaunchNs] = "420.0";
    EXPECT_FALSE(captureCostLine(p));  // no share: not stated by halves
    p[capture_cost::kShare] = "0.0134";
    EXPECT_EQ(*captureCostLine(p),
              "capture cost ≈ 0.42 µs per launch, ≈ 1.3 % of this run's wall time");
    p[capture_cost::kBasis] = "20000 empty launches × 3 rounds";
    EXPECT_NE(captureCostLine(p)->find("(20000 empty launches × 3 rounds)"), std::string::npos);
    p[capture_cost::kShare] = "not a number";
    EXPECT_FALSE(captureCostLine(p));
}

// State-reading calls (cudaGetDevice and kin) are left out of the records
// but still hooked by CUPTI: they are charged per call, as counted.
TEST(CaptureCost, StateReadingCallsAreChargedByTheirOwnCalibratedCost) {
    // 20,000 launches: bare 1.5 µs per launch more traced; with 8 more
    // state-reading calls each, 5.5 µs more: 0.5 µs per call.
    auto bare = launchCostFrom({100e6}, {130e6}, 20000);
    auto withQueries = launchCostFrom({110e6}, {220e6}, 20000);
    EXPECT_DOUBLE_EQ(queryCostFrom(bare, withQueries, 8), 500);
    EXPECT_DOUBLE_EQ(queryCostFrom(bare, withQueries, 8.5), 4000 / 8.5);  // as counted
    // Noise cannot make them cheaper than free.
    EXPECT_DOUBLE_EQ(queryCostFrom(withQueries, bare, 8), 0);
    EXPECT_THROW(queryCostFrom(bare, withQueries, 0), std::invalid_argument);
    // Calls a bare launch makes itself are inside its cost: only the rest
    // are charged, and never fewer than none.
    bare.queriesPerLaunch = 1;
    EXPECT_DOUBLE_EQ(extraQueryCalls(bare.queriesPerLaunch, 40000, 240000), 200000);
    EXPECT_DOUBLE_EQ(extraQueryCalls(bare.queriesPerLaunch, 40000, 10000), 0);

    std::map<std::string, std::string> p{{capture_cost::kPerLaunchNs, "1500.0"},
                                         {capture_cost::kShare, "0.25"},
                                         {capture_cost::kPerQueryNs, "500.0"},
                                         {capture_cost::kKernels, "40000"},
                                         {kQueryCallCountProperty, "240000"}};
    EXPECT_EQ(*captureCostLine(p),
              "capture cost ≈ 1.50 µs per launch and 0.50 µs per extra state-reading call (6.0 "
              "per launch in this run), ≈ 25.0 % of this run's wall time");
    p[capture_cost::kLaunchQueryCalls] = "1.00";
    EXPECT_NE(captureCostLine(p)->find("(5.0 per launch in this run)"), std::string::npos);
    // A run recorded before the calls were counted states the launches alone.
    p.erase(kQueryCallCountProperty);
    EXPECT_EQ(*captureCostLine(p),
              "capture cost ≈ 1.50 µs per launch, ≈ 25.0 % of this run's wall time");
    // A run traced in capture windows says what the figure leaves out.
    p["capture.range"] = "cudaProfilerApi";
    EXPECT_NE(captureCostLine(p)->find(", inside the capture windows only; after the first window "
                                       "the program runs slower outside them too"),
              std::string::npos);
    p["capture.range"] = "whole run";
    EXPECT_EQ(captureCostLine(p)->find("capture windows"), std::string::npos);
}

// Node tracing holds each CUDA graph launch before its first node; a run
// that replayed most of its kernels from graphs is told what the cheap mode
// would save.
TEST(CaptureCost, GraphLaunchesHeldByNodeTracingAreStatedAndTheCheapModeNamed) {
    std::map<std::string, std::string> p{{capture_cost::kPerLaunchNs, "3000.0"},
                                         {capture_cost::kShare, "0.031"},
                                         {capture_cost::kKernels, "200"},
                                         {capture_cost::kGraphLaunches, "820"},
                                         {capture_cost::kGraphKernels, "53300"},
                                         {capture_cost::kGraphHeldNs, "174000000"},
                                         {capture_cost::kGraphHeldMedianNs, "212000"}};
    EXPECT_EQ(*captureCostLine(p),
              "capture cost ≈ 3.00 µs per launch and 212 µs per CUDA graph launch held by node "
              "tracing before its first node (820 launches, 174 ms in all), ≈ 3.1 % of this "
              "run's wall time; most kernels (53300 of 53500) were replayed from CUDA graphs: "
              "--graph-trace graph (one span per graph launch) would save most of the 174 ms");
    // Fewer replayed than launched: stated, but the mode is not pressed.
    p[capture_cost::kKernels] = "60000";
    EXPECT_EQ(captureCostLine(p)->find("--graph-trace graph"), std::string::npos);
    EXPECT_NE(captureCostLine(p)->find("820 launches"), std::string::npos);
    // Nothing held (a run traced a graph at a time): nothing said of graphs.
    p[capture_cost::kGraphHeldNs] = "0";
    EXPECT_EQ(captureCostLine(p)->find("graph"), std::string::npos);
}

// A traced process pays once for its start and end under CUPTI: the bare
// loop's whole run beyond what its launches account for, round by round.
TEST(CaptureCost, EachTracedProcessPaysItsStartAndEndOnce) {
    CalibrationRounds r;
    r.untracedNs[0] = {100e6, 100e6, 100e6};
    r.tracedNs[0] = {130e6, 140e6, 130e6};
    r.untracedNs[1] = {110e6, 110e6, 110e6};
    r.tracedNs[1] = {220e6, 220e6, 220e6};
    r.countedPerLaunch[1] = {8, 8, 8};
    // Whole runs: 560 ms untraced; traced 30/40/30 ms more in the loop and
    // 120, 100, 90 ms more beside it (median 100 ms).
    r.untracedRunNs = {560e6, 560e6, 560e6};
    r.tracedRunNs = {710e6, 700e6, 680e6};
    EXPECT_DOUBLE_EQ(costFromCalibration(r, 20000, 8).perProcessNs, 100e6);
    // Noise never makes a process cheaper than free; no timed runs, no cost.
    r.tracedRunNs = {560e6, 560e6, 560e6};
    EXPECT_DOUBLE_EQ(costFromCalibration(r, 20000, 8).perProcessNs, 0);
    r.untracedRunNs.clear();
    EXPECT_DOUBLE_EQ(costFromCalibration(r, 20000, 8).perProcessNs, 0);

    std::map<std::string, std::string> p{{capture_cost::kPerLaunchNs, "3000.0"},
                                         {capture_cost::kShare, "0.25"},
                                         {capture_cost::kPerProcessNs, "110000000"}};
    EXPECT_EQ(*captureCostLine(p),
              "capture cost ≈ 3.00 µs per launch and 110 ms per traced process (its start and "
              "end under CUPTI), ≈ 25.0 % of this run's wall time");
    p[capture_cost::kProcesses] = "4";
    EXPECT_NE(captureCostLine(p)->find("CUPTI, 4 processes)"), std::string::npos);
}

// The calibration's two loops: the bare launch's own state-reading calls
// stay in its cost, the second loop's extra calls divide its extra cost.
TEST(CaptureCost, TheCalibrationChargesOnlyTheCallsBeyondABareLaunchs) {
    CalibrationRounds r;
    // 20,000 launches: bare +1.5 µs each traced, counting 1 call per launch;
    // the second loop +5.5 µs, counting 9 (8 more).
    r.untracedNs[0] = {100e6, 100e6, 100e6};
    r.tracedNs[0] = {130e6, 130e6, 130e6};
    r.countedPerLaunch[0] = {1, 1, 1};
    r.untracedNs[1] = {110e6, 110e6, 110e6};
    r.tracedNs[1] = {220e6, 220e6, 220e6};
    r.countedPerLaunch[1] = {9, 9, 9};
    auto c = costFromCalibration(r, 20000, 8);
    EXPECT_DOUBLE_EQ(c.perLaunchNs, 1500);
    EXPECT_DOUBLE_EQ(c.queriesPerLaunch, 1);
    EXPECT_DOUBLE_EQ(c.perQueryNs, 500);
    // More counted than asked (nested calls): divided among all of them.
    r.countedPerLaunch[1] = {11, 11, 11};
    EXPECT_DOUBLE_EQ(costFromCalibration(r, 20000, 8).perQueryNs, 400);
    // Fewer counted than asked, or nothing counted (no callbacks): divided
    // among those asked for, not inflated.
    r.countedPerLaunch[1] = {3, 3, 3};
    EXPECT_DOUBLE_EQ(costFromCalibration(r, 20000, 8).perQueryNs, 500);
    r.countedPerLaunch[0].clear();
    r.countedPerLaunch[1].clear();
    c = costFromCalibration(r, 20000, 8);
    EXPECT_DOUBLE_EQ(c.queriesPerLaunch, 0);
    EXPECT_DOUBLE_EQ(c.perQueryNs, 500);
}

// What the calibration reads from its loop's run log.
TEST(CaptureCost, TheLaunchLoopsOutputIsReadFromAmongOtherLines) {
    auto out = parseLaunchLoopOutput(
        "[warpscope] run 3 ok\nLAUNCH_LOOP_NS 101000000 LAUNCHES 20000 QUERIES_PER_LAUNCH 8 "
        "WARM_UP_LAUNCHES 1000\n[warpscope] capture cost not estimated\n");
    ASSERT_TRUE(out);
    EXPECT_DOUBLE_EQ(out->loopNs, 101e6);
    EXPECT_DOUBLE_EQ(out->launches, 20000);
    EXPECT_DOUBLE_EQ(out->warmUpLaunches, 1000);
    // An older warpscope-workload printed no warm-up: none is assumed.
    EXPECT_DOUBLE_EQ(parseLaunchLoopOutput("LAUNCH_LOOP_NS 5 LAUNCHES 2")->warmUpLaunches, 0);
    EXPECT_FALSE(parseLaunchLoopOutput("LAUNCHES 20000"));
    EXPECT_FALSE(parseLaunchLoopOutput("LAUNCH_LOOP_NS 5 LAUNCHES 0"));
    EXPECT_FALSE(parseLaunchLoopOutput("LAUNCH_LOOP_NS fast LAUNCHES 2"));
    EXPECT_FALSE(parseLaunchLoopOutput("LAUNCH_LOOP_NS -5 LAUNCHES 2"));
    EXPECT_FALSE(parseLaunchLoopOutput("LAUNCH_LOOP_NS inf LAUNCHES 2"));
    EXPECT_FALSE(parseLaunchLoopOutput(""));
}

// record --capture-range: how much of the run its windows traced.
TEST(CaptureCost, ACaptureRangeSaysHowMuchOfTheRunWasTraced) {
    std::map<std::string, std::string> p;
    EXPECT_FALSE(captureRangeLine(p, 10'000'000'000));
    p["capture.range"] = "whole run";
    EXPECT_FALSE(captureRangeLine(p, 10'000'000'000));
    p["capture.range"] = "cudaProfilerApi";
    EXPECT_EQ(*captureRangeLine(p, 10'000'000'000),
              "traced only between cudaProfilerStart and cudaProfilerStop, and the program "
              "opened no such window: nothing was traced");
    p["capture.windows"] = "3";
    p["capture.windows_ns"] = "1210000000";
    auto line = *captureRangeLine(p, 10'000'000'000);
    EXPECT_NE(line.find(": 3 windows, 1.21 s of the run's 10"), std::string::npos) << line;
    EXPECT_NE(line.find("(12 %)"), std::string::npos) << line;
    p["capture.windows"] = "1";
    EXPECT_NE(captureRangeLine(p, 0)->find(": 1 window, 1.21 s"), std::string::npos);
    // Several processes' windows may add up to more than the run lasted.
    p["capture.windows"] = "4";
    EXPECT_NE(captureRangeLine(p, 1'000'000'000)->find("1.21 s in all, over several processes"),
              std::string::npos);
}

}  // namespace
}  // namespace ws
