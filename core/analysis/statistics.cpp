#include "analysis/statistics.h"

#include <algorithm>
#include <cmath>

namespace ws::stats {

double percentileSorted(const std::vector<double>& sorted, double p) {
    if (sorted.empty()) return 0;
    double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(sorted.size() - 1);
    auto lo = static_cast<std::size_t>(std::floor(rank));
    auto hi = std::min(lo + 1, sorted.size() - 1);
    double frac = rank - static_cast<double>(lo);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

double percentile(std::vector<double> values, double p) {
    std::sort(values.begin(), values.end());
    return percentileSorted(values, p);
}

Summary summarize(std::vector<double> values) {
    Summary s;
    if (values.empty()) return s;
    std::sort(values.begin(), values.end());
    s.count = values.size();
    for (double v : values)
        s.sum += v;
    s.mean = s.sum / static_cast<double>(s.count);
    double sq = 0;
    for (double v : values)
        sq += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(sq / static_cast<double>(s.count));
    s.median = percentileSorted(values, 50);
    s.min = values.front();
    s.max = values.back();
    return s;
}

}  // namespace ws::stats
