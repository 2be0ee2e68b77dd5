// Human-readable numbers shared by the CLI, GUI and reports.
#pragma once

#include <cstdint>
#include <string>

namespace ws {

// "812 ns", "4.20 µs", "15.3 ms", "2.41 s", "3 min 20 s"
std::string formatDuration(std::int64_t ns);
// "1.50 GiB", "512 B"
std::string formatBytes(std::int64_t bytes);
// Local time "2026-12-02 13:57:05"; empty for 0.
std::string formatTimestamp(std::int64_t unixNs);
// v with `digits` decimals: "4176.8"
std::string formatFixed(double v, int digits);
// RFC 3339 UTC "2026-12-02T13:57:05Z", for machine-readable output.
std::string formatIsoUtc(std::int64_t unixNs);

}  // namespace ws
