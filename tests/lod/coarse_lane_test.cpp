#include <gtest/gtest.h>

#include "lod/coarse_lane.h"

namespace ws::lod {
namespace {

// Ten spans of 100 ns every 1000 ns, each standing for 50 events filling
// half of it.
CoarseLane tenSpans() {
    CoarseLane lane;
    for (int i = 9; i >= 0; --i)  // out of order on purpose
        lane.add(i * 1000, i * 1000 + 100, 50, 50);
    lane.finish();
    return lane;
}

TEST(CoarseLane, SortsSpansAndCountsEventsInAWindow) {
    auto lane = tenSpans();
    ASSERT_EQ(lane.size(), 10u);
    EXPECT_EQ(lane.start(0), 0);
    EXPECT_EQ(lane.start(9), 9000);
    EXPECT_EQ(lane.events(), 500);
    EXPECT_EQ(lane.endNs(), 9100);
    EXPECT_EQ(lane.eventsIn(0, 10'000), 500);
    EXPECT_EQ(lane.eventsIn(1050, 3050), 150);  // spans at 1000, 2000 and 3000
    EXPECT_EQ(lane.eventsIn(1100, 2000), 0);    // between spans
    EXPECT_EQ(lane.eventsIn(20'000, 30'000), 0);
}

TEST(CoarseLane, WideSpansAreMarksOfTheirBusyShare) {
    auto lane = tenSpans();
    TimeAxis a;
    a.widthPx = 1000;
    a.fit(0, 1000);  // 1 ns per pixel: one span of 100 px in view
    auto items = buildCoarseDrawList(lane, a);
    ASSERT_EQ(items.size(), 1u);
    EXPECT_FLOAT_EQ(items[0].x0, 0);
    EXPECT_FLOAT_EQ(items[0].x1, 100);
    EXPECT_EQ(items[0].count, 50u);
    EXPECT_NEAR(items[0].busy, 0.5, 1e-6);
    EXPECT_TRUE(items[0].folded());
}

TEST(CoarseLane, NarrowNeighboursMergeAndEverythingIsCounted) {
    auto lane = tenSpans();
    TimeAxis a;
    a.widthPx = 10;
    a.fit(0, 10'000);  // 1000 ns per pixel: spans 1 px apart merge
    auto items = buildCoarseDrawList(lane, a);
    ASSERT_EQ(items.size(), 1u);
    EXPECT_EQ(items[0].count, 500u);
    EXPECT_LT(items[0].busy, 0.1f);  // 500 ns busy over ~9 µs
}

TEST(CoarseLane, ASpanReachingIntoTheViewIsDrawn) {
    CoarseLane lane;
    lane.add(0, 10'000, 7, 9000);
    lane.add(20'000, 20'100, 3, 100);
    lane.finish();
    TimeAxis a;
    a.widthPx = 100;
    a.fit(5000, 15'000);
    auto items = buildCoarseDrawList(lane, a);
    ASSERT_EQ(items.size(), 1u);
    EXPECT_FLOAT_EQ(items[0].x0, -50);  // 100 ns per pixel
    EXPECT_EQ(items[0].count, 7u);
    auto shifted = lane.shifted(1000);
    EXPECT_EQ(shifted.start(1), 21'000);
    EXPECT_EQ(shifted.endNs(), 21'100);
    EXPECT_EQ(shifted.events(), 10);
}

TEST(CoarseLane, EmptyLaneDrawsNothing) {
    CoarseLane lane;
    lane.finish();
    TimeAxis a;
    EXPECT_TRUE(buildCoarseDrawList(lane, a).empty());
    EXPECT_EQ(lane.events(), 0);
    EXPECT_EQ(lane.eventsIn(0, 100), 0);
}

}  // namespace
}  // namespace ws::lod
