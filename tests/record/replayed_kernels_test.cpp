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

TEST(ReplayedKernels, CallsBeforeAndAfterTheirKernelPlaceItTheFirstOneWins) {
    ReplayedKernels replayed(4);
    ApiCallRecord call;
    call.correlationId = 3;
    call.startNs = 300;
    replayed.apiCall(call);  // before its kernel
    call.startNs = 333;      // the same id again (another process): the first wins
    replayed.apiCall(call);
    KernelRecord before, after;
    before.correlationId = 3;
    after.correlationId = 5;
    EXPECT_TRUE(replayed.hold(before));
    EXPECT_TRUE(replayed.hold(after));
    call.correlationId = 5;
    call.startNs = 500;
    replayed.apiCall(call);  // after its kernel
    call.startNs = 555;
    replayed.apiCall(call);
    auto placed = replayed.release();
    ASSERT_EQ(placed.size(), 2u);
    EXPECT_EQ(placed[0].startNs, 300);
    EXPECT_EQ(placed[1].startNs, 500);
    EXPECT_EQ(replayed.unplaced(), 0);
}

// Every API call of a recording passes through: 10^8 launches in an hour of
// serving must not be remembered one by one (they were, ~80 MiB a million).
TEST(ReplayedKernels, RemembersABoundedWindowOfCalls) {
    constexpr std::size_t kWindow = 1000;
    ReplayedKernels replayed(kWindow);
    ApiCallRecord call;
    for (std::uint32_t id = 1; id <= 100'000; ++id) {
        call.correlationId = id;
        call.startNs = id * 10;
        replayed.apiCall(call);
    }
    EXPECT_LE(replayed.callsRemembered(), kWindow);

    // A kernel held now finds its call if it came within the window.
    KernelRecord recent, old;
    recent.correlationId = 100'000 - 10;
    old.correlationId = 5;  // 99,995 calls ago
    EXPECT_TRUE(replayed.hold(recent));
    EXPECT_TRUE(replayed.hold(old));
    // Held, the window stays bounded (plus one remembered call per held kernel).
    for (std::uint32_t id = 100'001; id <= 200'000; ++id) {
        call.correlationId = id;
        call.startNs = id * 10;
        replayed.apiCall(call);
    }
    EXPECT_LE(replayed.callsRemembered(), kWindow + 2);
    KernelRecord later;
    later.correlationId = 200'000 - 999;
    EXPECT_TRUE(replayed.hold(later));
    auto placed = replayed.release();
    ASSERT_EQ(placed.size(), 3u);
    EXPECT_EQ(placed[0].startNs, (100'000 - 10) * 10);
    EXPECT_EQ(placed[1].startNs, 0);  // its call fell out of the window
    EXPECT_EQ(placed[2].startNs, (200'000 - 999) * 10);
    EXPECT_EQ(replayed.unplaced(), 1);
}

// A counter pass of an hour holds nothing for long: each kernel leaves once
// its launch call and its counted duration arrived, whatever their order.
TEST(ReplayedKernels, AKernelLeavesOnceItsCallAndDurationArrived) {
    constexpr std::size_t kWindow = 1000;
    ReplayedKernels replayed(kWindow);
    std::size_t placedCount = 0;
    for (std::uint32_t id = 1; id <= 30'000; ++id) {
        ApiCallRecord call;
        call.correlationId = id;
        call.startNs = std::int64_t{id} * 1000;
        KernelRecord k;
        k.correlationId = id;
        const KernelMetricRecord duration{id, counters::kDuration, 100.0};
        switch (id % 3) {  // the three orders the pieces come in
            case 0:
                replayed.apiCall(call);
                replayed.metric(duration);
                EXPECT_TRUE(replayed.hold(k));
                break;
            case 1:
                replayed.metric(duration);
                EXPECT_TRUE(replayed.hold(k));
                replayed.apiCall(call);
                break;
            default:
                EXPECT_TRUE(replayed.hold(k));
                replayed.apiCall(call);
                replayed.metric(duration);
        }
        ASSERT_TRUE(replayed.havePlaced()) << id;
        auto placed = replayed.takePlaced();
        ASSERT_EQ(placed.size(), 1u);
        EXPECT_EQ(placed[0].correlationId, id);
        EXPECT_EQ(placed[0].startNs, std::int64_t{id} * 1000);
        EXPECT_EQ(placed[0].endNs, std::int64_t{id} * 1000 + 100);
        ++placedCount;
    }
    EXPECT_EQ(placedCount, 30'000u);
    EXPECT_EQ(replayed.held(), 0u);
    EXPECT_LE(replayed.callsRemembered(), kWindow);
    EXPECT_TRUE(replayed.release().empty());
    EXPECT_EQ(replayed.unplaced(), 0);
}

}  // namespace
}  // namespace ws
