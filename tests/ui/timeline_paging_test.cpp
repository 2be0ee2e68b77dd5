// A run above the timeline's event budget opens as its overview and loads
// single events for the part the view zooms into.
#include <gtest/gtest.h>

#include <QSignalSpy>
#include <QTableView>

#include "analysis/event_search.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "support/temp_dir.h"
#include "timeline/search_matches_list.h"
#include "timeline/timeline_view.h"
#include "viewmodels/timeline_data.h"

namespace ws::ui {
namespace {

constexpr std::int64_t kT0 = 1'000'000'000;
constexpr int kKernels = 4000;  // per stream, one every 2 µs

// Two streams of 1 µs kernels every 2 µs, each launched by an API call on
// thread 9, and one NVTX range over everything; written in batches of 500,
// so each lane has several chunks.
RunId writeRun(Store& store) {
    RunId run = store.beginRun({});
    StoreWriter w(store, run, 500);
    RangeRecord r;
    r.startNs = kT0;
    r.endNs = kT0 + 2'000 * kKernels + 1'000;
    r.threadId = 9;
    r.name = "serve";
    w.add(r);
    std::uint32_t correlation = 1;
    for (int i = 0; i < kKernels; ++i)
        for (std::uint32_t stream : {3u, 4u}) {
            ApiCallRecord a;
            a.startNs = kT0 + 2'000 * i - 500 + stream;
            a.endNs = a.startNs + 200;
            a.threadId = 9;
            a.correlationId = correlation;
            a.name = "cudaLaunchKernel";
            w.add(a);
            KernelRecord k;
            k.startNs = kT0 + 2'000 * i;
            k.endNs = k.startNs + 1'000;
            k.streamId = stream;
            k.correlationId = correlation++;
            k.name = i % 2 ? "gemv" : "rmsnorm";
            w.add(k);
        }
    return run;
}

TimelineLoadOptions budget(std::size_t events) {
    TimelineLoadOptions o;
    o.residentEvents = events;
    return o;
}

TEST(TimelinePaging, ARunAboveTheBudgetOpensAsItsOverviewWithTheSameLanes) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    const RunId run = writeRun(store);
    auto whole = loadTimeline(store, run);
    auto paged = loadTimeline(store, run, {}, budget(1000));
    ASSERT_TRUE(whole && paged);
    EXPECT_FALSE(whole->paged);
    ASSERT_TRUE(paged->paged);
    EXPECT_FALSE(paged->detail);
    ASSERT_EQ(paged->lanes.size(), whole->lanes.size());
    for (std::size_t l = 0; l < whole->lanes.size(); ++l) {
        const auto& a = whole->lanes[l];
        const auto& b = paged->lanes[l];
        EXPECT_EQ(a.title, b.title);
        EXPECT_EQ(a.group, b.group);
        EXPECT_EQ(laneEventCount(a), laneEventCount(b)) << a.title.toStdString();
        if (a.kind == LaneKind::Ranges) {
            EXPECT_FALSE(b.overview);  // ranges are always whole
            EXPECT_EQ(b.events.size(), 1u);
        } else {
            ASSERT_TRUE(b.overview);
            EXPECT_EQ(b.events.size(), 0u);
            EXPECT_GT(b.overview->size(), 1u);
        }
    }
    EXPECT_EQ(paged->eventCount, whole->eventCount);
    EXPECT_EQ(paged->beginNs, whole->beginNs);
    EXPECT_EQ(paged->endNs, whole->endNs);
}

TEST(TimelinePaging, AWindowHoldsTheSameEventsAsTheWholeLoadThere) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    const RunId run = writeRun(store);
    auto whole = loadTimeline(store, run);
    auto paged = loadTimeline(store, run, {}, budget(1000));
    const std::int64_t a = kT0 + 1'000'000, b = kT0 + 1'100'000;  // kernels 500..549
    auto detail = loadTimelineDetail(store, *paged, a, b);
    ASSERT_TRUE(detail);
    ASSERT_TRUE(detail->detail);
    EXPECT_EQ(*detail->detail, std::make_pair(a, b));
    EXPECT_TRUE(detailCovers(*detail, a + 10, b - 10));
    EXPECT_FALSE(detailCovers(*detail, a - 10, b));
    for (std::size_t l = 0; l < whole->lanes.size(); ++l) {
        const auto& w = whole->lanes[l].events;
        const auto& d = detail->lanes[l].events;
        std::vector<std::pair<std::int64_t, std::string>> expected, got;
        for (std::size_t i = 0; i < w.size(); ++i)
            if (w.start(i) < b && w.end(i) > a)
                expected.emplace_back(w.start(i), whole->labels[w.label(i)]);
        for (std::size_t i = 0; i < d.size(); ++i)
            got.emplace_back(d.start(i), detail->labels[d.label(i)]);
        EXPECT_EQ(got, expected) << whole->lanes[l].title.toStdString();
    }
    // A kernel of the window finds its launch call there (one at its very
    // start was launched before it: that call is not loaded).
    auto [callLane, call] = launchingCall(*detail, 0, 5);
    EXPECT_GE(callLane, 0);
    EXPECT_GE(call, 0);
}

