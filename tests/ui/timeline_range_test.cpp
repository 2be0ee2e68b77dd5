// Selecting a time range on the timeline with Shift+drag: the signal and its
// times, Esc and a plain click clearing it, the ITL band left alone, and
// right-drag still zooming.
#include <gtest/gtest.h>

#include <QSignalSpy>
#include <QTest>

#include "timeline/range_selection.h"
#include "timeline/timeline_view.h"
#include "timeline_test_data.h"

namespace ws::ui {
namespace {

using testing::smallTimeline;

void shiftDrag(TimelineView& view, int x0, int x1, int y) {
    QTest::mousePress(&view, Qt::LeftButton, Qt::ShiftModifier, QPoint(x0, y));
    QTest::mouseMove(&view, QPoint((x0 + x1) / 2, y));
    QTest::mouseMove(&view, QPoint(x1, y));
    QTest::mouseRelease(&view, Qt::LeftButton, Qt::ShiftModifier, QPoint(x1, y));
}

TEST(TimelineRange, ShiftDragSelectsARangeAndEscClearsIt) {
    TimelineView view;
    view.resize(1200, 400);
    view.setData(smallTimeline());
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    QSignalSpy selected(&view, &TimelineView::rangeSelected);
    QSignalSpy cleared(&view, &TimelineView::rangeCleared);
    const auto before = view.axis();
    const int y = *view.laneTop(0) + 5, x0 = 400, x1 = 700, h = TimelineView::kHeaderWidth;
    const std::int64_t t0 = view.axis().toTime(x0 - h), t1 = view.axis().toTime(x1 - h);
    shiftDrag(view, x0, x1, y);
    ASSERT_EQ(selected.count(), 1);
    EXPECT_EQ(selected.last().at(0).toLongLong(), t0);
    EXPECT_EQ(selected.last().at(1).toLongLong(), t1);
    ASSERT_TRUE(view.selectedRange());
    EXPECT_EQ(*view.selectedRange(), (std::pair{t0, t1}));
    // Neither panned nor zoomed.
    EXPECT_EQ(view.axis().originNs, before.originNs);
    EXPECT_DOUBLE_EQ(view.axis().nsPerPx, before.nsPerPx);
    // The band and its length on the ruler paint (a violet label there).
    QImage image = view.grab().toImage();
    EXPECT_EQ(image.pixelColor((x0 + x1) / 2, 4), QColor(0x5e, 0x35, 0xb1));

    // Right to left gives begin < end as well.
    shiftDrag(view, x1, x0, y);
    ASSERT_EQ(selected.count(), 2);
    EXPECT_EQ(selected.last().at(0).toLongLong(), t0);
    EXPECT_EQ(selected.last().at(1).toLongLong(), t1);

    // The ITL band is another thing: marking or unmarking it keeps the range.
    view.markInterval(std::pair{t0 + 10, t0 + 20});
    view.markInterval(std::nullopt);
    EXPECT_TRUE(view.selectedRange());
    EXPECT_EQ(cleared.count(), 0);

    QTest::keyClick(&view, Qt::Key_Escape);
    EXPECT_EQ(cleared.count(), 1);
    EXPECT_FALSE(view.selectedRange());
    QTest::keyClick(&view, Qt::Key_Escape);  // nothing left to clear
    EXPECT_EQ(cleared.count(), 1);
}

TEST(TimelineRange, PlainClickOnEmptySpaceOrAnotherRunClearsIt) {
    TimelineView view;
    view.resize(1200, 400);
    view.setData(smallTimeline());
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    QSignalSpy cleared(&view, &TimelineView::rangeCleared);
    view.selectRange(testing::kTimelineBeginNs, testing::kTimelineBeginNs + 50'000);
    // A click on an event selects it and keeps the range.
    const auto& ev = view.data()->lanes[2].events;  // the NVTX range, 90 to 600 µs
    int onRange = TimelineView::kHeaderWidth +
                  static_cast<int>(view.axis().toPx((ev.start(0) + ev.end(0)) / 2));
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(onRange, *view.laneTop(2) + 5));
    EXPECT_EQ(view.selection().lane, 2);
    EXPECT_TRUE(view.selectedRange());
    // A click where there is no event clears it.
    int empty = TimelineView::kHeaderWidth + 3;  // before the first event
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(empty, *view.laneTop(2) + 5));
    EXPECT_EQ(cleared.count(), 1);
    EXPECT_FALSE(view.selectedRange());
    // The same run reloaded keeps a range; another run's data clears it.
    view.selectRange(testing::kTimelineBeginNs, testing::kTimelineBeginNs + 50'000);
    view.setData(smallTimeline(1));
    EXPECT_TRUE(view.selectedRange());
    view.setData(smallTimeline(2));
    EXPECT_FALSE(view.selectedRange());
    EXPECT_EQ(cleared.count(), 2);
}

TEST(TimelineRange, RightDragStillZoomsAndSelectsNoRange) {
    TimelineView view;
    view.resize(1200, 400);
    view.setData(smallTimeline());
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    QSignalSpy selected(&view, &TimelineView::rangeSelected);
    const int y = *view.laneTop(0) + 5, h = TimelineView::kHeaderWidth;
    const std::int64_t t0 = view.axis().toTime(400 - h), t1 = view.axis().toTime(600 - h);
    QTest::mousePress(&view, Qt::RightButton, {}, QPoint(400, y));
    QTest::mouseMove(&view, QPoint(600, y));
    QTest::mouseRelease(&view, Qt::RightButton, {}, QPoint(600, y));
    EXPECT_EQ(selected.count(), 0);
    EXPECT_NEAR(static_cast<double>(view.axis().originNs), static_cast<double>(t0), 2);
    EXPECT_NEAR(static_cast<double>(view.axis().endNs()), static_cast<double>(t1), 200);
}

TEST(TimelineRange, LengthLabels) {
    EXPECT_EQ(rangeLengthLabel(1'234'000), "1.234 ms");
    EXPECT_EQ(rangeLengthLabel(999), "999 ns");
    EXPECT_EQ(rangeLengthLabel(12'500), "12.50 µs");
    EXPECT_EQ(rangeLengthLabel(300'000), "300.0 µs");
    EXPECT_EQ(rangeLengthLabel(2'000'000'000), "2.000 s");
}

}  // namespace
}  // namespace ws::ui
