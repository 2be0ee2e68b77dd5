// What capture cost a recorded run, as stored with it. warpscope-cli record
// calibrates what tracing adds per launch (launches of an empty kernel,
// untraced and recorded, alternating) and per state-reading call (the same
// launches, each after cudaGetDevice calls), and charges the run's kernels
// and its counted state-reading calls (model/query_calls.h) with them; the
// properties below carry the result, this reads and states it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ws {

namespace capture_cost {
inline constexpr const char* kPerLaunchNs = "capture.launch_cost_ns";
inline constexpr const char* kPerQueryNs = "capture.query_cost_ns";
inline constexpr const char* kKernels = "capture.cost_kernels";  // the launches charged
// State-reading calls a bare launch of the calibration makes itself, per launch.
inline constexpr const char* kLaunchQueryCalls = "capture.launch_query_calls";
inline constexpr const char* kEstimateNs = "capture.cost_estimate_ns";  // both charges
inline constexpr const char* kShare = "capture.cost_share";  // of the program's wall time, 0..1
inline constexpr const char* kBasis = "capture.launch_cost_basis";  // how it was measured
// What each traced process pays once, its start and end under CUPTI (ns),
// and the processes charged with it.
inline constexpr const char* kPerProcessNs = "capture.process_cost_ns";
inline constexpr const char* kProcesses = "capture.cost_processes";
// The program's own wall time (start to exit), which the share is of.
inline constexpr const char* kProgramNs = "capture.program_ns";
// --graph-trace node: CUDA graph launches whose first node was seen, the
// kernels they ran (not charged per launch), and how long node tracing held
// the launches before their first node, in all and the median
// (analysis/graph_launch_wait.h).
inline constexpr const char* kGraphLaunches = "capture.graph_launches";
inline constexpr const char* kGraphKernels = "capture.graph_kernels";
inline constexpr const char* kGraphHeldNs = "capture.graph_launch_held_ns";
inline constexpr const char* kGraphHeldMedianNs = "capture.graph_launch_held_median_ns";
}  // namespace capture_cost

struct LaunchCost {
    double perLaunchNs = 0;  // traced minus untraced, per launch; never below 0
    double untracedNs = 0;   // per launch, median of the rounds
    double tracedNs = 0;
    int launches = 0;  // per round
    int rounds = 0;
    double perQueryNs = 0;        // per state-reading call (queryCostFrom)
    double queriesPerLaunch = 0;  // counted per bare launch: inside perLaunchNs
    // Once per traced process: its whole run's extra time beyond its
    // launches' (CUPTI's start, module instrumentation, the flush at exit).
    double perProcessNs = 0;
};

// What `warpscope-workload launch-cost` printed: "LAUNCH_LOOP_NS <ns>
// LAUNCHES <n> QUERIES_PER_LAUNCH <q> WARM_UP_LAUNCHES <w>", found in a run's
// log among other lines; nothing without a loop time and launches.
struct LaunchLoopOutput {
    double loopNs = 0;
    double launches = 0;
    double warmUpLaunches = 0;  // before the timed ones, in the same process
};
std::optional<LaunchLoopOutput> parseLaunchLoopOutput(const std::string& log);

// From each round's total loop time, untraced and traced, of `launches`
// launches. Throws std::invalid_argument on no rounds or no launches.
LaunchCost launchCostFrom(const std::vector<double>& untracedLoopNs,
                          const std::vector<double>& tracedLoopNs, int launches);

// What tracing adds per state-reading call: the cost per launch of a loop
// with `addedQueriesPerLaunch` more such calls per launch, less that of the
// bare loop, divided among them; never below 0. Throws
// std::invalid_argument unless addedQueriesPerLaunch > 0.
double queryCostFrom(const LaunchCost& bare, const LaunchCost& withQueries,
                     double addedQueriesPerLaunch);

// The calibration's alternating rounds of two loops, [0] bare launches and
// [1] each launch after `queriesAsked` more state-reading calls: per round
// each loop's time untraced and traced, and the calls counted per launch in
// the traced one.
struct CalibrationRounds {
    std::vector<double> untracedNs[2], tracedNs[2], countedPerLaunch[2];
    // The bare loop's whole runs (process start to exit), untraced and
    // traced, round by round: what tracing adds beyond the loop is the
    // per-process cost. Empty in calibrations that did not time them.
    std::vector<double> untracedRunNs, tracedRunNs;
};

// The per-launch cost from the bare loop, with the calls a bare launch makes
// itself (queriesPerLaunch), the per-process cost from its whole runs (the
// median over rounds of each traced run's extra time less its loop's, never
// below 0), and the per-call cost from the second loop, divided
// by the extra calls as counted, or as asked where fewer were counted (some
// went uncounted: dividing by the count would inflate the cost). Throws as
// launchCostFrom.
LaunchCost costFromCalibration(const CalibrationRounds& rounds, int launches, int queriesAsked);

// The state-reading calls a run is charged for: those beyond what its
// kernels' bare launches make themselves (already in the per-launch cost).
// Kernels replayed from CUDA graphs make no launch calls of their own, so a
// graph-heavy run is charged somewhat too few.
double extraQueryCalls(double bareLaunchQueries, std::int64_t kernels, double queryCalls);

// "capture cost ≈ 0.42 µs per launch and 0.50 µs per extra state-reading
// call (6.0 per launch in this run), ≈ 1.3 % of this run's wall time
// (basis)", extra: beyond those of a bare launch (extraQueryCalls);
// runs stored before query calls were counted state the launches alone.
// With graph launches held by node tracing: "… and 212 µs per CUDA graph
// launch held before its first node (820 launches, 174 ms in all) …", and
// where most kernels were replayed from graphs, what --graph-trace graph
// would save.
// Nothing when the run has no such properties.
std::optional<std::string> captureCostLine(const std::map<std::string, std::string>& properties);

// record --capture-range cudaProfilerApi: "traced only between
// cudaProfilerStart and cudaProfilerStop: 3 windows, 1.21 s of the run's
// 10.3 s (12 %)" (the windows of all its processes), or that no window was
// opened and nothing was traced; nothing for a run traced whole.
std::optional<std::string> captureRangeLine(const std::map<std::string, std::string>& properties,
                                            std::int64_t runNs);

}  // namespace ws
