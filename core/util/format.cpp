#include "util/format.h"

#include <cmath>
#include <cstdio>
#include <ctime>

namespace ws {

namespace {
std::string printf3(double value, const char* unit) {
    char buf[48];
    // Three significant digits, as profilers print them.
    if (value >= 100)
        std::snprintf(buf, sizeof buf, "%.0f %s", value, unit);
    else if (value >= 10)
        std::snprintf(buf, sizeof buf, "%.1f %s", value, unit);
    else
        std::snprintf(buf, sizeof buf, "%.2f %s", value, unit);
    return buf;
}

std::string formatTime(std::int64_t unixNs, bool utc, const char* pattern) {
    if (unixNs == 0) return "";
    std::time_t secs = static_cast<std::time_t>(unixNs / 1'000'000'000);
    std::tm tm{};
    if (utc)
        gmtime_r(&secs, &tm);
    else
        localtime_r(&secs, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, pattern, &tm);
    return buf;
}
}  // namespace

std::string formatDuration(std::int64_t ns) {
    double v = static_cast<double>(ns);
    double a = std::fabs(v);
    if (a < 1e3) return std::to_string(ns) + " ns";
    if (a < 1e6) return printf3(v / 1e3, "µs");
    if (a < 1e9) return printf3(v / 1e6, "ms");
    if (a < 60e9) return printf3(v / 1e9, "s");
    auto totalSecs = static_cast<std::int64_t>(std::llround(v / 1e9));
    if (totalSecs < 3600)
        return std::to_string(totalSecs / 60) + " min " + std::to_string(totalSecs % 60) + " s";
    return std::to_string(totalSecs / 3600) + " h " + std::to_string(totalSecs % 3600 / 60) +
           " min";
}

std::string formatBytes(std::int64_t bytes) {
    double v = static_cast<double>(bytes);
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (std::fabs(v) >= 1024 && u < 4) {
        v /= 1024;
        ++u;
    }
    if (u == 0) return std::to_string(bytes) + " B";
    return printf3(v, units[u]);
}

std::string formatTimestamp(std::int64_t unixNs) {
    return formatTime(unixNs, false, "%Y-%m-%d %H:%M:%S");
}

std::string formatIsoUtc(std::int64_t unixNs) {
    return formatTime(unixNs, true, "%Y-%m-%dT%H:%M:%SZ");
}

std::string formatFixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

}  // namespace ws
