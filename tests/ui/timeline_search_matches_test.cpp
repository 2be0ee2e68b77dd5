// The events list of a timeline search: matches in time order, bounded, and
// the SearchMatchesList's caption, sorting and row activation.
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QLocale>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

#include "timeline/search_matches_list.h"
#include "timeline/search_matches_model.h"
#include "timeline/timeline_view.h"
#include "timeline_test_data.h"

namespace ws::ui {
namespace {

using testing::smallTimeline;

TEST(TimelineSearchMatches, InTimeOrderInTheLanesShownUpToTheLimit) {
    TimelineView view;
    view.resize(1200, 400);
    view.setData(smallTimeline());
    EXPECT_TRUE(view.searchMatches(10).empty());  // no search yet
    QSignalSpy changed(&view, &TimelineView::searchMatchesChanged);
    view.setSearch("gemv");
    EXPECT_EQ(changed.count(), 1);
    using M = std::vector<std::pair<int, long>>;
    EXPECT_EQ(view.searchMatches(100), (M{{0, 0}, {1, 0}, {0, 2}, {1, 1}, {0, 3}}));
    EXPECT_EQ(view.searchMatches(2), (M{{0, 0}, {1, 0}}));
    view.setLaneHidden(0, true);
    EXPECT_EQ(changed.count(), 2);
    EXPECT_EQ(view.searchMatches(100), (M{{1, 0}, {1, 1}}));
    // Many lanes' worth: still ordered by start.
    view.setData(smallTimeline(2, 500));
    view.setSearch("gemv");
    auto all = view.searchMatches(1'000);
    ASSERT_EQ(all.size(), 505u);
    const auto& lanes = view.data()->lanes;
    auto start = [&](std::pair<int, long> m) {
        return lanes[static_cast<std::size_t>(m.first)].events.start(
            static_cast<std::size_t>(m.second));
    };
    for (std::size_t i = 1; i < all.size(); ++i)
        EXPECT_LE(start(all[i - 1]), start(all[i]));
    EXPECT_EQ(view.searchMatches(7).size(), 7u);
}

TEST(TimelineSearchMatches, SelectEventCentresZoomsInAndEmits) {
    TimelineView view;
    view.resize(1200, 400);
    view.setData(smallTimeline());
    QSignalSpy selected(&view, &TimelineView::eventSelected);
    // The 10 ns kernel at 500 µs: far under a pixel at the fit.
    const auto& ev = view.data()->lanes[0].events;
    ASSERT_LT((ev.end(3) - ev.start(3)) / view.axis().nsPerPx, 1);
    view.selectEvent(0, 3);
    ASSERT_EQ(selected.count(), 1);
    EXPECT_EQ(selected.last().at(0).toInt(), 0);
    EXPECT_EQ(selected.last().at(1).toLongLong(), 3);
    EXPECT_EQ(view.selection().event, 3);
    const auto& a = view.axis();
    EXPECT_GE(a.toPx(ev.end(3)) - a.toPx(ev.start(3)), 4);  // zoomed in to a few pixels
    EXPECT_NEAR((a.toPx(ev.start(3)) + a.toPx(ev.end(3))) / 2, a.widthPx / 2.0, 2);
    // A wide event: centred, the zoom left alone.
    view.fitAll();
    const double nsPerPx = view.axis().nsPerPx;
    view.selectEvent(2, 0);
    EXPECT_DOUBLE_EQ(view.axis().nsPerPx, nsPerPx);
    view.selectEvent(0, 99);  // no such event: nothing
    EXPECT_EQ(selected.count(), 2);
}

TEST(TimelineSearchMatches, ListShowsTheCountAndARowClickActivatesItsMatch) {
    TimelineView view;
    view.resize(1200, 400);
    view.setData(smallTimeline());
    SearchMatchesList list;
    list.resize(700, 300);
    list.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&list));
    QAbstractItemModelTester tester(list.table()->model(),
                                    QAbstractItemModelTester::FailureReportingMode::Warning);
    EXPECT_TRUE(list.caption().contains("Search the timeline"));
    view.setSearch("gemv");
    list.setMatches(view);
    EXPECT_EQ(list.caption(), "5 matches of 'gemv'");
    auto* model = list.table()->model();
    ASSERT_EQ(model->rowCount(), 5);
    // Row 2 by start: stream 7's kernel at 300 µs.
    EXPECT_EQ(model->index(2, SearchMatchesModel::StartColumn).data().toString(), "0.300");
    EXPECT_EQ(model->index(2, SearchMatchesModel::LaneColumn).data().toString(),
              "GPU 0 · Stream 7");
    EXPECT_EQ(model->index(2, SearchMatchesModel::NameColumn).data().toString(), "gemv_bf16");
    QSignalSpy activated(&list, &SearchMatchesList::matchActivated);
    QRect cell = list.table()->visualRect(model->index(2, SearchMatchesModel::NameColumn));
    QTest::mouseClick(list.table()->viewport(), Qt::LeftButton, {}, cell.center());
    ASSERT_EQ(activated.count(), 1);
    EXPECT_EQ(activated.last().at(0).toInt(), 0);
    EXPECT_EQ(activated.last().at(1).toLongLong(), 2);
    // Sorted by duration, longest first: stream 13's 90 µs kernel.
    list.table()->sortByColumn(SearchMatchesModel::DurationColumn, Qt::DescendingOrder);
    EXPECT_EQ(model->index(0, 0).data(SearchMatchesModel::LaneRole).toInt(), 1);
    EXPECT_EQ(model->index(0, 0).data(SearchMatchesModel::EventRole).toLongLong(), 1);
    EXPECT_EQ(model->index(4, 0).data(SearchMatchesModel::EventRole).toLongLong(), 3);  // 10 ns
    // Activating wires to the view: the event is selected there.
    QObject::connect(&list, &SearchMatchesList::matchActivated, &view, &TimelineView::selectEvent);
    cell = list.table()->visualRect(model->index(0, 0));
    QTest::mouseClick(list.table()->viewport(), Qt::LeftButton, {}, cell.center());
    EXPECT_EQ(view.selection().lane, 1);
    EXPECT_EQ(view.selection().event, 1);
    view.setSearch("nothing like it");
    list.setMatches(view);
    EXPECT_EQ(model->rowCount(), 0);
    EXPECT_TRUE(list.caption().startsWith("No matches of 'nothing like it'"));
}

TEST(TimelineSearchMatches, ListIsBoundedAndSaysSo) {
    TimelineView view;
    view.resize(1200, 400);
    view.setData(smallTimeline(1, 10'050));
    view.setSearch("gemv");
    SearchMatchesList list;
    list.setMatches(view);
    EXPECT_EQ(list.table()->model()->rowCount(), 10'000);
    const QLocale locale;
    EXPECT_EQ(list.caption(), QStringLiteral("first %1 of %2 matches of 'gemv'")
                                  .arg(locale.toString(10'000), locale.toString(10'055)));
}

}  // namespace
}  // namespace ws::ui
