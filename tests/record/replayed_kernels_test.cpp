#include "record/replayed_kernels.h"

#include <gtest/gtest.h>

#include "model/counter_metrics.h"

namespace ws {
namespace {

TEST(ReplayedKernels, UntimedKernelsArePlacedAtTheirLaunchCall) {
    ReplayedKernels replayed;
    KernelRecord timed;
    timed.startNs = 100;
    timed.endNs = 200;
    EXPECT_FALSE(replayed.hold(timed));  // ordinary kernels pass straight through

    KernelRecord a, b, lost;
    a.correlationId = 7;
    b.correlationId = 9;
    lost.correlationId = 11;
    EXPECT_TRUE(replayed.hold(a));
    EXPECT_TRUE(replayed.hold(b));
    EXPECT_TRUE(replayed.hold(lost));
    ApiCallRecord call7, call9;
    call7.correlationId = 7;
    call7.startNs = 5'000;
    call9.correlationId = 9;
    call9.startNs = 9'000;
    replayed.apiCall(call7);
    replayed.apiCall(call9);
    replayed.metric({7, counters::kDuration, 1234.4});
    replayed.metric({7, counters::kDramRead, 1e6});

    auto placed = replayed.release();
    ASSERT_EQ(placed.size(), 3u);
    EXPECT_EQ(placed[0].startNs, 5'000);
    EXPECT_EQ(placed[0].endNs, 6'234);
    EXPECT_EQ(placed[1].startNs, 9'000);  // no duration counted: a zero-length mark
    EXPECT_EQ(placed[1].endNs, 9'000);
    EXPECT_EQ(placed[2].startNs, 0);  // no launch call: left as CUPTI gave it
    EXPECT_EQ(replayed.unplaced(), 1);
    EXPECT_TRUE(replayed.release().empty());
}

}  // namespace
}  // namespace ws
