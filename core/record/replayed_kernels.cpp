#include "record/replayed_kernels.h"

#include <cmath>

#include "model/counter_metrics.h"

namespace ws {

bool ReplayedKernels::hold(const KernelRecord& k) {
    if (k.startNs != 0 || k.endNs != 0) return false;
    held_.push_back(k);
    return true;
}

void ReplayedKernels::apiCall(const ApiCallRecord& call) {
    callStart_.emplace(call.correlationId, call.startNs);
}

void ReplayedKernels::metric(const KernelMetricRecord& m) {
    if (m.metric == counters::kDuration) durationNs_[m.correlationId] = m.value;
}

std::vector<KernelRecord> ReplayedKernels::release() {
    std::vector<KernelRecord> out = std::move(held_);
    held_.clear();
    for (auto& k : out) {
        auto call = callStart_.find(k.correlationId);
        if (call == callStart_.end()) {
            ++unplaced_;
            continue;
        }
        auto duration = durationNs_.find(k.correlationId);
        k.startNs = call->second;
        k.endNs = k.startNs + (duration == durationNs_.end()
                                   ? 0
                                   : static_cast<std::int64_t>(std::llround(duration->second)));
    }
    return out;
}

}  // namespace ws