TEST(TimelinePaging, TheWindowToLoadStaysWithinTheBudget) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    const RunId run = writeRun(store);
    auto paged = loadTimeline(store, run, {}, budget(1000));
    // The whole run holds 16,000 GPU and API events: too many for 5,000.
    EXPECT_FALSE(detailWindowFor(*paged, paged->beginNs, paged->endNs, 5000));
    EXPECT_GE(overviewEventsIn(*paged, paged->beginNs, paged->endNs), 16'000u);
    // 100 µs in view: widened for panning, never over the budget.
    const std::int64_t a = kT0 + 4'000'000, b = a + 100'000;
    auto window = detailWindowFor(*paged, a, b, 5000);
    ASSERT_TRUE(window);
    EXPECT_LT(window->first, a);
    EXPECT_GT(window->second, b);
    EXPECT_LE(overviewEventsIn(*paged, window->first, window->second), 5000u);
}

TEST(TimelinePaging, TheViewAsksForTheEventsOfWhatItZoomsInto) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    const RunId run = writeRun(store);
    auto paged = loadTimeline(store, run, {}, budget(1000));
    TimelineView view;
    view.resize(1200, 400);
    view.setDetailBudget(5000);
    QSignalSpy wanted(&view, &TimelineView::detailWanted);
    view.setData(paged);
    view.setLaneHidden(1, true);
    EXPECT_EQ(view.setSearch(QStringLiteral("gemv")), 0u);  // nothing loaded yet
    (void)view.grab();  // paints the overview; the whole run is over budget
    EXPECT_FALSE(view.showsSingleEvents());
    EXPECT_FALSE(wanted.wait(400));

    const std::int64_t a = kT0 + 4'000'000, b = a + 100'000;
    view.zoomTo(a, b);
    (void)view.grab();
    ASSERT_TRUE(wanted.wait(2000));
    auto begin = wanted.last().at(0).value<std::int64_t>();
    auto end = wanted.last().at(1).value<std::int64_t>();
    EXPECT_LE(begin, a);
    EXPECT_GE(end, b);
    view.setDetail(loadTimelineDetail(store, *paged, begin, end));
    EXPECT_TRUE(view.showsSingleEvents());
    EXPECT_TRUE(view.laneHidden(1));         // kept across windows
    EXPECT_GT(view.searchMatchCount(), 0u);  // the search runs on the window's events

    // The selected kernel follows into the next window.
    view.selectEvent(0, 10);
    const auto* data = view.data();
    const std::int64_t selectedStart = data->lanes[0].events.start(10);
    view.setDetail(loadTimelineDetail(store, *paged, begin - 50'000, end));
    ASSERT_GE(view.selection().event, 0);
    EXPECT_EQ(view.data()->lanes[0].events.start(static_cast<std::size_t>(view.selection().event)),
              selectedStart);
    // Another run's window is not taken.
    auto other = std::make_shared<TimelineData>(*view.data());
    other->run = run + 1;
    view.setDetail(other);
    EXPECT_EQ(view.data()->run, run);
}

// A paged view holds one window, so Find Results lists the matches of the
// whole run; activating one outside the window zooms there, loads it and
// selects that event.
TEST(TimelinePaging, AWholeRunMatchIsRevealedAndSelectedOnceItsWindowLoads) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    const RunId run = writeRun(store);
    auto paged = loadTimeline(store, run, {}, budget(1000));
    TimelineView view;
    view.resize(1200, 400);
    view.setDetailBudget(5000);
    view.setData(paged);

    auto found = searchRunEvents(store, run, "GEMV", 100);
    EXPECT_EQ(found.total, kKernels);  // every other kernel, on two streams
    SearchMatchesList list;
    list.setSearching(QStringLiteral("GEMV"), 0.42);
    EXPECT_TRUE(list.showsRunMatches());
    EXPECT_NE(list.caption().indexOf(QStringLiteral("42 %")), -1) << list.caption().toStdString();
    list.setRunMatches(*paged, found, QStringLiteral("GEMV"));
    EXPECT_EQ(list.caption(),
              QStringLiteral("first 100 of 4,000 matches of 'GEMV' in the whole run"));
    ASSERT_EQ(list.table()->model()->rowCount(), 100);

    QObject::connect(&list, &SearchMatchesList::runMatchActivated, &view,
                     &TimelineView::revealEvent);
    QSignalSpy wanted(&view, &TimelineView::detailWanted);
    // Rows sort by start: row 60 is match 60.
    const EventMatch& m = found.first[60];
    list.table()->activated(list.table()->model()->index(60, 0));
    ASSERT_EQ(wanted.count(), 1);
    EXPECT_LT(view.selection().event, 0);  // not loaded yet
    const auto begin = wanted.last().at(0).value<std::int64_t>();
    const auto end = wanted.last().at(1).value<std::int64_t>();
    EXPECT_LE(begin, m.startNs);
    EXPECT_GT(end, m.startNs);
    view.setDetail(loadTimelineDetail(store, *paged, begin, end));
    const auto sel = view.selection();
    ASSERT_GE(sel.lane, 0);
    ASSERT_GE(sel.event, 0);
    const auto& lane = view.data()->lanes[static_cast<std::size_t>(sel.lane)];
    EXPECT_EQ(lane.laneId, m.laneId);
    EXPECT_EQ(lane.events.start(static_cast<std::size_t>(sel.event)), m.startNs);
    EXPECT_EQ(view.data()->labels[lane.events.label(static_cast<std::size_t>(sel.event))], "gemv");
}

}  // namespace
}  // namespace ws::ui
