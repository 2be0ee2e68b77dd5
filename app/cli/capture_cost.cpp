#include "cli/capture_cost.h"

#include <stdlib.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "analysis/capture_cost.h"
#include "analysis/graph_launch_wait.h"
#include "cli/inject_library.h"
#include "model/capture_windows.h"
#include "model/process_keys.h"
#include "model/query_calls.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "util/format.h"

namespace ws::cli {

namespace {

constexpr int kLaunches = 20000;
constexpr int kRounds = 3;
// cudaGetDevice calls before each launch in the second loop, as PyTorch's
// device guards make (9 to 21 state-reading calls per kernel counted there).
constexpr int kQueriesPerLaunch = 8;

std::filesystem::path cacheFile() {
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    std::filesystem::path dir = xdg && *xdg ? xdg : std::string(home ? home : "/tmp") + "/.cache";
    return dir / "warpscope" / "launch-cost.json";
}

nlohmann::json readCache() {
    std::ifstream in(cacheFile());
    if (!in) return nlohmann::json::object();
    auto j = nlohmann::json::parse(in, nullptr, false);
    return j.is_object() ? j : nlohmann::json::object();  // a damaged cache is recalibrated
}

void writeCache(const nlohmann::json& j) {
    std::error_code ec;
    auto path = cacheFile();
    std::filesystem::create_directories(path.parent_path(), ec);
    auto tmp = path.string() + ".tmp";
    {
        std::ofstream out(tmp);
        out << j.dump(2) << '\n';
        if (!out) return;
    }
    std::filesystem::rename(tmp, path, ec);
}

std::string utcNow() {
    std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

// The run's environment less its capture range: inside the windows a launch
// costs what it costs in a run traced whole, and the calibration's loop calls
// no cudaProfilerStart that would open one.
std::vector<std::string> costSettings(const std::vector<std::string>& env) {
    std::vector<std::string> settings;
    for (const auto& e : env)
        if (e.rfind(std::string(capture_window::kEnvironment) + "=", 0) != 0) settings.push_back(e);
    return settings;
}

struct LoopRound {
    double ns = 0;                // the timed launches, in all
    double runNs = 0;             // the whole run, process start to exit
    double queriesPerLaunch = 0;  // state-reading calls the collector counted, per launch
};

// One round of the launch loop recorded into `store`, with or without the
// capture library, or nothing when it did not run.
std::optional<LoopRound> loopOnce(const RecordRequest& like, const std::string& runner,
                                  const std::string& store, bool traced, int queriesPerLaunch) {
    RecordRequest r;
    r.storePath = store;
    r.label = traced ? "launch cost, traced" : "launch cost, untraced";
    r.argv = {runner, "launch-cost", std::to_string(kLaunches), std::to_string(queriesPerLaunch)};
    r.env = costSettings(like.env);
    r.injectLibrary = traced ? like.injectLibrary : std::string();
    r.echoOutput = false;
    r.sampleIntervalMs = 0;
    Recorder recorder(std::move(r));
    auto outcome = recorder.run();
    if (outcome.status != RunStatus::Ok) return std::nullopt;
    Store s(store);
    auto printed = parseLaunchLoopOutput(runLog(s, outcome.run));
    if (!printed) return std::nullopt;
    // The program's own wall time, not the run's: that also holds the
    // storing of its records after it exited.
    LoopRound round{printed->loopNs, static_cast<double>(outcome.totals.elapsedNs), 0};
    // The count covers the whole process: the warm-up launches too.
    const auto properties = runProperties(s, outcome.run);
    if (auto q = properties.find(kQueryCallCountProperty); q != properties.end())
        round.queriesPerLaunch =
            std::strtod(q->second.c_str(), nullptr) / (printed->launches + printed->warmUpLaunches);
    return round;
}

// The per-launch cost, and in perQueryNs the per-state-reading-call cost.
std::optional<LaunchCost> calibrate(const RecordRequest& like) {
    auto runner = findBesideSelf("warpscope-workload");
    if (runner.empty()) return std::nullopt;
    char pattern[] = "/tmp/warpscope-calibrate-XXXXXX";
    if (!::mkdtemp(pattern)) return std::nullopt;
    std::filesystem::path dir(pattern);
    const std::string store = (dir / "calibrate.wsdb").string();
    // [0]: bare launches; [1]: each after kQueriesPerLaunch state reads.
    CalibrationRounds rounds;
    try {
        // Alternating, so a drifting machine moves every loop alike.
        for (int i = 0; i < kRounds; ++i)
            for (int loop = 0; loop < 2; ++loop) {
                const int queries = loop ? kQueriesPerLaunch : 0;
                auto u = loopOnce(like, runner, store, false, queries);
                auto t = loopOnce(like, runner, store, true, queries);
                if (!u || !t) throw std::runtime_error("a calibration loop did not run");
                rounds.untracedNs[loop].push_back(u->ns);
                rounds.tracedNs[loop].push_back(t->ns);
                if (loop == 0) {
                    rounds.untracedRunNs.push_back(u->runNs);
                    rounds.tracedRunNs.push_back(t->runNs);
                }
                rounds.countedPerLaunch[loop].push_back(t->queriesPerLaunch);
            }
    } catch (const std::exception&) {
        rounds.untracedNs[0].clear();
    }
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    if (rounds.untracedNs[0].size() != kRounds) return std::nullopt;
    return costFromCalibration(rounds, kLaunches, kQueriesPerLaunch);
}

// The processes that reported to the capture (model/process_keys.h).
int tracedProcesses(const std::map<std::string, std::string>& properties) {
    int processes = 0;
    for (const auto& [name, value] : properties)
        if (name.rfind(process_keys::kPrefix, 0) == 0 && name.ends_with(".command")) ++processes;
    return processes;
}

// A run traced node by node that replayed CUDA graphs: how long the tracer
// held each graph launch before its first node. Nothing to read otherwise.
GraphLaunchWait graphLaunchWaits(Store& store, RunId run,
                                 const std::map<std::string, std::string>& properties) {
    auto trace = properties.find("capture.graph_trace");
    if (trace == properties.end() || trace->second != "node" || graphNodesOf(store, run).empty())
        return {};
    // Correlation ids are unique within a process only, and kernels carry no
    // process: launches of several processes cannot be told apart.
    if (tracedProcesses(properties) > 1) return {};
    GraphLaunchWaitCounter counter;
    forEachApiCall(store, run, {}, std::nullopt,
                   [&](const ApiCallRecord& call) { counter.addCall(call); });
    forEachKernel(store, run, {}, std::nullopt,
                  [&](const KernelRecord& kernel) { counter.addKernel(kernel); });
    return counter.finish();
}

}  // namespace

std::optional<std::string> storeCaptureCost(const RecordRequest& like, RunId run,
                                            std::int64_t kernels, std::int64_t programNs) {
    if (kernels <= 0 || like.injectLibrary.empty()) return std::nullopt;
    Store store(like.storePath);
    auto device = runDevice(store, run);
    auto info = findRun(store, run);
    if (!device || !info) return std::nullopt;
    std::string options;
    for (const auto& e : costSettings(like.env))
        if (e.rfind("WARPSCOPE_", 0) == 0) options += (options.empty() ? "" : " ") + e;
    const std::string key = device->name + " | driver " + device->driverVersion + " | Warpscope " +
                            info->warpscopeVersion + " | " + options;
    auto cache = readCache();
    std::optional<LaunchCost> cost;
    std::string when;
    // Entries written before the per-query cost was calibrated are redone.
    if (auto it = cache.find(key);
        it != cache.end() && it->is_object() && it->contains("per_query_ns") &&
        it->contains("launch_query_calls") && it->contains("per_process_ns")) {
        cost = LaunchCost{it->value("per_launch_ns", 0.0),
                          it->value("untraced_ns", 0.0),
                          it->value("traced_ns", 0.0),
                          it->value("launches", 0),
                          it->value("rounds", 0),
                          it->value("per_query_ns", 0.0),
                          it->value("launch_query_calls", 0.0),
                          it->value("per_process_ns", 0.0)};
        when = it->value("measured_at", std::string("?"));
    } else {
        std::cerr << "[warpscope] calibrating the capture cost on " << device->name
                  << " (once for this GPU, driver and capture options)\n";
        cost = calibrate(like);
        if (!cost) {
            std::cerr << "[warpscope] capture cost not estimated: the calibration (warpscope-"
                         "workload launch-cost) did not run\n";
            return std::nullopt;
        }
        when = utcNow();
        cache[key] = {{"per_launch_ns", cost->perLaunchNs},
                      {"per_query_ns", cost->perQueryNs},
                      {"launch_query_calls", cost->queriesPerLaunch},
                      {"per_process_ns", cost->perProcessNs},
                      {"untraced_ns", cost->untracedNs},
                      {"traced_ns", cost->tracedNs},
                      {"launches", cost->launches},
                      {"rounds", cost->rounds},
                      {"measured_at", when}};
        writeCache(cache);
    }
    // Counted by the collector; none in runs of an older one.
    const auto properties = runProperties(store, run);
    double queries = 0;
    if (auto q = properties.find(kQueryCallCountProperty); q != properties.end())
        queries = std::strtod(q->second.c_str(), nullptr);
    // Kernels a graph replayed were not launched one by one: node tracing
    // costs them the wait at each graph launch instead.
    const GraphLaunchWait graphs = graphLaunchWaits(store, run, properties);
    const std::int64_t launched = std::max<std::int64_t>(0, kernels - graphs.replayedKernels);
    // Each process that reported to the capture paid its start and end.
    const std::int64_t processes = std::max(tracedProcesses(properties), 1);
    const double estimate =
        cost->perProcessNs * static_cast<double>(processes) +
        cost->perLaunchNs * static_cast<double>(launched) +
        cost->perQueryNs * extraQueryCalls(cost->queriesPerLaunch, launched, queries) +
        static_cast<double>(graphs.heldNs);
    const double wall = static_cast<double>(programNs > 0 ? programNs : info->durationNs());
    const double share = wall > 0 ? estimate / wall : 0;
    const std::string basis =
        std::to_string(cost->launches) + " empty launches × " + std::to_string(cost->rounds) +
        " rounds on " + device->name + " at " + when + ": " +
        formatFixed(cost->untracedNs / 1000.0, 2) + " µs untraced, " +
        formatFixed(cost->tracedNs / 1000.0, 2) + " µs traced per launch; with " +
        std::to_string(kQueriesPerLaunch) + " cudaGetDevice calls before each, " +
        formatFixed(cost->perQueryNs / 1000.0, 2) + " µs more per call" +
        (cost->queriesPerLaunch >= 0.05
             ? "; a bare launch makes " + formatFixed(cost->queriesPerLaunch, 1) +
                   " such calls itself"
             : std::string()) +
        (cost->perProcessNs > 0
             ? "; the traced loop's whole run took " +
                   formatDuration(static_cast<std::int64_t>(cost->perProcessNs)) +
                   " longer than its launches account for"
             : std::string());
    store.setProperty(run, capture_cost::kPerLaunchNs, formatFixed(cost->perLaunchNs, 1));
    store.setProperty(run, capture_cost::kPerQueryNs, formatFixed(cost->perQueryNs, 1));
    store.setProperty(run, capture_cost::kLaunchQueryCalls, formatFixed(cost->queriesPerLaunch, 2));
    store.setProperty(run, capture_cost::kKernels, std::to_string(launched));
    store.setProperty(run, capture_cost::kPerProcessNs, formatFixed(cost->perProcessNs, 0));
    if (programNs > 0) store.setProperty(run, capture_cost::kProgramNs, std::to_string(programNs));
    store.setProperty(run, capture_cost::kProcesses, std::to_string(processes));
    if (graphs.launches > 0) {
        store.setProperty(run, capture_cost::kGraphLaunches, std::to_string(graphs.launches));
        store.setProperty(run, capture_cost::kGraphKernels, std::to_string(graphs.replayedKernels));
        store.setProperty(run, capture_cost::kGraphHeldNs, std::to_string(graphs.heldNs));
        store.setProperty(run, capture_cost::kGraphHeldMedianNs,
                          std::to_string(graphs.medianHeldNs));
    }
    store.setProperty(run, capture_cost::kEstimateNs, formatFixed(estimate, 0));
    store.setProperty(run, capture_cost::kShare, formatFixed(share, 5));
    store.setProperty(run, capture_cost::kBasis, basis);
    return captureCostLine(runProperties(store, run));
}

}  // namespace ws::cli
