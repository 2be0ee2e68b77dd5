// Where each kernel of a run was launched, in NVTX terms: the ranges open on
// the launching thread when its launch call started or, for a kernel replayed
// from a CUDA graph whose node creation was recorded, when its node was
// captured (the layer and operation of a graph-replayed decode step).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/graph_nodes.h"
#include "analysis/range_stacks.h"
#include "model/records.h"

namespace ws {

class Store;

class KernelAttribution {
  public:
    struct Streamed {};
    // Reads the run's ranges, graph nodes and API calls (by correlation id,
    // the innermost range open where each call started; calls outside every
    // range are not kept, and none are read in a run without ranges).
    KernelAttribution(Store& store, RunId run);
    // Reads ranges and graph nodes only: the caller feeds the API calls with
    // addLaunch() in start order while walking kernels in start order, and
    // forgets old ones with forgetLaunchesBefore(), so memory holds the calls
    // of a time span rather than of the run.
    KernelAttribution(Store& store, RunId run, Streamed);
    KernelAttribution(const KernelAttribution&) = delete;
    KernelAttribution& operator=(const KernelAttribution&) = delete;

    const std::vector<RangeRecord>& ranges() const { return ranges_; }
    const RangeStacks& stacks() const { return stacks_; }
    // Whether any launch can be attributed to a range at all.
    bool hasRanges() const { return !ranges_.empty(); }
    // Index in ranges() of the innermost range open where `kernel` was
    // launched or captured; RangeStacks::kNone when none was open or the
    // launch is unknown. `captured` says which of the two it was.
    std::size_t innermost(const KernelRecord& kernel, bool* captured = nullptr) const {
        return innermost(kernel.graphNodeId, kernel.correlationId, captured);
    }
    // The same from a kernel's graph node id and correlation id.
    std::size_t innermost(std::uint64_t graphNodeId, std::uint32_t correlationId,
                          bool* captured = nullptr) const;

    // Streamed: a call (in start order) that may have launched a kernel.
    void addLaunch(const ApiCallRecord& call) {
        addLaunch(call.correlationId, call.threadId, call.startNs);
    }
    // The same from the call's correlation id, thread and start.
    void addLaunch(std::uint32_t correlationId, std::uint32_t threadId, std::int64_t startNs);
    // Streamed: drops calls that started before `ns`.
    void forgetLaunchesBefore(std::int64_t ns);
    // Calls held now (for tests of the bound).
    std::size_t launchesHeld() const { return launches_.size(); }

  private:
    struct Launch {
        std::uint32_t range = 0;  // index in ranges_
        std::int64_t startNs = 0;
    };
    // Correlation id → launch, open addressing with linear probing: no
    // allocation per call (a streamed pass holds every launch of its horizon,
    // millions in a busy run) and 16 bytes a slot.
    class LaunchTable {
      public:
        // False (and nothing changes) when the id is already there.
        bool tryEmplace(std::uint32_t correlationId, Launch launch);
        const Launch* find(std::uint32_t correlationId) const;
        void erase(std::uint32_t correlationId);
        // Removes every launch credited to `range`.
        void eraseRange(std::uint32_t range);
        std::size_t size() const { return size_; }

      private:
        struct Slot {
            std::uint32_t correlationId = 0;  // 0: empty (id 0 is never kept)
            Launch launch;
        };
        std::size_t home(std::uint32_t correlationId) const;
        void grow();
        std::vector<Slot> slots_;
        std::size_t size_ = 0;
    };
    std::vector<RangeRecord> ranges_;
    RangeStacks stacks_;
    GraphNodeOrigins origins_;
    // Correlation id → innermost range open at the launching call.
    LaunchTable launches_;
    // Streamed: correlation ids in the order they were kept (by start). The
    // front's launch in the table is always the one it was kept with: an id
    // is kept again only after its earlier launch was forgotten.
    std::deque<std::uint32_t> byStart_;
};

}  // namespace ws
