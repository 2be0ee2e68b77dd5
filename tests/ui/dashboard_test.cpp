// The dashboard: one view of the selected runs reached with Ctrl+D, exported
// with a header (runs, GPU, dates, store) and without on-screen hints.
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QImage>
#include <QMenuBar>

#include "charts/dashboard_view.h"
#include "main_window.h"
#include "store/store.h"
#include "support/energy_run.h"
#include "support/temp_dir.h"
#include "synthetic_runs.h"

namespace ws::ui {
namespace {

std::vector<RunAnalysis> threeRuns(testing::TempDir& dir) {
    auto ids = testing::writeSyntheticRuns(dir.file("runs.wsdb"), 3);
    Store store(dir.file("runs.wsdb"));
    return analyzeRuns(store, ids);
}

TEST(Dashboard, ExportHasTheHeaderAndNoScreenHints) {
    testing::TempDir dir;
    DashboardView view;
    view.setStorePath(QString::fromStdString(dir.file("runs.wsdb")));
    view.setRuns(threeRuns(dir));
    auto header = view.headerLines();
    ASSERT_EQ(header.size(), 4);
    EXPECT_TRUE(header[0].startsWith("Runs: #1 llama-3.2-1b-instruct optimized"))
        << header[0].toStdString();
    EXPECT_EQ(header[1], "GPU: NVIDIA H200");
    EXPECT_TRUE(header[2].startsWith("Recorded: 2025-12-0")) << header[2].toStdString();
    EXPECT_TRUE(header[3].endsWith("runs.wsdb"));
    QString png = QString::fromStdString(dir.file("dashboard.png"));
    ASSERT_EQ(view.exportTo(png, 1920, 1080), QString());
    EXPECT_EQ(QImage(png).size(), QSize(1920, 1080));
    QString svg = QString::fromStdString(dir.file("dashboard.svg"));
    ASSERT_EQ(view.exportTo(svg, 1600, 900), QString());
    auto text = QString::fromStdString(testing::readFile(svg.toStdString()));
    for (const char* expected : {"GPU: NVIDIA H200", "Store: ", "TTFT (ms)", "TFLOP/s", "occupancy",
                                 "against the baseline"})
        EXPECT_TRUE(text.contains(expected)) << expected;
    for (const char* hint : {"Wheel", "wheel", "drag", "click"})
        EXPECT_FALSE(text.contains(hint)) << hint;
    QString pdf = QString::fromStdString(dir.file("dashboard.pdf"));
    ASSERT_EQ(view.exportTo(pdf), QString());
    EXPECT_EQ(testing::readFile(pdf.toStdString()).substr(0, 5), "%PDF-");
    EXPECT_FALSE(view.exportTo(QString::fromStdString(dir.file("d.gif"))).isEmpty());
}

// A run with energy samples adds a line: J per output token and where it
// went (the figures of support/energy_run.h).
TEST(Dashboard, HeaderSaysWhereARunsEnergyWent) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    const auto run = testing::writeEnergyRun(store);
    DashboardView view;
    view.setRuns(analyzeRuns(store, {run}));
    const auto header = view.headerLines();
    ASSERT_EQ(header.size(), 5);
    EXPECT_TRUE(
        header[4].startsWith("Energy #1: 10.000 J/token (prefill steps 2.000 "
                             "± 0.667, decode steps 3.000 ± 0.667, outside steps 5.000; "
                             "idle 7.500 ± 0.833, matmul 2.500 ± 0.833)"))
        << header[4].toStdString();
}

TEST(Dashboard, CtrlDShowsItInTheWindowAndBack) {
    MainWindow window;
    window.resize(1366, 768);
    window.show();
    QAction* toggle = nullptr;
    for (auto* action : window.menuBar()->findChildren<QAction*>())
        if (action->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_D)) toggle = action;
    ASSERT_NE(toggle, nullptr);
    EXPECT_TRUE(toggle->text().contains("Dashboard"));
    EXPECT_FALSE(window.dashboardShown());
    toggle->trigger();
    QApplication::processEvents();
    EXPECT_TRUE(window.dashboardShown());
    EXPECT_TRUE(window.dashboard()->isVisible());
    // One run: no comparison in the grid.
    testing::TempDir dir;
    auto runs = threeRuns(dir);
    window.dashboard()->setRuns({runs[0]});
    EXPECT_EQ(window.dashboard()->shownCharts().size(), 3u);
    window.dashboard()->setRuns(runs);
    EXPECT_EQ(window.dashboard()->shownCharts().size(), 4u);
    toggle->trigger();
    QApplication::processEvents();
    EXPECT_FALSE(window.dashboardShown());
    EXPECT_FALSE(window.dashboard()->isVisible());
}

}  // namespace
}  // namespace ws::ui
