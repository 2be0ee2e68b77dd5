#include "analysis/capture_cost.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "model/capture_windows.h"
#include "model/query_calls.h"
#include "util/format.h"

namespace ws {

namespace {
double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::optional<double> number(const std::map<std::string, std::string>& p, const char* key) {
    auto it = p.find(key);
    if (it == p.end()) return std::nullopt;
    try {
        return std::stod(it->second);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}
}  // namespace

std::optional<LaunchLoopOutput> parseLaunchLoopOutput(const std::string& log) {
    std::istringstream in(log);
    std::map<std::string, double> printed;
    for (std::string word, value; in >> word;)
        if ((word == "LAUNCH_LOOP_NS" || word == "LAUNCHES" || word == "WARM_UP_LAUNCHES") &&
            in >> value) {
            char* end = nullptr;
            const double v = std::strtod(value.c_str(), &end);
            if (end == value.c_str() || *end != '\0' || !std::isfinite(v) || v < 0)
                return std::nullopt;
            printed[word] = v;
        }
    if (!printed.count("LAUNCH_LOOP_NS") || !(printed["LAUNCHES"] > 0)) return std::nullopt;
    return LaunchLoopOutput{printed["LAUNCH_LOOP_NS"], printed["LAUNCHES"],
                            printed["WARM_UP_LAUNCHES"]};
}

LaunchCost launchCostFrom(const std::vector<double>& untracedLoopNs,
                          const std::vector<double>& tracedLoopNs, int launches) {
    if (untracedLoopNs.empty() || tracedLoopNs.empty() || launches < 1)
        throw std::invalid_argument("launch cost: no rounds or no launches to divide by");
    LaunchCost c;
    c.launches = launches;
    c.rounds = static_cast<int>(std::min(untracedLoopNs.size(), tracedLoopNs.size()));
    c.untracedNs = median(untracedLoopNs) / launches;
    c.tracedNs = median(tracedLoopNs) / launches;
    // Tracing cannot make launches faster; a negative difference is noise.
    c.perLaunchNs = std::max(0.0, c.tracedNs - c.untracedNs);
    return c;
}

double queryCostFrom(const LaunchCost& bare, const LaunchCost& withQueries,
                     double addedQueriesPerLaunch) {
    if (!(addedQueriesPerLaunch > 0))
        throw std::invalid_argument("query cost: no state-reading calls to divide by");
    return std::max(0.0, (withQueries.perLaunchNs - bare.perLaunchNs) / addedQueriesPerLaunch);
}

LaunchCost costFromCalibration(const CalibrationRounds& rounds, int launches, int queriesAsked) {
    LaunchCost bare = launchCostFrom(rounds.untracedNs[0], rounds.tracedNs[0], launches);
    const LaunchCost withQueries =
        launchCostFrom(rounds.untracedNs[1], rounds.tracedNs[1], launches);
    auto countedMedian = [](const std::vector<double>& v) { return v.empty() ? 0 : median(v); };
    bare.queriesPerLaunch = countedMedian(rounds.countedPerLaunch[0]);
    const double added = countedMedian(rounds.countedPerLaunch[1]) - bare.queriesPerLaunch;
    bare.perQueryNs = queryCostFrom(bare, withQueries, std::max<double>(added, queriesAsked));
    const std::size_t paired = std::min({rounds.untracedRunNs.size(), rounds.tracedRunNs.size(),
                                         rounds.untracedNs[0].size(), rounds.tracedNs[0].size()});
    std::vector<double> perProcess;
    for (std::size_t i = 0; i < paired; ++i)
        perProcess.push_back((rounds.tracedRunNs[i] - rounds.untracedRunNs[i]) -
                             (rounds.tracedNs[0][i] - rounds.untracedNs[0][i]));
    if (!perProcess.empty()) bare.perProcessNs = std::max(0.0, median(perProcess));
    return bare;
}

double extraQueryCalls(double bareLaunchQueries, std::int64_t kernels, double queryCalls) {
    return std::max(0.0, queryCalls - bareLaunchQueries * static_cast<double>(kernels));
}

std::optional<std::string> captureCostLine(const std::map<std::string, std::string>& properties) {
    auto perLaunch = number(properties, capture_cost::kPerLaunchNs);
    auto share = number(properties, capture_cost::kShare);
    if (!perLaunch || !share) return std::nullopt;
    std::string line = "capture cost ≈ " + formatFixed(*perLaunch / 1000.0, 2) + " µs per launch";
    auto perQuery = number(properties, capture_cost::kPerQueryNs);
    auto queries = number(properties, kQueryCallCountProperty);
    auto kernels = number(properties, capture_cost::kKernels);
    if (perQuery && queries) {
        line += " and " + formatFixed(*perQuery / 1000.0, 2) + " µs per extra state-reading call";
        if (kernels && std::isfinite(*kernels) && *kernels > 0) {
            const double extra =
                extraQueryCalls(number(properties, capture_cost::kLaunchQueryCalls).value_or(0),
                                static_cast<std::int64_t>(*kernels), *queries) /
                *kernels;
            line += " (" + formatFixed(extra, 1) + " per launch in this run)";
        }
    }
    if (auto perProcess = number(properties, capture_cost::kPerProcessNs);
        perProcess && *perProcess > 0) {
        const auto processes = number(properties, capture_cost::kProcesses).value_or(1);
        line += " and " + formatDuration(static_cast<std::int64_t>(*perProcess)) +
                " per traced process (its start and end under CUPTI" +
                (processes > 1 ? ", " + formatFixed(processes, 0) + " processes" : std::string()) +
                ")";
    }
    const auto graphLaunches = number(properties, capture_cost::kGraphLaunches).value_or(0);
    const auto heldNs = number(properties, capture_cost::kGraphHeldNs).value_or(0);
    const bool held = graphLaunches >= 1 && heldNs > 0;
    if (held)
        line += " and " +
                formatDuration(static_cast<std::int64_t>(
                    number(properties, capture_cost::kGraphHeldMedianNs).value_or(0))) +
                " per CUDA graph launch held by node tracing before its first node (" +
                formatFixed(graphLaunches, 0) + " launches, " +
                formatDuration(static_cast<std::int64_t>(heldNs)) + " in all)";
    line += ", ≈ " + formatFixed(*share * 100.0, 1) + " % of this run's wall time";
    // Most kernels replayed from graphs: the cheap mode is worth naming.
    const auto graphKernels = number(properties, capture_cost::kGraphKernels).value_or(0);
    if (held && kernels && graphKernels > *kernels)
        line += "; most kernels (" + formatFixed(graphKernels, 0) + " of " +
                formatFixed(graphKernels + *kernels, 0) +
                ") were replayed from CUDA graphs: --graph-trace graph (one span per graph "
                "launch) would save most of the " +
                formatDuration(static_cast<std::int64_t>(heldNs));
    // Measured: once a window has traced, CUPTI keeps most of its cost
    // outside the windows too (docs/benchmarks.md), and nothing counts it.
    if (auto range = properties.find(capture_window::kRangeProperty);
        range != properties.end() && range->second == capture_window::kProfilerApi)
        line +=
            ", inside the capture windows only; after the first window the program runs slower "
            "outside them too, as CUPTI keeps its hooks";
    if (auto basis = properties.find(capture_cost::kBasis); basis != properties.end())
        line += " (" + basis->second + ")";
    return line;
}

std::optional<std::string> captureRangeLine(const std::map<std::string, std::string>& properties,
                                            std::int64_t runNs) {
    auto range = properties.find(capture_window::kRangeProperty);
    if (range == properties.end() || range->second != capture_window::kProfilerApi)
        return std::nullopt;
    const auto windows = number(properties, capture_window::kCountProperty).value_or(0);
    if (windows < 1)
        return std::string(
            "traced only between cudaProfilerStart and cudaProfilerStop, and the "
            "program opened no such window: nothing was traced");
    const auto tracedNs = number(properties, capture_window::kTracedNsProperty).value_or(0);
    std::string line =
        "traced only between cudaProfilerStart and cudaProfilerStop: " + formatFixed(windows, 0) +
        (windows == 1 ? " window, " : " windows, ") +
        formatDuration(static_cast<std::int64_t>(tracedNs));
    if (tracedNs > static_cast<double>(runNs)) {
        // Windows of several processes (a server's workers) overlap.
        line += " in all, over several processes";
    } else if (runNs > 0) {
        const double percent = 100.0 * tracedNs / static_cast<double>(runNs);
        line += " of the run's " + formatDuration(runNs) + " (" +
                (percent < 0.5 ? std::string("< 1") : formatFixed(percent, 0)) + " %)";
    }
    return line;
}

}  // namespace ws
