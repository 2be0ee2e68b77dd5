#include "analysis/clock_events.h"

#include <algorithm>
#include <array>

namespace ws {

namespace {

struct ReasonBit {
    std::int64_t bit;
    const char* name;
    bool limitsPerformance;
};

// nvml.h, nvmlClocksEventReason*.
constexpr std::array<ReasonBit, 9> kReasons = {{
    {0x1, "GPU idle", false},
    {0x2, "application clocks setting", false},
    {0x4, "SW power cap", true},
    {0x8, "HW slowdown", true},
    {0x10, "sync boost", true},
    {0x20, "SW thermal slowdown", true},
    {0x40, "HW thermal slowdown", true},
    {0x80, "HW power brake slowdown", true},
    {0x100, "display clock setting", true},
}};

}  // namespace

bool ClockEventSummary::throttled() const {
    return std::any_of(reasons.begin(), reasons.end(),
                       [](const ClockEventShare& r) { return r.limitsPerformance; });
}

std::vector<std::string> clockEventReasonNames(std::int64_t mask) {
    std::vector<std::string> names;
    for (const auto& r : kReasons)
        if (mask & r.bit) names.push_back(r.name);
    return names;
}

ClockEventSummary summarizeClockEvents(const std::vector<SampleRecord>& samples) {
    ClockEventSummary out;
    std::array<std::int64_t, kReasons.size()> seen{};
    for (const auto& s : samples) {
        if (!s.clockEventReasons) continue;
        ++out.samplesWithReasons;
        for (std::size_t i = 0; i < kReasons.size(); ++i)
            if (*s.clockEventReasons & kReasons[i].bit) ++seen[i];
    }
    for (std::size_t i = 0; i < kReasons.size(); ++i)
        if (seen[i] > 0)
            out.reasons.push_back(
                {kReasons[i].name, kReasons[i].limitsPerformance,
                 static_cast<double>(seen[i]) / static_cast<double>(out.samplesWithReasons)});
    std::stable_sort(out.reasons.begin(), out.reasons.end(), [](const auto& a, const auto& b) {
        return a.sampleFraction > b.sampleFraction;
    });
    return out;
}

}  // namespace ws
