#include "capture/graph_nodes.h"

#include <cupti.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "capture/cupti_callbacks.h"

namespace ws::capture {

namespace {

std::function<void(const GraphNodeRecord&)>* emitNode = nullptr;  // lives until exit

void onResource(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
    if (domain != CUPTI_CB_DOMAIN_RESOURCE) return;
    bool created = cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED;
    if (!created && cbid != CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED) return;
    const auto* resource = static_cast<const CUpti_ResourceData*>(data);
    const auto* g = static_cast<const CUpti_GraphData*>(resource->resourceDescriptor);
    if (!g || !g->node) return;
    GraphNodeRecord r;
    if (cuptiGetGraphNodeId(g->node, &r.nodeId) != CUPTI_SUCCESS) return;
    if (!created && (!g->originalNode ||
                     cuptiGetGraphNodeId(g->originalNode, &r.originalNodeId) != CUPTI_SUCCESS))
        return;
    if (g->graph) cuptiGetGraphId(g->graph, &r.graphId);
    r.processId = static_cast<std::uint32_t>(::getpid());
    // The kernel's thread id, as CUPTI's records carry it once the collector
    // has set CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM.
    r.threadId = static_cast<std::uint32_t>(::syscall(SYS_gettid));
    std::uint64_t now = 0;
    cuptiGetTimestamp(&now);
    r.timeNs = static_cast<std::int64_t>(now);
    r.nodeType = static_cast<std::int32_t>(g->nodeType);
    (*emitNode)(r);
}

}  // namespace

bool startGraphNodeTracking(std::function<void(const GraphNodeRecord&)> emit) {
    emitNode = new std::function<void(const GraphNodeRecord&)>(std::move(emit));
    CUpti_SubscriberHandle s = addCallbackHandler(onResource);
    if (!s) return false;
    return cuptiEnableCallback(1, s, CUPTI_CB_DOMAIN_RESOURCE,
                               CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED) == CUPTI_SUCCESS &&
           cuptiEnableCallback(1, s, CUPTI_CB_DOMAIN_RESOURCE,
                               CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED) == CUPTI_SUCCESS;
}

}  // namespace ws::capture
