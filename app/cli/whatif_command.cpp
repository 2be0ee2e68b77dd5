// whatif RUN: the run's latency and throughput with some kernels faster or
// without launch gaps, predicted by replaying its own timeline.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis/whatif.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/open_store.h"
#include "cli/text_table.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "util/format.h"

namespace ws::cli {

namespace {

using json = nlohmann::ordered_json;

std::string valueText(const PredictedValue& v) {
    return formatFixed(v.predicted, v.metric == "output throughput" ? 1 : 3);
}

std::string percentChange(double fraction) {
    return (fraction >= 0 ? "+" : "") + formatFixed(100 * fraction, 1) + " %";
}

}  // namespace

int cmdWhatIf(const std::vector<std::string>& argv) {
    auto args = Args::parse(
        argv, {{"json", "no-launch-gaps", "untraced-graph-launches"},
               {"db", "faster", "kernel-at-roof", "counters-from", "graph-launch-us", "seed"},
               1,
               1});
    const auto id = parseRunId(args.positional()[0]);
    WhatIfScenario scenario;
    try {
        for (const auto& text : args.values("faster"))
            scenario.faster.push_back(parseKernelChange(text));
        for (const auto& text : args.values("kernel-at-roof"))
            scenario.faster.push_back(kernelAtRoof(text));
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    scenario.replay.noLaunchGaps = args.flag("no-launch-gaps");
    scenario.replay.untracedGraphLaunches = args.flag("untraced-graph-launches");
    if (auto us = args.value("graph-launch-us")) {
        if (!scenario.replay.noLaunchGaps && !scenario.replay.untracedGraphLaunches)
            throw UsageError(
                "--graph-launch-us is the cost of a graph launch: give it with "
                "--no-launch-gaps or --untraced-graph-launches");
        scenario.replay.graphLaunchNs = parseInteger("graph-launch-us", *us, 0, 1'000'000) * 1000;
    }
    if (scenario.faster.empty() && !scenario.replay.noLaunchGaps &&
        !scenario.replay.untracedGraphLaunches)
        throw UsageError(
            "whatif needs a change: --faster NAME_OR_CLASS=30% (or =2x), "
            "--kernel-at-roof NAME_OR_CLASS, repeated as needed, --no-launch-gaps and/or "
            "--untraced-graph-launches");
    const bool atRoof = !args.values("kernel-at-roof").empty();
    if (args.value("counters-from") && !atRoof)
        throw UsageError(
            "--counters-from names the run whose counted work sets the floors of "
            "--kernel-at-roof: give it with --kernel-at-roof");
    const auto seed =
        static_cast<unsigned>(parseInteger("seed", args.valueOr("seed", "1"), 0, 1u << 31));
    auto opened = openStore(args);
    if (auto counters = args.value("counters-from")) scenario.countersRun = parseRunId(*counters);
    if (const auto warning = setRoofFloors(*opened, id, scenario); !warning.empty())
        std::cerr << "whatif: " << warning << '\n';
    auto run = loadWhatIfRun(*opened, id);
    const auto p = predictWhatIf(std::move(run), scenario, 1000, seed);

    if (args.flag("json")) {
        json j = {{"run", id}, {"scenario", scenario.describe()}};
        j["matched"] = json::array();
        for (const auto& m : p.matches) {
            json match = {{"change", m.asWritten}, {"ops", m.ops}, {"gpu_time_ns", m.timeNs}};
            if (m.atRoof) {
                match["ops_without_counted_work"] = m.opsWithoutWork;
                match["gpu_time_at_floor_ns"] = m.floorNs;
            }
            j["matched"].push_back(match);
        }
        j["gpu_time_ns"] = p.gpuTimeNs;
        j["replayed_gpu_time_ns"] = p.replayedGpuTimeNs;
        j["launches_removed"] = p.launchesRemoved;
        j["launch_latency_floor_ns"] = p.floors.launchLatencyNs;
        j["queued_gap_floor_ns"] = p.floors.queuedGapNs;
        j["predictions"] = json::array();
        for (const auto& v : p.values)
            j["predictions"].push_back({{"metric", v.metric},
                                        {"statistic", v.statistic},
                                        {"recorded", v.recorded},
                                        {"predicted", v.predicted},
                                        {"ci95_low", v.hasInterval ? json(v.ciLow) : json()},
                                        {"ci95_high", v.hasInterval ? json(v.ciHigh) : json()},
                                        {"change", v.change()}});
        std::cout << j.dump(2) << '\n';
        return 0;
    }
    std::cout << "run " << id << " if: " << scenario.describe() << '\n';
    for (const auto& m : p.matches) {
        std::cout << "  " << m.asWritten << " matched " << m.ops << " launches, "
                  << formatDuration(m.timeNs) << " of " << formatDuration(p.gpuTimeNs)
                  << " GPU time";
        if (m.atRoof)
            std::cout << "; at their floors " << formatDuration(m.floorNs)
                      << (m.opsWithoutWork ? " (" + std::to_string(m.opsWithoutWork) +
                                                 " launches without counted work kept)"
                                           : std::string());
        std::cout << '\n';
    }
    if (scenario.replay.noLaunchGaps)
        std::cout << "  " << p.launchesRemoved << " launch calls made free; graph nodes "
                  << formatDuration(scenario.replay.nodeGapNs) << " apart\n";
    std::cout << "  replayed over " << p.requests << " requests and " << p.tokens
              << " tokens; the run's floors: launch to kernel "
              << formatDuration(p.floors.launchLatencyNs) << ", queued kernel to kernel "
              << formatDuration(p.floors.queuedGapNs) << "\n\n";
    TextTable table({"metric", "statistic", "recorded", "predicted", "95% interval", "change"});
    for (const auto& v : p.values) {
        const int digits = v.metric == "output throughput" ? 1 : 3;
        table.add({v.metric == "output throughput" ? v.metric : v.metric + " ms", v.statistic,
                   formatFixed(v.recorded, digits), valueText(v),
                   v.hasInterval ? "[" + formatFixed(v.ciLow, digits) + ", " +
                                       formatFixed(v.ciHigh, digits) + "]"
                                 : std::string("— (one request)"),
                   percentChange(v.change())});
    }
    table.print(std::cout);
    std::cout << "(a replay of the run's own timeline: docs/advisor.md states the model's "
                 "assumptions; the interval is the spread over the run's requests, not the "
                 "model's error)\n";
    return 0;
}

}  // namespace ws::cli
