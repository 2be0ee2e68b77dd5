#include "analysis/kernel_attribution.h"

#include <algorithm>

#include "store/run_queries.h"

namespace ws {

KernelAttribution::KernelAttribution(Store& store, RunId run, Streamed)
    : ranges_(rangesIn(store, run, {})), stacks_(ranges_), origins_(graphNodesOf(store, run)) {}

KernelAttribution::KernelAttribution(Store& store, RunId run)
    : KernelAttribution(store, run, Streamed{}) {
    if (ranges_.empty()) return;
    forEachApiCall(store, run, {}, std::nullopt, [&](const ApiCallRecord& a) {
        if (!a.correlationId) return;
        const std::size_t r = stacks_.innermost(a.threadId, a.startNs);
        // The first call of a correlation id counts, in range or not.
        launches_.tryEmplace(a.correlationId, Launch{static_cast<std::uint32_t>(r), a.startNs});
    });
    launches_.eraseRange(static_cast<std::uint32_t>(RangeStacks::kNone));
}

void KernelAttribution::addLaunch(std::uint32_t correlationId, std::uint32_t threadId,
                                  std::int64_t startNs) {
    if (!correlationId || ranges_.empty()) return;
    const std::size_t r = stacks_.innermost(threadId, startNs);
    if (r == RangeStacks::kNone) return;
    // The first call of a correlation id counts, as in the eager constructor:
    // another process's call with the same id (ids are per process) must not
    // take its place.
    if (launches_.tryEmplace(correlationId, Launch{static_cast<std::uint32_t>(r), startNs}))
        byStart_.push_back(correlationId);
}

void KernelAttribution::forgetLaunchesBefore(std::int64_t ns) {
    while (!byStart_.empty()) {
        const Launch* front = launches_.find(byStart_.front());
        if (front && front->startNs >= ns) break;
        launches_.erase(byStart_.front());
        byStart_.pop_front();
    }
}

std::size_t KernelAttribution::innermost(std::uint64_t graphNodeId, std::uint32_t correlationId,
                                         bool* captured) const {
    if (captured) *captured = false;
    if (graphNodeId)
        if (const GraphNodeRecord* node = origins_.origin(graphNodeId)) {
            if (captured) *captured = true;
            return stacks_.innermost(node->threadId, node->timeNs);
        }
    const Launch* launch = launches_.find(correlationId);
    return launch ? launch->range : RangeStacks::kNone;
}

std::size_t KernelAttribution::LaunchTable::home(std::uint32_t correlationId) const {
    // Fibonacci hashing: any pattern of ids (consecutive ones, several
    // processes' numberings) spreads evenly, so probe runs stay short.
    return static_cast<std::size_t>((std::uint64_t(correlationId) * 0x9E3779B97F4A7C15ull) >> 32) &
           (slots_.size() - 1);
}

void KernelAttribution::LaunchTable::grow() {
    std::vector<Slot> old(std::max<std::size_t>(1024, slots_.size() * 2));
    old.swap(slots_);
    size_ = 0;
    for (const Slot& s : old)
        if (s.correlationId) tryEmplace(s.correlationId, s.launch);
}

bool KernelAttribution::LaunchTable::tryEmplace(std::uint32_t correlationId, Launch launch) {
    if ((size_ + 1) * 10 > slots_.size() * 7) grow();
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = home(correlationId);; i = (i + 1) & mask) {
        if (slots_[i].correlationId == correlationId) return false;
        if (!slots_[i].correlationId) {
            slots_[i] = {correlationId, launch};
            ++size_;
            return true;
        }
    }
}

const KernelAttribution::Launch* KernelAttribution::LaunchTable::find(
    std::uint32_t correlationId) const {
    if (slots_.empty() || !correlationId) return nullptr;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = home(correlationId);; i = (i + 1) & mask) {
        if (slots_[i].correlationId == correlationId) return &slots_[i].launch;
        if (!slots_[i].correlationId) return nullptr;
    }
}

void KernelAttribution::LaunchTable::erase(std::uint32_t correlationId) {
    if (slots_.empty() || !correlationId) return;
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = home(correlationId);
    for (;; i = (i + 1) & mask) {
        if (!slots_[i].correlationId) return;
        if (slots_[i].correlationId == correlationId) break;
    }
    // Backward-shift deletion: pull later slots of the probe run into the gap
    // when their home is not between the gap and them.
    for (std::size_t j = (i + 1) & mask; slots_[j].correlationId; j = (j + 1) & mask) {
        const std::size_t h = home(slots_[j].correlationId);
        const bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
        if (stays) continue;
        slots_[i] = slots_[j];
        i = j;
    }
    slots_[i] = {};
    --size_;
}

void KernelAttribution::LaunchTable::eraseRange(std::uint32_t range) {
    std::vector<Slot> old(slots_.size());
    old.swap(slots_);
    size_ = 0;
    for (const Slot& s : old)
        if (s.correlationId && s.launch.range != range) tryEmplace(s.correlationId, s.launch);
}

}  // namespace ws
