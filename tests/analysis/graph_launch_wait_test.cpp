// How long node tracing held each CUDA graph launch before its first node:
// timelines whose answer is known.
#include <gtest/gtest.h>

#include "analysis/graph_launch_wait.h"

namespace ws {
namespace {

ApiCallRecord call(const char* name, std::uint32_t correlation, std::int64_t startNs) {
    ApiCallRecord c;
    c.name = name;
    c.correlationId = correlation;
    c.startNs = startNs;
    c.endNs = startNs + 5'000;
    return c;
}

KernelRecord kernel(std::uint32_t correlation, std::int64_t startNs, std::int64_t endNs,
                    std::uint32_t graph = 0, std::uint32_t stream = 7) {
    KernelRecord k;
    k.correlationId = correlation;
    k.startNs = startNs;
    k.endNs = endNs;
    k.graphId = graph;
    k.streamId = stream;
    return k;
}

TEST(GraphLaunchWait, AnIdleStreamsLaunchIsHeldFromItsCallToItsFirstNode) {
    GraphLaunchWaitCounter counter;  // an untraced launch: 10 µs to its first node
    counter.addCall(call("cudaLaunchKernel", 1, 0));
    counter.addCall(call("cudaGraphLaunch", 2, 1'000'000));
    counter.addCall(call("cuGraphLaunch", 3, 3'000'000));
    // An eager kernel, then graph 2's three nodes 210 µs after its call.
    counter.addKernel(kernel(1, 10'000, 20'000));
    counter.addKernel(kernel(2, 1'210'000, 1'300'000, 5));
    counter.addKernel(kernel(2, 1'300'100, 1'400'000, 5));
    counter.addKernel(kernel(2, 1'400'100, 1'500'000, 5));
    // Graph 3, through the driver: its first node 8 µs after the call, quicker
    // than an untraced launch, so held for nothing.
    counter.addKernel(kernel(3, 3'008'000, 3'100'000, 6));
    auto w = counter.finish();
    EXPECT_EQ(w.kernels, 5);
    EXPECT_EQ(w.replayedKernels, 4);
    EXPECT_EQ(w.launches, 2);
    EXPECT_EQ(w.heldNs, 200'000);
    EXPECT_EQ(w.medianHeldNs, 200'000);  // of {0, 200 µs}: the upper middle
}

// A launch made while its stream was still busy waits for that work first:
// only the time after the stream was free counts.
TEST(GraphLaunchWait, ALaunchQueuedBehindBusyWorkCountsFromWhenTheStreamWasFree) {
    GraphLaunchWaitCounter counter(5'000);
    counter.addCall(call("cudaGraphLaunch", 2, 100'000));
    counter.addCall(call("cudaGraphLaunch", 3, 150'000));
    counter.addKernel(kernel(1, 0, 400'000));             // busy until 400 µs
    counter.addKernel(kernel(9, 50'000, 900'000, 0, 8));  // another stream: no matter
    counter.addKernel(kernel(2, 405'000, 500'000, 4));    // 5 µs after: held 0
    counter.addKernel(kernel(3, 600'000, 700'000, 4));    // 100 µs after graph 2 ended
    auto w = counter.finish();
    EXPECT_EQ(w.launches, 2);
    EXPECT_EQ(w.heldNs, 95'000);
    // A kernel of a graph whose launch call was not recorded is replayed, not timed.
    counter.addKernel(kernel(77, 800'000, 810'000, 4));
    EXPECT_EQ(counter.finish().replayedKernels, 3);
    EXPECT_EQ(counter.finish().launches, 2);
}

}  // namespace
}  // namespace ws
