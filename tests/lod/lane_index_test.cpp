#include <gtest/gtest.h>

#include "lod/lane_index.h"

namespace ws::lod {
namespace {

TEST(TimeAxis, MapsZoomsAroundAnchorAndPans) {
    TimeAxis a;
    a.widthPx = 1000;
    a.fit(1'000'000, 2'000'000);  // 1 ms across 1000 px: 1 µs per pixel
    EXPECT_DOUBLE_EQ(a.nsPerPx, 1000);
    EXPECT_DOUBLE_EQ(a.toPx(1'500'000), 500);
    EXPECT_EQ(a.toTime(250), 1'250'000);
    a.zoom(4, 250);  // the time under pixel 250 stays there
    EXPECT_DOUBLE_EQ(a.nsPerPx, 250);
    EXPECT_EQ(a.toTime(250), 1'250'000);
    a.pan(100);  // drag right by 100 px: earlier times come into view
    EXPECT_EQ(a.toTime(350), 1'250'000);
    EXPECT_EQ(rulerStep(1000, 80), 100'000);  // 80 µs wanted → 100 µs ticks
    EXPECT_EQ(rulerStep(1, 80), 100);
    EXPECT_EQ(rulerStep(30, 80), 5000);
}

LaneIndex regular(int n, std::int64_t period, std::int64_t duration) {
    LaneIndex lane;
    for (int i = 0; i < n; ++i)
        lane.add(i * period, i * period + duration, static_cast<std::uint32_t>(i % 3));
    return lane;
}

TEST(LaneIndex, WideEventsAreDrawnOneByOne) {
    auto lane = regular(10, 100, 50);  // 10 events of 50 ns every 100 ns
    TimeAxis a;
    a.widthPx = 1000;
    a.fit(0, 1000);  // 1 ns per pixel: each event is 50 px
    auto items = buildDrawList(lane, a);
    ASSERT_EQ(items.size(), 10u);
    EXPECT_FLOAT_EQ(items[3].x0, 300);
    EXPECT_FLOAT_EQ(items[3].x1, 350);
    EXPECT_EQ(items[3].count, 1u);
    EXPECT_FALSE(items[3].folded());
}

TEST(LaneIndex, NarrowEventsFoldIntoFewMarksWithCountAndBusy) {
    auto lane = regular(1'000'000, 100, 50);  // a million events, half busy
    TimeAxis a;
    a.widthPx = 1000;
    a.fit(0, 100'000'000);  // 100 µs per pixel: 1000 events per pixel
    auto items = buildDrawList(lane, a);
    EXPECT_LE(items.size(), 1000u / 3 + 2);
    std::uint64_t total = 0;
    for (const auto& it : items) {
        total += it.count;
        EXPECT_NEAR(it.busy, 0.5, 0.02);
        EXPECT_TRUE(it.folded());
    }
    EXPECT_EQ(total, 1'000'000u);  // every event is in exactly one mark
}

TEST(LaneIndex, ZoomedWindowStartsAtRunningEventAndStopsAtEnd) {
    LaneIndex lane;
    lane.add(0, 1000, 0);  // long, running into the window
    lane.add(2000, 2010, 1);
    lane.add(5000, 5010, 2);  // after the window
    TimeAxis a;
    a.widthPx = 100;
    a.fit(500, 3000);
    auto items = buildDrawList(lane, a);
    ASSERT_EQ(items.size(), 2u);
    EXPECT_EQ(items[0].first, 0u);
    EXPECT_LT(items[0].x0, 0);
    EXPECT_EQ(items[1].first, 1u);
}

TEST(LaneIndex, GapsSplitFoldsAndAWideEventEndsOne) {
    LaneIndex lane;
    for (int i = 0; i < 100; ++i)
        lane.add(i * 10, i * 10 + 5, 0);  // dense burst
    lane.add(100'000, 400'000, 1);        // wide
    for (int i = 0; i < 100; ++i)
        lane.add(900'000 + i * 10, 900'000 + i * 10 + 5, 0);
    TimeAxis a;
    a.widthPx = 1000;
    a.fit(0, 1'000'000);  // 1 µs per pixel
    auto items = buildDrawList(lane, a);
    ASSERT_EQ(items.size(), 3u);
    EXPECT_EQ(items[0].count, 100u);
    EXPECT_EQ(items[1].count, 1u);
    EXPECT_FALSE(items[1].folded());
    EXPECT_EQ(items[2].count, 100u);
}

TEST(LaneIndex, HitTestFindsEventUnderCursor) {
    auto lane = regular(10, 100, 50);
    TimeAxis a;
    a.widthPx = 1000;
    a.fit(0, 1000);
    EXPECT_EQ(hitTest(lane, a, 325), 3);
    EXPECT_EQ(hitTest(lane, a, 351), 3);   // within slack
    EXPECT_EQ(hitTest(lane, a, 375), -1);  // in a gap
    EXPECT_LT(lane.bytesResident() / lane.size(), 40u);
}

}  // namespace
}  // namespace ws::lod
