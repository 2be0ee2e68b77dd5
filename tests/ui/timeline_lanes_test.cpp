// Hiding lanes in the timeline: rows, hit-testing, the filter text, search
// matches in hidden lanes, what a reload keeps, and the toolbar's Lanes menu.
#include <gtest/gtest.h>

#include <QAction>
#include <QLineEdit>
#include <QSignalSpy>

#include "timeline/lane_menu.h"
#include "timeline/timeline_toolbar.h"
#include "timeline/timeline_view.h"
#include "timeline_test_data.h"

namespace ws::ui {
namespace {

using testing::smallTimeline;

TEST(TimelineLanes, HidingALaneRemovesItsRowAndLaneAtMapsBelowIt) {
    TimelineView view;
    view.resize(1200, 400);
    view.setData(smallTimeline());
    ASSERT_EQ(view.visibleLaneCount(), 4);
    const int top1 = *view.laneTop(1);
    EXPECT_EQ(top1, *view.laneTop(0) + TimelineView::kLaneHeight);
    EXPECT_EQ(view.laneAt(top1 + 5), 1);
    // The ruler, token and counter rows are no lane.
    EXPECT_EQ(view.laneAt(TimelineView::kRulerHeight + TimelineView::kTokenHeight + 5), -1);

    QSignalSpy changed(&view, &TimelineView::laneVisibilityChanged);
    view.setLaneHidden(1, true);
    EXPECT_EQ(changed.count(), 1);
    EXPECT_TRUE(view.laneHidden(1));
    EXPECT_FALSE(view.laneVisible(1));
    EXPECT_EQ(view.visibleLaneCount(), 3);
    EXPECT_FALSE(view.laneTop(1).has_value());
    // The lanes below move up by one row: lane 2 where lane 1 was.
    EXPECT_EQ(*view.laneTop(2), top1);
    EXPECT_EQ(view.laneAt(top1 + 5), 2);
    EXPECT_EQ(view.laneAt(top1 + TimelineView::kLaneHeight + 5), 3);
    EXPECT_EQ(view.laneAt(top1 + 2 * TimelineView::kLaneHeight + 5), -1);  // below the last
    view.setLaneHidden(1, true);                                           // no change, no signal
    EXPECT_EQ(changed.count(), 1);
    EXPECT_FALSE(view.grab().isNull());

    // The same run reloaded keeps it hidden; another run shows every lane.
    view.setData(smallTimeline(1));
    EXPECT_TRUE(view.laneHidden(1));
    EXPECT_EQ(view.laneAt(top1 + 5), 2);
    view.setData(smallTimeline(2));
    EXPECT_FALSE(view.laneHidden(1));
    EXPECT_EQ(view.laneAt(top1 + 5), 1);
}

TEST(TimelineLanes, FilterTextKeepsLanesWhoseTitleOrGroupContainIt) {
    TimelineView view;
    view.resize(1200, 400);
    view.setData(smallTimeline());
    view.setLaneFilter("stream");
    EXPECT_TRUE(view.laneVisible(0));
    EXPECT_TRUE(view.laneVisible(1));
    EXPECT_FALSE(view.laneVisible(2));
    EXPECT_FALSE(view.laneVisible(3));
    EXPECT_FALSE(view.laneHidden(2));  // filtered out, not hidden by the user
    EXPECT_EQ(view.laneAt(*view.laneTop(1) + TimelineView::kLaneHeight + 5), -1);
    view.setLaneFilter("THREAD 1");  // the group, in any case
    EXPECT_FALSE(view.laneVisible(0));
    EXPECT_EQ(view.laneAt(*view.laneTop(0 + 2) + 5), 2);
    EXPECT_EQ(*view.laneTop(2), *view.laneTop(3) - TimelineView::kLaneHeight);
    EXPECT_EQ(view.visibleLaneCount(), 2);
    view.setLaneFilter("13");
    EXPECT_EQ(view.visibleLaneCount(), 1);
    EXPECT_TRUE(view.laneVisible(1));
    // The filter stays for another run; showAllLanes clears it and the hidden lanes.
    view.setData(smallTimeline(2));
    EXPECT_EQ(view.visibleLaneCount(), 1);
    view.setLaneHidden(1, true);
    EXPECT_EQ(view.visibleLaneCount(), 0);
    view.showAllLanes();
    EXPECT_EQ(view.visibleLaneCount(), 4);
    EXPECT_TRUE(view.laneFilter().isEmpty());
}

TEST(TimelineLanes, FindNextSkipsMatchesInHiddenLanes) {
    TimelineView view;
    view.resize(1200, 400);
    view.setData(smallTimeline());
    ASSERT_EQ(view.setSearch("gemv"), 5u);
    auto visit = [&] {
        std::vector<std::pair<int, std::int64_t>> seen;  // lane, µs after the start
        while (view.findNext()) {
            auto s = view.selection();
            seen.emplace_back(s.lane,
                              (view.data()->lanes[static_cast<std::size_t>(s.lane)].events.start(
                                   static_cast<std::size_t>(s.event)) -
                               testing::kTimelineBeginNs) /
                                  1000);
            if (seen.size() > 10) break;
        }
        return seen;
    };
    // Both kernels starting at 300 µs are visited, stream 7's first.
    std::vector<std::pair<int, std::int64_t>> all{{0, 100}, {1, 150}, {0, 300}, {1, 300}, {0, 500}};
    EXPECT_EQ(visit(), all);
    view.setData(smallTimeline());  // no selection
    view.setSearch("gemv");
    view.setLaneHidden(1, true);
    EXPECT_EQ(view.searchMatchCount(), 3u);
    std::vector<std::pair<int, std::int64_t>> shown{{0, 100}, {0, 300}, {0, 500}};
    EXPECT_EQ(visit(), shown);
    // Backwards from the last (500 µs): stream 7's at 300 µs, not stream 13's.
    ASSERT_TRUE(view.findNext(true));
    EXPECT_EQ(view.selection().lane, 0);
    EXPECT_EQ(view.selection().event, 2);
}

TEST(TimelineLanes, ToolbarLanesMenuHidesAndFilters) {
    TimelineView view;
    view.resize(800, 400);
    TimelineToolbar toolbar;
    toolbar.setTimelineView(&view);
    view.setData(smallTimeline());
    LaneMenu* menu = toolbar.laneMenu();
    ASSERT_TRUE(menu->laneAction(3));
    EXPECT_TRUE(menu->laneAction(3)->isChecked());
    EXPECT_TRUE(menu->laneAction(3)->text().contains("CUDA API"));
    menu->laneAction(3)->trigger();  // unchecks: hides the lane
    EXPECT_TRUE(view.laneHidden(3));
    EXPECT_FALSE(menu->laneAction(3)->isChecked());
    EXPECT_TRUE(menu->showAllAction()->isEnabled());
    menu->filterField()->setText("stream");
    EXPECT_EQ(view.laneFilter(), "stream");
    EXPECT_EQ(view.visibleLaneCount(), 2);
    EXPECT_FALSE(menu->laneAction(2)->isVisible());  // the list narrows as well
    view.setLaneHidden(0, true);                     // from elsewhere: the menu follows
    EXPECT_FALSE(menu->laneAction(0)->isChecked());
    menu->showAllAction()->trigger();
    EXPECT_EQ(view.visibleLaneCount(), 4);
    EXPECT_TRUE(menu->laneAction(0)->isChecked());
    EXPECT_TRUE(menu->filterField()->text().isEmpty());
    // Another run's lanes: the menu has theirs.
    view.setData(smallTimeline(2, 3));
    EXPECT_TRUE(menu->laneAction(4));
}

}  // namespace
}  // namespace ws::ui
