// What lies behind a served run's slowest inter-token latencies. A run that
// holds both sides (`bench serve --server`) has the client's token arrival
// times and the server's engine steps (NVTX ranges "engine.step[:N;k=v;...]",
// docs/serving.md) and kernels on one clock. Each ITL, the time between two
// tokens of one request reaching the client, is split into:
//   prefill     time inside engine steps that ran prefill (the token waited
//               for other requests' prompts: prefill interference)
//   kernels     GPU busy time inside decode-only steps
//   launch gap  GPU idle time inside decode-only steps (the host was launching)
//   host gap    time outside any engine step (scheduling, sampling output,
//               delivering the token to the client)
// The four add up to the ITL.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "model/records.h"

namespace ws {

class Store;

struct EngineStep {
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::int64_t index = -1;  // -1 when the range's name carries no statistics
    int running = 0;
    int waiting = 0;
    int prefillTokens = 0;
    int decodeTokens = 0;
    int prefillSeqs = -1;  // -1: not named (older servers)
    // The attention's work (docs/serving.md), for the step's floor; -1 when
    // the range does not name it.
    std::int64_t kvReadTokens = -1;
    std::int64_t attentionPairs = -1;
};

// The step an NVTX range describes, or nothing when it is not an engine step.
std::optional<EngineStep> engineStepOf(const RangeRecord& range);

struct ItlSplit {
    double prefillNs = 0;
    double kernelNs = 0;
    double launchGapNs = 0;
    double hostGapNs = 0;
    double totalNs() const { return prefillNs + kernelNs + launchGapNs + hostGapNs; }
    ItlSplit& operator+=(const ItlSplit& o);
};

struct ItlInterval {
    std::int64_t requestId = 0;
    int tokenIndex = 0;  // the later token of the two
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    ItlSplit split;
    int steps = 0;          // engine steps overlapping the interval
    int prefillTokens = 0;  // prefill tokens those steps ran
    int maxRunning = 0;     // the largest batch among them
    double ms() const { return (endNs - startNs) / 1e6; }
};

struct ItlOutlierReport {
    std::size_t itlCount = 0;
    std::size_t engineSteps = 0;
    bool stepsDescribed = false;  // the steps carry prefill/decode counts
    double p50Ms = 0;
    double p99Ms = 0;
    std::size_t outlierCount = 0;       // ITLs at or above p99
    std::vector<ItlInterval> outliers;  // the slowest of them first, at most `top`
    ItlSplit outlierTotal;              // summed over every outlier
    ItlSplit allTotal;                  // summed over every ITL
};

// Tokens, steps and kernels in any order.
ItlOutlierReport itlOutliers(const std::vector<TokenRecord>& tokens,
                             const std::vector<EngineStep>& steps,
                             const std::vector<KernelRecord>& kernels, std::size_t top);
ItlOutlierReport itlOutliers(Store& store, RunId run, std::size_t top);

}  // namespace ws
