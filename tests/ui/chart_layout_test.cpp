// Readability of the charts at the window sizes users have (1366×768 and
// 1920×1080) with 1, 3 and 8 runs: laid out in the main window, each chart
// as its tab and in the dashboard, no two texts overlap, no text runs past
// the chart's edge and no legend covers data or another chart's text.
// Runs are synthetic, written through the store writer.
#include <gtest/gtest.h>

#include <QApplication>
#include <map>

#include "analysis/run_analysis.h"
#include "charts/charts_panel.h"
#include "charts/comparison_chart.h"
#include "charts/dashboard_view.h"
#include "charts/kernel_chart.h"
#include "charts/latency_chart.h"
#include "charts/occupancy_chart.h"
#include "charts/pareto_chart.h"
#include "charts/request_timeline_chart.h"
#include "charts/roofline_chart.h"
#include "charts/throughput_chart.h"
#include "charts/token_latency_chart.h"
#include "main_window.h"
#include "plot_layout_probe.h"
#include "store/store.h"
#include "support/temp_dir.h"
#include "synthetic_runs.h"
#include "synthetic_sweeps.h"

namespace ws::ui {
namespace {

const std::vector<RunAnalysis>& syntheticAnalyses(int count) {
    static std::map<int, std::vector<RunAnalysis>> cache;
    auto it = cache.find(count);
    if (it != cache.end()) return it->second;
    testing::TempDir dir;
    auto ids = testing::writeSyntheticRuns(dir.file("runs.wsdb"), count);
    Store store(dir.file("runs.wsdb"));
    return cache[count] = analyzeRuns(store, ids);
}

void expectReadable(QCustomPlot* chart, const std::string& where) {
    auto layout = testing::probeLayout(chart);
    EXPECT_GT(layout.texts.size(), 3u) << where << ": nothing drawn?";
    auto problems = testing::layoutProblems(layout);
    std::string list;
    for (std::size_t i = 0; i < problems.size() && i < 12; ++i)
        list += "\n  " + problems[i].toStdString();
    EXPECT_TRUE(problems.empty()) << where << " " << chart->width() << "x" << chart->height()
                                  << ": " << problems.size() << " problem(s)" << list;
}

using Case = std::tuple<QSize, int>;

class ChartLayout : public ::testing::TestWithParam<Case> {
  protected:
    void SetUp() override {
        auto [size, runs] = GetParam();
        window.resize(size);
        window.show();
        QApplication::processEvents();
        // Nothing in the window may ask for more room than the screen has.
        EXPECT_LE(window.width(), size.width());
        EXPECT_LE(window.height(), size.height());
        analyses = &syntheticAnalyses(runs);
        ASSERT_EQ(int(analyses->size()), runs);
        where = std::to_string(size.width()) + "x" + std::to_string(size.height()) + ", " +
                std::to_string(runs) + " runs";
    }
    MainWindow window;
    const std::vector<RunAnalysis>* analyses = nullptr;
    std::string where;
};

TEST_P(ChartLayout, EachChartInItsTab) {
    auto* panel = window.charts();
    panel->setRuns(*analyses);
    std::vector<std::pair<QCustomPlot*, const char*>> charts = {
        {panel->latencyChart(), "latency"},         {panel->rooflineChart(), "roofline"},
        {panel->occupancyChart(), "occupancy"},     {panel->comparisonChart(), "comparison"},
        {panel->tokenChart(), "per-token latency"}, {panel->throughputChart(), "throughput"},
        {panel->kernelChart(), "kernel breakdown"}, {panel->requestChart(), "requests"}};
    for (auto [chart, name] : charts) {
        panel->setCurrentWidget(chart);
        QApplication::processEvents();
        ASSERT_GT(chart->height(), 100) << name;
        expectReadable(chart, std::string(name) + " tab, " + where);
    }
}

// The Pareto tab of a sweep of as many points as the case has runs, and of
// three sweeps side by side (each point labelled, labels that would collide
// hidden by the chart).
TEST_P(ChartLayout, ParetoTabOfSweeps) {
    auto* panel = window.charts();
    std::vector<std::string> values;
    for (std::size_t i = 0; i < analyses->size(); ++i)
        values.push_back(std::to_string(1 << i));
    for (const auto& sweeps :
         {std::vector<SweepTable>{testing::sweep("g1", "max-concurrency", values, 100)},
          std::vector<SweepTable>{testing::sweep("g1", "max-concurrency", values, 100),
                                  testing::sweep("g2", "max-concurrency", values, 160),
                                  testing::sweep("g3", "request-rate", values, 240)}}) {
        panel->setSweeps(sweeps);
        ASSERT_TRUE(panel->paretoShown());
        panel->setCurrentWidget(panel->paretoChart());
        QApplication::processEvents();
        expectReadable(panel->paretoChart(),
                       "pareto tab, " + std::to_string(sweeps.size()) + " sweep(s), " + where);
    }
}

TEST_P(ChartLayout, DashboardInTheWindow) {
    auto* dashboard = window.dashboard();
    dashboard->setStorePath(QStringLiteral("/home/user/.local/share/warpscope/runs.wsdb"));
    dashboard->setRuns(*analyses);
    window.setDashboardShown(true);
    QApplication::processEvents();
    ASSERT_TRUE(window.dashboardShown());
    ASSERT_TRUE(dashboard->isVisible());
    auto charts = dashboard->shownCharts();
    EXPECT_EQ(charts.size(), analyses->size() >= 2 ? 4u : 3u);
    for (auto* chart : charts) {
        ASSERT_TRUE(chart->isVisible());
        ASSERT_GT(chart->height(), 100);
        expectReadable(
            chart, std::string(chart->metaObject()->className()) + " in the dashboard, " + where);
    }
    window.setDashboardShown(false);
    EXPECT_FALSE(window.dashboardShown());
}

std::string caseName(const ::testing::TestParamInfo<Case>& info) {
    const QSize size = std::get<0>(info.param);
    return "w" + std::to_string(size.width()) + "_runs" + std::to_string(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Sizes, ChartLayout,
                         ::testing::Combine(::testing::Values(QSize(1366, 768), QSize(1920, 1080)),
                                            ::testing::Values(1, 3, 8)),
                         caseName);

}  // namespace
}  // namespace ws::ui
