#include "model/gpu_metrics.h"

#include <iterator>

namespace ws::gpu_metrics {

MetricName describe(std::string_view cupti) {
    for (const auto& m : kDefault)
        if (m.cupti == cupti) return m;
    return {cupti, cupti, "", 1};
}

std::string title(std::string_view cupti) {
    const auto name = describe(cupti);
    std::string t(name.label);
    if (!name.unit.empty()) t += " (" + std::string(name.unit) + ")";
    return t;
}

std::size_t displayRank(std::string_view cupti) {
    for (std::size_t i = 0; i < std::size(kDefault); ++i)
        if (kDefault[i].cupti == cupti) return i;
    return std::size(kDefault);
}

}  // namespace ws::gpu_metrics
