#include "analysis/graph_launch_wait.h"

#include <algorithm>

namespace ws {

void GraphLaunchWaitCounter::addCall(const ApiCallRecord& call) {
    // cudaGraphLaunch and cuGraphLaunch; their kernels carry the call's
    // correlation id.
    if (call.name.find("GraphLaunch") != std::string::npos)
        launchStart_.emplace(call.correlationId, call.startNs);
}

void GraphLaunchWaitCounter::addKernel(const KernelRecord& kernel) {
    ++totals_.kernels;
    const std::uint64_t stream = (std::uint64_t(kernel.deviceId) << 32) | kernel.streamId;
    auto& end = streamEnd_[stream];
    const std::int64_t busyUntil = end;
    end = std::max(end, kernel.endNs);
    if (kernel.graphId == 0) return;
    ++totals_.replayedKernels;
    auto launch = launchStart_.find(kernel.correlationId);
    if (launch == launchStart_.end()) return;  // not the first node, or no launch call seen
    const std::int64_t ready = std::max(launch->second, busyUntil);
    const std::int64_t held = std::max<std::int64_t>(0, kernel.startNs - ready - untracedLaunchNs_);
    held_.push_back(held);
    totals_.heldNs += held;
    ++totals_.launches;
    launchStart_.erase(launch);
}

GraphLaunchWait GraphLaunchWaitCounter::finish() const {
    GraphLaunchWait w = totals_;
    if (!held_.empty()) {
        auto sorted = held_;
        auto middle = sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2);
        std::nth_element(sorted.begin(), middle, sorted.end());
        w.medianHeldNs = *middle;
    }
    return w;
}

}  // namespace ws
