// How long a run recorded with --graph-trace node held its CUDA graph
// launches: from each cudaGraphLaunch (or the end of what its stream was
// still running, whichever is later) to the graph's first node, beyond what
// an untraced launch takes. Measured on an H100, node tracing holds each
// launch 130-240 µs before its first node (docs/benchmarks.md, "What-if
// against real runs"), the tracer's cost, not the program's; --graph-trace
// graph does not pay it. An accumulator: calls in any order, then kernels in
// start order.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/records.h"

namespace ws {

struct GraphLaunchWait {
    std::int64_t launches = 0;         // graph launches whose first node was seen
    std::int64_t replayedKernels = 0;  // kernels run by graph launches
    std::int64_t kernels = 0;          // all kernels seen
    std::int64_t heldNs = 0;           // the launches' waits beyond an untraced launch, summed
    std::int64_t medianHeldNs = 0;
};

class GraphLaunchWaitCounter {
  public:
    // An untraced graph launch's own time from its call to its first node on
    // an idle stream (timeline_replay.h's ReplayOptions::graphLaunchNs).
    explicit GraphLaunchWaitCounter(std::int64_t untracedLaunchNs = 10'000)
        : untracedLaunchNs_(untracedLaunchNs) {}
    void addCall(const ApiCallRecord& call);
    void addKernel(const KernelRecord& kernel);
    GraphLaunchWait finish() const;

  private:
    std::int64_t untracedLaunchNs_;
    std::unordered_map<std::uint32_t, std::int64_t> launchStart_;  // by correlation id
    std::unordered_map<std::uint64_t, std::int64_t> streamEnd_;    // by device and stream
    std::vector<std::int64_t> held_;
    GraphLaunchWait totals_;
};

}  // namespace ws
