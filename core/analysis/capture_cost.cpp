#include "analysis/capture_cost.h"

#include <algorithm>
#include <stdexcept>

#include "util/format.h"

namespace ws {

namespace {
double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::optional<double> number(const std::map<std::string, std::string>& p, const char* key) {
    auto it = p.find(key);
    if (it == p.end()) return std::nullopt;
    try {
        return std::stod(it->second);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}
}  // namespace

LaunchCost launchCostFrom(const std::vector<double>& untracedLoopNs,
                          const std::vector<double>& tracedLoopNs, int launches) {
    if (untracedLoopNs.empty() || tracedLoopNs.empty() || launches < 1)
        throw std::invalid_argument("launch cost: no rounds or no launches to divide by");
    LaunchCost c;
    c.launches = launches;
    c.rounds = static_cast<int>(std::min(untracedLoopNs.size(), tracedLoopNs.size()));
    c.untracedNs = median(untracedLoopNs) / launches;
    c.tracedNs = median(tracedLoopNs) / launches;
    // Tracing cannot make launches faster; a negative difference is noise.
    c.perLaunchNs = std::max(0.0, c.tracedNs - c.untracedNs);
    return c;
}

std::optional<std::string> captureCostLine(const std::map<std::string, std::string>& properties) {
    auto perLaunch = number(properties, capture_cost::kPerLaunchNs);
    auto share = number(properties, capture_cost::kShare);
    if (!perLaunch || !share) return std::nullopt;
    std::string line = "capture cost ≈ " + formatFixed(*perLaunch / 1000.0, 2) +
                       " µs per launch, ≈ " + formatFixed(*share * 100.0, 1) +
                       " % of this run's wall time";
    if (auto basis = properties.find(capture_cost::kBasis); basis != properties.end())
        line += " (" + basis->second + ")";
    return line;
}

}  // namespace ws
