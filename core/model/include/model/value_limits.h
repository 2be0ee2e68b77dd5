// The ranges a time or a size may take anywhere in Warpscope. Every path in
// (capture stream, importers) checks against these with the field named, so
// later arithmetic (durations, sums, the codec's deltas) cannot overflow and a
// garbage value never becomes a run that started in 1734.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

namespace ws::limits {

// Timestamps: nanoseconds since the Unix epoch (or since a trace's own zero),
// up to 2100-01-01.
inline constexpr std::int64_t kLatestTimeNs = 4'102'444'800LL * 1'000'000'000LL;
// One record, and one run: at most a year long.
inline constexpr std::int64_t kLongestSpanNs = 366LL * 24 * 3600 * 1'000'000'000LL;
// One transfer or allocation: 1 PiB.
inline constexpr std::int64_t kLargestBytes = std::int64_t{1} << 50;

// Why [startNs, endNs] is not a valid span, or nothing when it is.
inline std::optional<std::string> spanProblem(std::int64_t startNs, std::int64_t endNs) {
    if (startNs < 0 || startNs > kLatestTimeNs)
        return "start " + std::to_string(startNs) + " ns is outside 0 .. 2100-01-01";
    if (endNs < startNs)
        return "ends before it starts (" + std::to_string(endNs) + " < " + std::to_string(startNs) +
               " ns)";
    if (endNs - startNs > kLongestSpanNs)
        return "lasts " + std::to_string(endNs - startNs) + " ns, more than a year";
    return std::nullopt;
}

inline std::optional<std::string> bytesProblem(std::int64_t bytes) {
    if (bytes < 0 || bytes > kLargestBytes)
        return std::to_string(bytes) + " bytes is outside 0 .. 1 PiB";
    return std::nullopt;
}

// `value` in units of `nsPerUnit` nanoseconds as nanoseconds, when it is a
// finite number in [lowestNs, highestNs]; computed in long double so a value
// like 1e300 is caught before the conversion to an integer.
inline std::optional<std::int64_t> toNs(long double value, long double nsPerUnit,
                                        std::int64_t lowestNs, std::int64_t highestNs) {
    if (!std::isfinite(value)) return std::nullopt;
    long double ns = std::round(value * nsPerUnit);
    if (!(ns >= static_cast<long double>(lowestNs) && ns <= static_cast<long double>(highestNs)))
        return std::nullopt;
    return static_cast<std::int64_t>(ns);
}

}  // namespace ws::limits
