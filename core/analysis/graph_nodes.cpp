#include "analysis/graph_nodes.h"

#include "analysis/range_stacks.h"
#include "store/run_queries.h"

namespace ws {

GraphNodeOrigins::GraphNodeOrigins(std::vector<GraphNodeRecord> nodes) : nodes_(std::move(nodes)) {
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
        auto [it, fresh] = byId_.try_emplace(nodes_[i].nodeId, i);
        if (fresh) continue;
        const GraphNodeRecord& seen = nodes_[it->second];
        if (seen.processId != nodes_[i].processId) ambiguous_[nodes_[i].nodeId] = true;
        // Instantiation reports each copy twice: created (no original) and
        // then cloned from the captured node. The clone leads back to capture.
        else if (seen.originalNodeId == 0 && nodes_[i].originalNodeId != 0)
            it->second = i;
    }
}

const GraphNodeRecord* GraphNodeOrigins::origin(std::uint64_t nodeId) const {
    // A chain of copies is short (instantiation copies once; cloning a graph
    // adds one step); the bound guards against a cycle in damaged records.
    for (int step = 0; step < 64; ++step) {
        if (ambiguous_.count(nodeId)) return nullptr;
        auto it = byId_.find(nodeId);
        if (it == byId_.end()) return nullptr;
        const GraphNodeRecord& n = nodes_[it->second];
        if (n.originalNodeId == 0) return &n;
        nodeId = n.originalNodeId;
    }
    return nullptr;
}

std::optional<CaptureSite> captureSiteOf(Store& store, RunId run, const KernelRecord& kernel) {
    if (!kernel.graphNodeId) return std::nullopt;
    GraphNodeOrigins origins(graphNodesOf(store, run));
    const GraphNodeRecord* node = origins.origin(kernel.graphNodeId);
    if (!node) return std::nullopt;
    // Only the ranges around that moment are needed.
    auto ranges = rangesIn(store, run, {node->timeNs, node->timeNs}, node->threadId);
    RangeStacks stacks(ranges);
    return CaptureSite{node->threadId, node->timeNs, stacks.path(node->threadId, node->timeNs)};
}

}  // namespace ws
