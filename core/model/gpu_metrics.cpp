#include "model/gpu_metrics.h"

namespace ws::gpu_metrics {

MetricName describe(std::string_view cupti) {
    for (const auto& m : kDefault)
        if (m.cupti == cupti) return m;
    return {cupti, cupti, "", 1};
}

}  // namespace ws::gpu_metrics
