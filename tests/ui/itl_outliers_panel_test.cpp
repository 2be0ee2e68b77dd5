// The ITL outliers dock on a served run (support/served_run.h): the slowest
// ITL listed with what its steps held, and a double-click shows it on the
// timeline, of the run shown or of another one.
#include <gtest/gtest.h>

#include <QSignalSpy>
#include <QTableView>
#include <filesystem>

#include "charts/charts_panel.h"
#include "charts/latency_chart.h"
#include "charts/request_timeline_chart.h"
#include "main_window.h"
#include "serving/itl_outliers_panel.h"
#include "support/fixture_store.h"
#include "support/served_run.h"
#include "support/temp_dir.h"
#include "timeline/timeline_view.h"
#include "viewmodels/itl_outlier_model.h"

namespace ws::ui {
namespace {

bool waitFor(QSignalSpy& spy, int timeoutMs = 10000) {
    return spy.count() > 0 || spy.wait(timeoutMs);
}

// The fixture store and the served run, open in a window at 1366×768.
class ServedRunWindow : public ::testing::Test {
  protected:
    void SetUp() override {
        db = dir.file("served.wsdb");
        std::filesystem::copy_file(testing::dataFile("fixture.wsdb"), db);
        served = testing::writeServedRun(db);
        window.resize(1366, 768);
        QSignalSpy loaded(&window, &MainWindow::storeLoaded);
        window.openStore(QString::fromStdString(db));
        ASSERT_TRUE(waitFor(loaded));
    }
    testing::TempDir dir;
    std::string db;
    RunId served = 0;
    MainWindow window;
};

TEST_F(ServedRunWindow, OutliersPanelListsTheSlowestItlAndShowsItOnTheTimeline) {
    QSignalSpy details(&window, &MainWindow::detailsShown);
    window.selectRun(1);  // a decoder run: no engine steps
    ASSERT_TRUE(waitFor(details));
    auto* panel = window.outliers();
    EXPECT_EQ(panel->model()->rowCount(), 0);
    EXPECT_TRUE(panel->summaryText().contains("holds no engine steps"))
        << panel->summaryText().toStdString();

    details.clear();
    QSignalSpy timelineShown(&window, &MainWindow::timelineShown);
    window.selectRun(served);
    ASSERT_TRUE(waitFor(details));
    ASSERT_EQ(details.last().at(0).toLongLong(), served);
    ASSERT_EQ(panel->model()->rowCount(), 1);
    const auto& o = panel->model()->interval(0);
    EXPECT_EQ(o.tokenIndex, testing::kServedPrefillStep);
    EXPECT_EQ(o.prefillTokens, 512);
    auto* view = panel->view();
    auto cell = [&](int column) {
        return view->model()->index(0, column).data().toString().toStdString();
    };
    EXPECT_EQ(cell(ItlOutlierModel::ItlMs), "9.000");
    EXPECT_EQ(cell(ItlOutlierModel::VsMedian), "9.0×");
    EXPECT_EQ(cell(ItlOutlierModel::Prefill), "99 %");
    EXPECT_TRUE(panel->summaryText().contains("19 ITLs over 20 engine steps"))
        << panel->summaryText().toStdString();

    // Its timeline is loading (the run was selected): the interval is shown
    // once it is there, with half its length of context either side.
    QSignalSpy shown(&window, &MainWindow::intervalShown);
    panel->activateRow(0);
    ASSERT_TRUE(waitFor(shown));
    EXPECT_EQ(shown.last().at(0).toLongLong(), o.startNs);
    ASSERT_NE(window.timeline()->data(), nullptr);
    EXPECT_EQ(window.timeline()->data()->run, served);
    const auto& axis = window.timeline()->axis();
    EXPECT_NEAR(static_cast<double>(axis.toTime(0)), o.startNs - 4'500'000.0, 1e5);
    ASSERT_TRUE(window.timeline()->markedInterval());
    EXPECT_EQ(window.timeline()->markedInterval()->second, o.endNs);
    EXPECT_EQ(panel->view()->selectionModel()->selectedRows().size(), 1);

    // From another run's timeline: the served run's is loaded first.
    window.findInTimeline(1, QStringLiteral("gemv"));
    timelineShown.clear();
    ASSERT_TRUE(waitFor(timelineShown));
    ASSERT_EQ(window.timeline()->data()->run, 1);
    shown.clear();
    panel->activateRow(0);
    ASSERT_TRUE(waitFor(shown));
    EXPECT_EQ(window.timeline()->data()->run, served);
}

// The Requests chart tab of the same run: a row per request, its 9 ms ITL a
// red tick; clicking it shows that gap on the timeline.
TEST_F(ServedRunWindow, RequestsChartColoursTicksByTheirGapAndClicksToTheTimeline) {
    QSignalSpy charts(&window, &MainWindow::chartsShown);
    window.selectRun(served);
    ASSERT_TRUE(waitFor(charts));
    auto* chart = window.charts()->requestChart();
    ASSERT_EQ(chart->run(), served);
    EXPECT_EQ(chart->tickCount(0), 19);  // the first token and 18 gaps of 1 ms
    EXPECT_EQ(chart->tickCount(1), 0);
    EXPECT_EQ(chart->tickCount(2), 1);  // the 9 ms gap over the prefill step
    QSignalSpy shown(&window, &MainWindow::intervalShown);
    chart->clickToken(0, testing::kServedPrefillStep);
    ASSERT_TRUE(waitFor(shown));
    const auto begin = shown.last().at(0).toLongLong(), end = shown.last().at(1).toLongLong();
    EXPECT_EQ(end - begin, 9'000'000);
    EXPECT_FALSE(chart->grab().isNull());
}

// A request's point in the latency chart shows that request on the timeline:
// arrival to last token, named in the toolbar.
TEST_F(ServedRunWindow, ALatencyPointShowsItsRequestOnTheTimeline) {
    QSignalSpy charts(&window, &MainWindow::chartsShown);
    window.selectRun(served);
    ASSERT_TRUE(waitFor(charts));
    auto* chart = window.charts()->latencyChart();
    QSignalSpy shown(&window, &MainWindow::intervalShown);
    ASSERT_TRUE(chart->clickPoint(0, 0, 0));  // the TTFT point of the one request
    ASSERT_TRUE(waitFor(shown));
    const auto& request = window.charts()->runs().front().latency.requests.front();
    EXPECT_EQ(shown.last().at(0).toLongLong(), request.startNs);
    EXPECT_EQ(shown.last().at(1).toLongLong(),
              request.startNs + static_cast<std::int64_t>(request.e2elMs * 1e6));
    EXPECT_EQ(window.timeline()->markedInterval()->first, request.startNs);
    EXPECT_FALSE(chart->clickPoint(0, 0, 1));  // one request, one point
    EXPECT_FALSE(chart->clickPoint(0, 1, 0));  // one run
}

}  // namespace
}  // namespace ws::ui
