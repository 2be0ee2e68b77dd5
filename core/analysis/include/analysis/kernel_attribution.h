// Where each kernel of a run was launched, in NVTX terms: the ranges open on
// the launching thread when its launch call started or, for a kernel replayed
// from a CUDA graph whose node creation was recorded, when its node was
// captured (the layer and operation of a graph-replayed decode step).
#pragma once

#include <cstdint>
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
    // Reads the run's ranges, graph nodes and API calls (thread and start
    // of each call, by correlation id).
    KernelAttribution(Store& store, RunId run);
    KernelAttribution(const KernelAttribution&) = delete;
    KernelAttribution& operator=(const KernelAttribution&) = delete;

    const std::vector<RangeRecord>& ranges() const { return ranges_; }
    const RangeStacks& stacks() const { return stacks_; }
    // Index in ranges() of the innermost range open where `kernel` was
    // launched or captured; RangeStacks::kNone when none was open or the
    // launch is unknown. `captured` says which of the two it was.
    std::size_t innermost(const KernelRecord& kernel, bool* captured = nullptr) const;

  private:
    std::vector<RangeRecord> ranges_;
    RangeStacks stacks_;
    GraphNodeOrigins origins_;
    // Correlation id → launching thread and call start.
    std::unordered_map<std::uint32_t, std::pair<std::uint32_t, std::int64_t>> launches_;
};

}  // namespace ws
