// Where each kernel of a run was launched, in NVTX terms: the ranges open on
// the launching thread when its launch call started or, for a kernel replayed
// from a CUDA graph whose node creation was recorded, when its node was
// captured (the layer and operation of a graph-replayed decode step).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
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
    // The same from the call's correlation id, thread and start; `graphLaunch`
    // for a call that launches a CUDA graph (cudaGraphLaunch, cuGraphLaunch),
    // whose kernels all carry its correlation id.
    void addLaunch(std::uint32_t correlationId, std::uint32_t threadId, std::int64_t startNs,
                   bool graphLaunch = false);
    // Streamed: innermost() for a kernel walked in start order. A plain launch
    // launches one kernel, so once that kernel is credited its launch leaves
    // the lookup table (which then holds only launches whose kernels are still
    // queued) for a list in start order until the horizon forgets it: the
    // first call of an id still wins, and a later kernel of the same id (a
    // graph's, another process's) still finds it. A kernel with a graph node
    // or graph id, and a graph launch, keep their launch in the table.
    std::size_t credit(std::uint64_t graphNodeId, std::uint32_t graphId,
                       std::uint32_t correlationId, bool* captured = nullptr);
    // Streamed: drops calls that started before `ns`.
    void forgetLaunchesBefore(std::int64_t ns);
    // Calls held now, credited or not (for tests of the bound).
    std::size_t launchesHeld() const { return launches_.size() + creditedHeld_; }
    // Calls held in the lookup table: those no kernel was credited to yet.
    std::size_t launchesPending() const { return launches_.size(); }

  private:
    struct Launch {
        std::uint32_t range = 0;  // index in ranges_
        bool graph = false;       // a graph launch: stays until the horizon
        std::uint64_t seq = 0;    // streamed: its place in byStart_ (+ forgotten_)
    };
    // Correlation id → launch, open addressing with linear probing: no
    // allocation per call.
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
    // A set of correlation ids as bits, in pages of 2^16 ids made when first
    // used and freed when emptied: ids of a run are dense, so the ids of the
    // credited launches of a horizon take a few pages.
    class IdSet {
      public:
        void insert(std::uint32_t id);
        void erase(std::uint32_t id);
        bool contains(std::uint32_t id) const;
        void clear();
        std::size_t pages() const { return pages_; }

      private:
        std::vector<std::unique_ptr<std::uint64_t[]>> bits_;  // by id >> 16
        std::vector<std::uint32_t> counts_;                   // ids set, by page
        std::size_t pages_ = 0;
    };
    // A streamed launch in start order.
    struct Held {
        std::int64_t startNs = 0;
        std::uint32_t correlationId = 0;
        std::uint32_t range : 31 = 0;
        std::uint32_t credited : 1 = 0;  // out of launches_, in credited_
    };
    // Streamed: the range of a credited launch still held (kNone if none).
    std::size_t creditedRange(std::uint32_t correlationId) const;
    // Streamed: puts every credited launch back in the table and credits no
    // more (a second kernel of a plain launch's id was seen, or the ids are
    // too sparse for IdSet's pages).
    void keepCredited();

    std::vector<RangeRecord> ranges_;
    RangeStacks stacks_;
    GraphNodeOrigins origins_;
    // Correlation id → innermost range open at the launching call (streamed:
    // the launches not credited yet).
    LaunchTable launches_;
    // Streamed: every launch held, in the order it was kept (by start); an id
    // is kept again only after its earlier launch was forgotten.
    std::deque<Held> byStart_;
    std::uint64_t forgotten_ = 0;  // launches popped from byStart_'s front
    // Streamed: ids of the credited launches in byStart_.
    IdSet credited_;
    std::size_t creditedHeld_ = 0;
    bool crediting_ = true;  // credit() moves plain launches out of launches_
};

}  // namespace ws
