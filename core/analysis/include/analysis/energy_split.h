// Energy per output token split by phase (prefill and decode) and by kernel
// class, from the run's GPU energy samples and its timeline.
//
// The model: NVML's energy counter tells the joules between two of its
// updates (every 20-100 ms, far longer than a decode step), not where inside
// them they went. Each such interval's energy is split over what ran in it in
// proportion to time: phases by the time each took, kernel classes by their
// GPU time (the GPU idle time as "idle"). Where an interval holds more than
// one phase or class, the split assumes they drew the same power; the bound
// given with each part is how far it could be off if, instead, each drew any
// power between the lowest and the highest the run's samples show.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/kernel_classes.h"
#include "model/records.h"

namespace ws {

class Store;

// A labelled span of time: a phase ("prefill") or a kernel's class.
struct EnergySpan {
    std::int64_t beginNs = 0, endNs = 0;
    std::string label;
};

struct EnergyPart {
    std::string label;
    double joules = 0;
    double boundJ = 0;  // ± how far the proportional split could be off (see above)
};

struct EnergySplit {
    double totalJ = 0;
    std::int64_t outputTokens = 0;
    double intervalMs = 0;                // median time between counter updates
    double minPowerW = 0, maxPowerW = 0;  // the powers the bounds assume
    std::vector<EnergyPart> phases;       // as they first occur, then what lies outside
    std::vector<EnergyPart> classes;      // largest first; "idle" where the GPU ran nothing
    std::string phaseSource;              // "engine steps", "requests"
    std::string whyNoPhases;              // when phases is empty
    double perToken(double joules) const {
        return outputTokens > 0 ? joules / static_cast<double>(outputTokens) : 0;
    }
};

// `samples` of the GPUs whose energy counts (busyDevices), `window` the span
// the energy is counted over (the requests'); `phases` do not overlap,
// time in no phase counts as `outsideLabel`; `kernels` may overlap (several
// streams). Nothing when no two samples inside the window carry energy or
// power.
std::optional<EnergySplit> splitEnergy(const std::vector<SampleRecord>& samples,
                                       std::int64_t windowBeginNs, std::int64_t windowEndNs,
                                       const std::vector<EnergySpan>& phases,
                                       const std::string& outsideLabel,
                                       const std::vector<EnergySpan>& kernels,
                                       std::int64_t outputTokens);

// "prefill 0.012 ± 0.003, decode 0.140 ± 0.003" in J per output token; parts
// that round to 0.000 left out.
std::string describeEnergyParts(const EnergySplit& split, const std::vector<EnergyPart>& parts);
// "each 100 ms energy reading split over what ran in it by time; ± if the
// parts drew anything from 210 to 480 W".
std::string describeEnergyModel(const EnergySplit& split);

// A stored run's split: phases from its engine steps (prefill, mixed, decode
// steps) or, without them, from its requests (before the first token, after
// it) where no two requests overlap in different phases; classes from its
// kernels. Nothing, and `whyNot`, when the run has no energy samples or no
// requests with tokens, is a counter pass, or has more kernels and API calls
// than kSuggestRecordLimit.
std::optional<EnergySplit> energySplitOf(Store& store, RunId run, std::string& whyNot);

}  // namespace ws
