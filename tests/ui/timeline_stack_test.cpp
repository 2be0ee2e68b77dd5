#include "viewmodels/timeline_stack.h"

#include <gtest/gtest.h>

namespace ws::ui {
namespace {

// A run with one kernel lane and one NVTX lane holding "prefill" then
// "decode step 0" starting at `decodeAt`.
TimelineData run(RunId id, std::int64_t begin, std::int64_t decodeAt) {
    TimelineData d;
    d.run = id;
    d.labels = {"gemv", "prefill", "decode step 0"};
    TimelineLane kernels;
    kernels.title = "Stream 7";
    kernels.group = "GPU 0";
    kernels.kind = LaneKind::Kernels;
    kernels.laneId = 7;
    kernels.events.add(decodeAt + 10, decodeAt + 20, 0);
    TimelineLane ranges;
    ranges.title = "NVTX 0";
    ranges.group = "Thread 1";
    ranges.kind = LaneKind::Ranges;
    ranges.events.add(begin, decodeAt, 1);
    ranges.events.add(decodeAt, decodeAt + 100, 2);
    d.lanes = {kernels, ranges};
    d.tokenTimes = {decodeAt + 100};
    d.counters = {CounterTrack{"Power (W)", {begin}, {300}, 300}};
    d.beginNs = begin;
    d.endNs = decodeAt + 100;
    d.eventCount = 3;
    d.firstRecordNs = begin;
    return d;
}

TEST(TimelineStack, SecondRunAlignsAtTheNamedRange) {
    auto a = run(1, 0, 5'000);
    auto b = run(2, 1'000'000, 1'009'000);  // its decode starts 1,004,000 ns later
    auto s = stackTimelines(a, b, "decode step");
    ASSERT_TRUE(s.aligned);
    EXPECT_EQ(s.shiftNs, 5'000 - 1'009'000);
    const auto& d = *s.data;
    EXPECT_EQ(d.run, 1);
    // A span selected on the stacked view counts from the first run's start.
    EXPECT_EQ(d.firstRecordNs, 0);
    auto reversed = stackTimelines(b, a, "decode step");
    EXPECT_EQ(reversed.data->firstRecordNs, 1'000'000);
    ASSERT_EQ(d.lanes.size(), 4u);
    EXPECT_EQ(d.lanes[0].title, "#1 Stream 7");
    EXPECT_EQ(d.lanes[2].title, "#2 Stream 7");
    EXPECT_EQ(d.lanes[2].run, 2);
    EXPECT_EQ(d.lanes[2].shiftNs, s.shiftNs);
    // The kernels 10 ns into each decode step now start together.
    EXPECT_EQ(d.lanes[0].events.start(0), d.lanes[2].events.start(0));
    EXPECT_EQ(d.labels[d.lanes[3].events.label(1)], "decode step 0");
    EXPECT_EQ(d.tokenTimes.size(), 2u);
    EXPECT_EQ(d.counters[1].title, "#2 Power (W)");
    EXPECT_EQ(d.eventCount, 6u);
    EXPECT_LE(d.beginNs, d.lanes[3].events.start(0));
    EXPECT_TRUE(s.note.contains("aligned at the first range named 'decode step'"));
}

TEST(TimelineStack, WithoutTheRangeInBothTheStartsAlign) {
    auto a = run(1, 0, 5'000);
    auto b = run(2, 1'000'000, 1'009'000);
    auto s = stackTimelines(a, b, "no such range");
    EXPECT_FALSE(s.aligned);
    EXPECT_EQ(s.shiftNs, -1'000'000);
    EXPECT_EQ(s.data->lanes[3].events.start(0), 0);
    EXPECT_TRUE(s.note.contains("aligned at their starts"));
}

}  // namespace
}  // namespace ws::ui
