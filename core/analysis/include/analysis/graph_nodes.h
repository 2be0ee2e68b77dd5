// Where the nodes of a run's CUDA graphs were created. A replayed kernel
// carries the id of its instantiated graph's node, a copy of the node that
// stream capture (or cudaGraphAdd*Node) created; following the copies back
// gives the thread and moment of that creation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/records.h"
#include "store/store.h"

namespace ws {

class GraphNodeOrigins {
  public:
    explicit GraphNodeOrigins(std::vector<GraphNodeRecord> nodes);

    // The created node `nodeId` descends from; null when its creation was
    // not recorded, or when the id is ambiguous: kernel records carry no
    // process, and two processes may number their nodes alike.
    const GraphNodeRecord* origin(std::uint64_t nodeId) const;
    bool empty() const { return nodes_.empty(); }

  private:
    std::vector<GraphNodeRecord> nodes_;
    std::unordered_map<std::uint64_t, std::size_t> byId_;
    std::unordered_map<std::uint64_t, bool> ambiguous_;
};

// Where a kernel replayed from a CUDA graph was captured: the thread and
// moment its node was created, and the NVTX ranges open there then.
struct CaptureSite {
    std::uint32_t threadId = 0;
    std::int64_t timeNs = 0;
    std::string rangePath;  // "outer/…/inner"; empty when no range was open
};

// Null for a kernel not launched from a graph, or whose node's creation was
// not recorded (or is ambiguous, see GraphNodeOrigins).
std::optional<CaptureSite> captureSiteOf(Store& store, RunId run, const KernelRecord& kernel);

}  // namespace ws
