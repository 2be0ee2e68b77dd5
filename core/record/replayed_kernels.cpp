#include "record/replayed_kernels.h"

#include <algorithm>
#include <cmath>

#include "model/counter_metrics.h"

namespace ws {

ReplayedKernels::ReplayedKernels(std::size_t callWindow)
    : window_(std::max<std::size_t>(callWindow, 1)) {}

bool ReplayedKernels::hold(const KernelRecord& k) {
    if (k.startNs != 0 || k.endNs != 0) return false;
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
    const auto arrival = arrivals_++;
    held_.emplace(arrival, k);
    auto it = launches_.try_emplace(k.correlationId).first;
    it->second.kernels.push_back(arrival);
    if (!it->second.startNs)
        if (auto call = recentIndex_.find(k.correlationId); call != recentIndex_.end())
            it->second.startNs = call->second;
    placeIfComplete(it);
    return true;
}

void ReplayedKernels::apiCall(const ApiCallRecord& call) {
    remember(call.correlationId, call.startNs);
    auto it = launches_.find(call.correlationId);
    // Only a held kernel's: a call before its kernel is found in the window.
    if (it == launches_.end() || it->second.kernels.empty() || it->second.startNs) return;
    it->second.startNs = call.startNs;
    placeIfComplete(it);
}

void ReplayedKernels::metric(const KernelMetricRecord& m) {
    if (m.metric != counters::kDuration) return;
    // Counted before its kernel arrived, as the counters come out of the
    // launch call and the kernel's record with the next activity buffer.
    auto it = launches_.try_emplace(m.correlationId).first;
    it->second.durationNs = m.value;
    placeIfComplete(it);
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

KernelRecord ReplayedKernels::placed(KernelRecord k, const Launch& launch) {
    k.startNs = *launch.startNs;
    k.endNs = k.startNs +
              (launch.durationNs ? static_cast<std::int64_t>(std::llround(*launch.durationNs)) : 0);
    return k;
}

void ReplayedKernels::placeIfComplete(std::unordered_map<std::uint32_t, Launch>::iterator it) {
    const Launch& launch = it->second;
    if (launch.kernels.empty() || !launch.startNs || !launch.durationNs) return;
    for (auto arrival : launch.kernels) {
        auto node = held_.extract(arrival);
        placed_.push_back(placed(std::move(node.mapped()), launch));
    }
    launches_.erase(it);
}

std::vector<KernelRecord> ReplayedKernels::takePlaced() {
    return std::exchange(placed_, {});
}

std::vector<KernelRecord> ReplayedKernels::release() {
    std::vector<KernelRecord> out = takePlaced();
    for (auto& [arrival, k] : held_) {
        auto launch = launches_.find(k.correlationId);
        if (launch == launches_.end() || !launch->second.startNs) {
            ++unplaced_;
            out.push_back(std::move(k));
        } else {
            out.push_back(placed(std::move(k), launch->second));
        }
    }
    held_.clear();
    std::erase_if(launches_, [](const auto& entry) { return !entry.second.kernels.empty(); });
    return out;
}

}  // namespace ws
