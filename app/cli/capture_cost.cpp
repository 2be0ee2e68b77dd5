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
#include "cli/inject_library.h"
#include "model/capture_windows.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "util/format.h"

namespace ws::cli {

namespace {

constexpr int kLaunches = 20000;
constexpr int kRounds = 3;

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

// One round of the launch loop recorded into `store`, with or without the
// capture library; its total time in ns, or nothing when it did not run.
std::optional<double> loopOnce(const RecordRequest& like, const std::string& runner,
                               const std::string& store, bool traced) {
    RecordRequest r;
    r.storePath = store;
    r.label = traced ? "launch cost, traced" : "launch cost, untraced";
    r.argv = {runner, "launch-cost", std::to_string(kLaunches)};
    r.env = costSettings(like.env);
    r.injectLibrary = traced ? like.injectLibrary : std::string();
    r.echoOutput = false;
    r.sampleIntervalMs = 0;
    Recorder recorder(std::move(r));
    auto outcome = recorder.run();
    if (outcome.status != RunStatus::Ok) return std::nullopt;
    Store s(store);
    std::istringstream log(runLog(s, outcome.run));
    for (std::string word; log >> word;)
        if (word == "LAUNCH_LOOP_NS" && log >> word) return std::stod(word);
    return std::nullopt;
}

std::optional<LaunchCost> calibrate(const RecordRequest& like) {
    auto runner = findBesideSelf("warpscope-workload");
    if (runner.empty()) return std::nullopt;
    char pattern[] = "/tmp/warpscope-calibrate-XXXXXX";
    if (!::mkdtemp(pattern)) return std::nullopt;
    std::filesystem::path dir(pattern);
    std::vector<double> untraced, traced;
    try {
        // Alternating, so a drifting machine moves both sides alike.
        for (int i = 0; i < kRounds; ++i) {
            auto u = loopOnce(like, runner, (dir / "calibrate.wsdb").string(), false);
            auto t = loopOnce(like, runner, (dir / "calibrate.wsdb").string(), true);
            if (!u || !t) break;
            untraced.push_back(*u);
            traced.push_back(*t);
        }
    } catch (const std::exception&) {
        untraced.clear();
    }
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    if (untraced.size() != kRounds) return std::nullopt;
    return launchCostFrom(untraced, traced, kLaunches);
}

}  // namespace

std::optional<std::string> storeCaptureCost(const RecordRequest& like, RunId run,
                                            std::int64_t kernels) {
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
    if (auto it = cache.find(key); it != cache.end() && it->is_object()) {
        cost = LaunchCost{it->value("per_launch_ns", 0.0), it->value("untraced_ns", 0.0),
                          it->value("traced_ns", 0.0), it->value("launches", 0),
                          it->value("rounds", 0)};
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
                      {"untraced_ns", cost->untracedNs},
                      {"traced_ns", cost->tracedNs},
                      {"launches", cost->launches},
                      {"rounds", cost->rounds},
                      {"measured_at", when}};
        writeCache(cache);
    }
    const double estimate = cost->perLaunchNs * static_cast<double>(kernels);
    const double wall = static_cast<double>(info->durationNs());
    const double share = wall > 0 ? estimate / wall : 0;
    const std::string basis = std::to_string(cost->launches) + " empty launches × " +
                              std::to_string(cost->rounds) + " rounds on " + device->name + " at " +
                              when + ": " + formatFixed(cost->untracedNs / 1000.0, 2) +
                              " µs untraced, " + formatFixed(cost->tracedNs / 1000.0, 2) +
                              " µs traced per launch";
    store.setProperty(run, capture_cost::kPerLaunchNs, formatFixed(cost->perLaunchNs, 1));
    store.setProperty(run, capture_cost::kEstimateNs, formatFixed(estimate, 0));
    store.setProperty(run, capture_cost::kShare, formatFixed(share, 5));
    store.setProperty(run, capture_cost::kBasis, basis);
    return captureCostLine(runProperties(store, run));
}

}  // namespace ws::cli
