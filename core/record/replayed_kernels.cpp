#include "record/replayed_kernels.h"

#include <algorithm>
#include <cmath>

#include "model/counter_metrics.h"

namespace ws {

ReplayedKernels::ReplayedKernels(std::size_t callWindow)
    : window_(std::max<std::size_t>(callWindow, 1)) {}

bool ReplayedKernels::hold(const KernelRecord& k) {
    if (k.startNs != 0 || k.endNs != 0) return false;
    held_.push_back(k);
    if (!indexed_) {
        // Oldest first, so the first call with an id wins, as it would have.
        indexed_ = true;
        const std::size_t n = recent_.size();
        const std::size_t oldest = n < window_ ? 0 : next_;
        for (std::size_t i = 0; i < n; ++i) {
            const auto& [id, start] = recent_[(oldest + i) % n];
            recentIndex_.emplace(id, start);
        }
    }
    auto [it, fresh] = launchStart_.try_emplace(k.correlationId);
    if (fresh)
        if (auto call = recentIndex_.find(k.correlationId); call != recentIndex_.end())
            it->second = call->second;
    return true;
}

void ReplayedKernels::apiCall(const ApiCallRecord& call) {
    // A held kernel's call: kept with the kernel (the first one seen wins).
    if (auto it = launchStart_.find(call.correlationId); it != launchStart_.end()) {
        if (!it->second) it->second = call.startNs;
        return;
    }
    remember(call.correlationId, call.startNs);
}

void ReplayedKernels::remember(std::uint32_t correlationId, std::int64_t startNs) {
    if (recent_.size() < window_) {
        recent_.emplace_back(correlationId, startNs);
    } else {
        auto& slot = recent_[next_];
        if (indexed_)
            if (auto it = recentIndex_.find(slot.first);
                it != recentIndex_.end() && it->second == slot.second)
                recentIndex_.erase(it);
        slot = {correlationId, startNs};
        next_ = (next_ + 1) % window_;
    }
    if (indexed_) recentIndex_.emplace(correlationId, startNs);
}

void ReplayedKernels::metric(const KernelMetricRecord& m) {
    if (m.metric == counters::kDuration) durationNs_[m.correlationId] = m.value;
}

std::vector<KernelRecord> ReplayedKernels::release() {
    std::vector<KernelRecord> out = std::move(held_);
    held_.clear();
    for (auto& k : out) {
        auto call = launchStart_.find(k.correlationId);
        if (call == launchStart_.end() || !call->second) {
            ++unplaced_;
            continue;
        }
        auto duration = durationNs_.find(k.correlationId);
        k.startNs = *call->second;
        k.endNs = k.startNs + (duration == durationNs_.end()
                                   ? 0
                                   : static_cast<std::int64_t>(std::llround(duration->second)));
    }
    return out;
}

}  // namespace ws
