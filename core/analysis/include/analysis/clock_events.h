// Why the GPU's clocks were below their maximum during a run, from NVML's
// clock event (throttle) reason bits in the device samples: a benchmark whose
// clocks were capped by power or heat does not measure the kernels alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/records.h"

namespace ws {

struct ClockEventShare {
    std::string reason;      // "SW power cap", "HW thermal slowdown", …
    bool limitsPerformance;  // false for idle and the application clock setting
    double sampleFraction = 0;
};

struct ClockEventSummary {
    std::int64_t samplesWithReasons = 0;   // samples that read the bitmask
    std::vector<ClockEventShare> reasons;  // each reason seen, most frequent first
    bool throttled() const;                // any reason that limits performance seen
};

// NVML's nvmlClocksEventReason* names for the bits of `mask`.
std::vector<std::string> clockEventReasonNames(std::int64_t mask);

ClockEventSummary summarizeClockEvents(const std::vector<SampleRecord>& samples);

}  // namespace ws
