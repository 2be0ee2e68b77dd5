// Sweeps: `bench serve --sweep PARAM=V1,V2,...` stores each point as its own
// run and ties them into one group through run properties (sweep.*), so the
// store's schema does not change. This reads a group back as a table of
// points, with the contract line the report states.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/latency.h"
#include "model/records.h"

namespace ws {

class Store;

// The run properties a sweep point carries (docs/schema.md).
namespace sweep_keys {
inline constexpr const char* kGroup = "sweep.group";          // shared by the group's runs
inline constexpr const char* kParameter = "sweep.parameter";  // max-concurrency | request-rate
inline constexpr const char* kValue = "sweep.value";          // this point's value ("4", "inf")
inline constexpr const char* kIndex = "sweep.index";          // 0-based, in the order given
inline constexpr const char* kPoints = "sweep.points";        // points the sweep asked for
inline constexpr const char* kGpus = "sweep.gpus";            // GPUs behind the endpoint
inline constexpr const char* kTtftTarget = "sweep.ttft_target_ms";  // --goodput targets
inline constexpr const char* kTpotTarget = "sweep.tpot_target_ms";
inline constexpr const char* kE2elTarget = "sweep.e2el_target_ms";
}  // namespace sweep_keys

struct SweepGroup {
    std::string group;
    std::string parameter;
    int plannedPoints = 0;
    std::vector<RunId> runs;  // by sweep.index
    std::string label;        // the first run's label, its " PARAMETER=VALUE" left out
};

// Every sweep group in the store, oldest first.
std::vector<SweepGroup> listSweepGroups(Store& store);
// The group a run belongs to, if any.
std::optional<std::string> sweepGroupOf(Store& store, RunId run);
// A group named by its name or by one of its runs' ids ("12"); nullopt when neither.
std::optional<SweepGroup> findSweepGroup(Store& store, const std::string& nameOrRun);

struct SweepPoint {
    RunId run = 0;
    int index = 0;
    std::string value;  // as given: "4", "inf"
    double numericValue = 0;
    RunStatus status = RunStatus::Running;
    int completed = 0;
    int failed = 0;
    double outputThroughput = 0;        // output tokens / s
    double outputThroughputPerGpu = 0;  // divided by sweep.gpus
    double requestThroughput = 0;
    std::optional<double> ttftP50Ms, ttftP99Ms, tpotP50Ms, tpotP99Ms;
    std::optional<double> requestGoodput;  // requests meeting every target / s
    std::optional<bool> meetsTargets;      // p99 TTFT/TPOT/E2EL within targets, none failed
};

struct SweepTable {
    SweepGroup group;
    LatencyTargets targets;  // the sweep's --goodput, else the first run's workload contract
    int gpus = 1;
    std::vector<SweepPoint> points;  // by index
};

SweepTable sweepTable(Store& store, const SweepGroup& group);
// The tables of the groups `runs` belong to, each once, in the order first met
// (none when no run is a sweep point): what the Pareto chart draws.
std::vector<SweepTable> sweepTablesOf(Store& store, const std::vector<RunId>& runs);

// "meets p99 TTFT ≤ 500 ms / p99 TPOT ≤ 50 ms up to concurrency 16" (every
// point from the first up to that one meets them), "… at no point", or empty
// when the sweep has no targets.
std::string sweepContractLine(const SweepTable& table);

// "concurrency" or "request rate": how the parameter reads in a sentence.
std::string sweepParameterName(const std::string& parameter);

}  // namespace ws
