// What-if: a run's TTFT, TPOT, ITL and throughput as they would be with some
// kernels faster or without launch gaps, predicted by replaying the run's own
// timeline (analysis/timeline_replay.h states the model).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/kernel_classes.h"
#include "analysis/timeline_replay.h"
#include "model/records.h"

namespace ws {

class Store;

// One "--faster WHAT=AMOUNT": the kernels of a class, or whose name contains
// `match` (case-insensitive), take `timeFactor` of their recorded time.
struct KernelChange {
    std::string match;
    std::optional<KernelClass> kernelClass;
    double timeFactor = 1.0;
    std::string asWritten;  // e.g. "gemv=30%"
};

// Parses WHAT=N% (N % less time) or WHAT=Nx (N times as fast); throws
// std::invalid_argument with a sentence naming what is wrong.
KernelChange parseKernelChange(const std::string& text);

struct WhatIfScenario {
    std::vector<KernelChange> faster;
    ReplayOptions replay;
    std::string describe() const;
};

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
