#include "analysis/kernel_attribution.h"

#include "store/run_queries.h"

namespace ws {

KernelAttribution::KernelAttribution(Store& store, RunId run)
    : ranges_(rangesIn(store, run, {})), stacks_(ranges_), origins_(graphNodesOf(store, run)) {
    forEachApiCall(store, run, {}, std::nullopt, [&](const ApiCallRecord& a) {
        if (a.correlationId) launches_.emplace(a.correlationId, std::pair(a.threadId, a.startNs));
    });
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
    return stacks_.innermost(launch->second.first, launch->second.second);
}

}  // namespace ws
