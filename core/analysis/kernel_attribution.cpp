#include "analysis/kernel_attribution.h"

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
        launches_.try_emplace(a.correlationId, Launch{static_cast<std::uint32_t>(r), a.startNs});
    });
    std::erase_if(launches_, [](const auto& l) {
        return l.second.range == static_cast<std::uint32_t>(RangeStacks::kNone);
    });
}

void KernelAttribution::addLaunch(const ApiCallRecord& a) {
    if (!a.correlationId || ranges_.empty()) return;
    const std::size_t r = stacks_.innermost(a.threadId, a.startNs);
    if (r == RangeStacks::kNone) return;
    // The first call of a correlation id counts, as in the eager constructor:
    // another process's call with the same id (ids are per process) must not
    // take its place.
    if (launches_.try_emplace(a.correlationId, Launch{static_cast<std::uint32_t>(r), a.startNs})
            .second)
        byStart_.emplace_back(a.startNs, a.correlationId);
}

void KernelAttribution::forgetLaunchesBefore(std::int64_t ns) {
    while (!byStart_.empty() && byStart_.front().first < ns) {
        auto it = launches_.find(byStart_.front().second);
        if (it != launches_.end() && it->second.startNs == byStart_.front().first)
            launches_.erase(it);
        byStart_.pop_front();
    }
}

std::size_t KernelAttribution::innermost(const KernelRecord& k, bool* captured) const {
    if (captured) *captured = false;
    if (k.graphNodeId)
        if (const GraphNodeRecord* node = origins_.origin(k.graphNodeId)) {
            if (captured) *captured = true;
            return stacks_.innermost(node->threadId, node->timeNs);
        }
    auto launch = launches_.find(k.correlationId);
    if (launch == launches_.end()) return RangeStacks::kNone;
    return launch->second.range;
}

}  // namespace ws
