// What-if: a run's TTFT, TPOT, ITL and throughput as they would be with some
// kernels faster or without launch gaps, predicted by replaying the run's own
// timeline (analysis/timeline_replay.h states the model).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/kernel_classes.h"
#include "analysis/kernel_counters.h"
#include "analysis/roofline.h"
#include "analysis/timeline_replay.h"
#include "model/records.h"

namespace ws {

class Store;

// One "--faster WHAT=AMOUNT": the kernels of a class, or whose name contains
// `match` (case-insensitive), take `timeFactor` of their recorded time.
// "--kernel-at-roof WHAT" is the same match with a floor per kernel name
// instead of a factor: a name's floor is the longest of its mean DRAM bytes
// at the copy ceiling and its mean FLOPs at the tensor and FP32 peaks, never
// below the run's shortest kernel (a kernel's fixed cost, which the roofline
// lacks); each of its launches is scaled by that floor over the name's mean
// recorded time, at most 1 (never slower, and never below what another
// change already gave it). Names without counted work keep their time.
struct KernelChange {
    std::string match;
    std::optional<KernelClass> kernelClass;
    double timeFactor = 1.0;
    std::string asWritten;  // e.g. "gemv=30%"
    bool atRoof = false;
    std::map<std::string, double> floorNs;  // at roof: demangled name -> ns per launch
};

// Parses WHAT=N% (N % less time) or WHAT=Nx (N times as fast); throws
// std::invalid_argument with a sentence naming what is wrong.
KernelChange parseKernelChange(const std::string& text);
// "--kernel-at-roof WHAT", floors still to be set (setRoofFloors).
KernelChange kernelAtRoof(const std::string& what);

// The roofline floor of each counted kernel (by demangled name) at the
// ceilings: what an at-roof change needs. `counted` is kernelCounterStats of
// a run with counters (the run itself after a DRAM pass, or a counter run of
// the same program).
void setRoofFloors(KernelChange& change, const std::map<std::string, KernelCounterStat>& counted,
                   const RooflineCeilings& ceilings);

struct WhatIfScenario {
    std::vector<KernelChange> faster;
    ReplayOptions replay;
    // The run whose counters give the at-roof changes their work; none: the
    // run predicted (after a DRAM pass).
    std::optional<RunId> countersRun;
    std::string describe() const;
};

// Sets the floors of the scenario's at-roof changes: the work each kernel
// name did in the counters run, at the ceilings of `run`. Throws
// std::runtime_error naming what is missing (counters, a DRAM ceiling);
// returns a warning, empty when there is none.
std::string setRoofFloors(Store& store, RunId run, WhatIfScenario& scenario);

// A run's timeline with a name per op (kernels demangled, copies and sets as
// the timeline names them), what the scenario matches against. Names are
// held once each: a run has millions of ops and a few hundred names.
struct WhatIfRun {
    ReplayInput timeline;
    std::vector<std::string> names;     // distinct
    std::vector<std::uint32_t> opName;  // op -> names
    const std::string& nameOf(std::size_t op) const { return names[opName[op]]; }
    // The class of each name (index as names).
    std::vector<KernelClass> nameClasses() const;
    // From a name per op (tests, importers).
    static WhatIfRun withOpNames(ReplayInput timeline, const std::vector<std::string>& perOp);
};
WhatIfRun loadWhatIfRun(Store& store, RunId run);

struct PredictedValue {
    std::string metric;     // ttft, tpot, itl, e2el, output throughput
    std::string statistic;  // mean, p50, p99, tok/s
    double recorded = 0;
    double predicted = 0;
    double ciLow = 0, ciHigh = 0;  // 95 % bootstrap over requests, of the prediction
    bool hasInterval = true;       // false with fewer than two requests to resample
    double change() const { return recorded != 0 ? predicted / recorded - 1 : 0; }
};

struct ChangeMatch {
    std::string asWritten;
    std::int64_t ops = 0;
    std::int64_t timeNs = 0;  // recorded GPU time of the matched ops
    // At roof: matched launches whose name has no counted work (kept as recorded).
    std::int64_t opsWithoutWork = 0;
    std::int64_t floorNs = 0;  // at roof: the matched ops' time at their floors
    bool atRoof = false;
};

struct WhatIfPrediction {
    std::vector<PredictedValue> values;
    std::vector<ChangeMatch> matches;
    ReplayFloors floors;
    std::int64_t gpuTimeNs = 0, replayedGpuTimeNs = 0;
    std::int64_t launchesRemoved = 0;
    std::int64_t requests = 0, tokens = 0;
};

// Throws std::runtime_error when a change matches nothing or the run has no
// tokens to predict.
WhatIfPrediction predictWhatIf(const WhatIfRun& run, const WhatIfScenario& scenario,
                               int resamples = 1000, unsigned seed = 1);

// The options a run suggests, each replayed, best first (by predicted TPOT
// mean, TTFT mean for single-token runs): every kernel class that holds at
// least 5 % of the GPU time while requests were served, 30 % faster, and a
// run that launches kernel by kernel without its launch gaps.
struct RankedOption {
    std::string change;   // "attention 30 % faster"
    std::string flags;    // the whatif flags that give it
    double gpuShare = 0;  // of the GPU time while requests were served (class options)
    WhatIfPrediction prediction;
    const PredictedValue* value(const std::string& metric, const std::string& statistic) const;
};
std::vector<RankedOption> rankOptions(const WhatIfRun& run, int resamples = 400);

// A stored run loaded for replaying, or nothing and `whyNot` in words: no
// tokens or kernels, a counter pass (replayed kernels: no real times), or
// more kernels and API calls than a replay of every option should copy.
std::optional<WhatIfRun> loadReplayableRun(Store& store, RunId run, std::string& whyNot);
// rankOptions of loadReplayableRun, or nothing and why.
std::vector<RankedOption> suggestOptimizations(Store& store, RunId run, std::string& whyNot);
inline constexpr std::int64_t kSuggestRecordLimit = 2'000'000;

}  // namespace ws
