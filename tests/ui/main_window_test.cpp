// The first window on the committed fixture store, offscreen.
#include <gtest/gtest.h>

#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QSignalSpy>
#include <QTableView>
#include <filesystem>
#include <limits>

#include "charts/charts_panel.h"
#include "charts/summary_tables_page.h"
#include "main_window.h"
#include "runs_panel.h"
#include "shortcuts_dialog.h"
#include "store/compact.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "store_db.h"
#include "support/temp_dir.h"
#include "timeline/search_matches_list.h"
#include "timeline/timeline_view.h"
#include "viewmodels/kernel_table_model.h"
#include "viewmodels/run_list_model.h"

namespace ws::ui {
namespace {

using testing::TempDir;

bool waitFor(QSignalSpy& spy, int timeoutMs = 10000) {
    return spy.count() > 0 || spy.wait(timeoutMs);
}

class MainWindowTest : public ::testing::Test {
  protected:
    void SetUp() override {
        store = dir.file("fixture.wsdb");
        std::filesystem::copy_file(testing::dataFile("fixture.wsdb"), store);
    }
    TempDir dir;
    std::string store;
};

TEST_F(MainWindowTest, ListsRunsAndShowsSelectedRunDetails) {
    MainWindow window;
    QSignalSpy loaded(&window, &MainWindow::storeLoaded);
    QSignalSpy shown(&window, &MainWindow::detailsShown);
    window.selectRun(1);
    window.openStore(QString::fromStdString(store));
    ASSERT_TRUE(waitFor(loaded));
    EXPECT_EQ(window.storePath(), QString::fromStdString(store));
    EXPECT_EQ(window.runModel()->rowCount(), 4);
    EXPECT_EQ(window.runView()->model()->rowCount(), 4);
    ASSERT_TRUE(waitFor(shown));
    EXPECT_EQ(shown.last().at(0).toLongLong(), 1);
    QString text = window.detailsText();
    EXPECT_TRUE(text.contains("Run 1: llama-3.2-1b optimized")) << text.toStdString();
    EXPECT_TRUE(text.contains("NVIDIA H200"));
    EXPECT_TRUE(text.contains("240 on 2 streams"));
    EXPECT_TRUE(text.contains("Requests / tokens"));
    EXPECT_TRUE(text.contains("Cold starts in TTFT")) << text.toStdString();
    EXPECT_TRUE(window.windowTitle().contains("fixture.wsdb"));
}

TEST_F(MainWindowTest, SelectingAnotherRunShowsItsDetails) {
    MainWindow window;
    QSignalSpy loaded(&window, &MainWindow::storeLoaded);
    window.openStore(QString::fromStdString(store));
    ASSERT_TRUE(waitFor(loaded));
    QSignalSpy shown(&window, &MainWindow::detailsShown);
    window.selectRun(2);
    ASSERT_TRUE(waitFor(shown));
    // Other selections may still be in flight; wait until run 2 is the one shown.
    while (shown.last().at(0).toLongLong() != 2 && shown.wait(5000)) {
    }
    EXPECT_EQ(shown.last().at(0).toLongLong(), 2);
    EXPECT_TRUE(window.detailsText().contains("failed — exit code 3"));
}

TEST_F(MainWindowTest, ForeignFileShowsErrorAndKeepsCurrentStore) {
    MainWindow window;
    QSignalSpy loaded(&window, &MainWindow::storeLoaded);
    window.openStore(QString::fromStdString(store));
    ASSERT_TRUE(waitFor(loaded));
    auto notes = dir.file("notes.wsdb");
    testing::writeFile(notes, "not a store");
    QSignalSpy failed(&window, &MainWindow::loadFailed);
    window.openStore(QString::fromStdString(notes));
    ASSERT_TRUE(waitFor(failed));
    EXPECT_TRUE(window.errorText().contains("not an SQLite file"))
        << window.errorText().toStdString();
    EXPECT_EQ(window.storePath(), QString::fromStdString(store));
    EXPECT_EQ(window.runModel()->rowCount(), 4);
    EXPECT_EQ(testing::readFile(notes), "not a store");
}

}  // namespace
}  // namespace ws::ui

namespace ws::ui {
namespace {

TEST_F(MainWindowTest, EmptyStoreOffersTheBundledSampleRuns) {
    testing::TempDir data;
    qputenv("XDG_DATA_HOME", QByteArray::fromStdString(data.path().string()));
    MainWindow window;
    QSignalSpy loaded(&window, &MainWindow::storeLoaded);
    window.openStore(QString::fromStdString(dir.file("empty.wsdb")));
    ASSERT_TRUE(waitFor(loaded));
    EXPECT_EQ(window.runModel()->rowCount(), 0);
    ASSERT_TRUE(window.noticeText().contains("sample runs</a>"))
        << window.noticeText().toStdString();
    // Following the link opens a copy of the H200 samples in the user's data folder.
    QSignalSpy reloaded(&window, &MainWindow::storeLoaded);
    QMetaObject::invokeMethod(window.findChild<QLabel*>("noticeBanner"), "linkActivated",
                              Q_ARG(QString, "samples"));
    ASSERT_TRUE(waitFor(reloaded));
    EXPECT_TRUE(window.storePath().endsWith("warpscope/samples.wsdb"))
        << window.storePath().toStdString();
    EXPECT_GE(window.runModel()->rowCount(), 4);
    qunsetenv("XDG_DATA_HOME");
}

}  // namespace
}  // namespace ws::ui

namespace ws::ui {
namespace {

TEST_F(MainWindowTest, ClickedKernelShowsLaunchConfigAndOccupancy) {
    MainWindow window;
    QSignalSpy timelineShown(&window, &MainWindow::timelineShown);
    window.selectRun(1);
    window.openStore(QString::fromStdString(store));
    ASSERT_TRUE(waitFor(timelineShown));
    QSignalSpy kernelShown(&window, &MainWindow::kernelShown);
    ASSERT_GT(window.timeline()->setSearch("gemv"), 0u);
    ASSERT_TRUE(window.timeline()->findNext());
    ASSERT_TRUE(waitFor(kernelShown)) << window.errorText().toStdString();
    QString text = window.detailsText();
    EXPECT_TRUE(text.contains("gemv_bf16_splitk")) << text.toStdString();
    EXPECT_TRUE(text.contains("256 threads"));
    EXPECT_TRUE(text.contains("40 per thread"));
    // 40 registers × 256 threads on an H200: 6 blocks, 48 of 64 warps.
    EXPECT_TRUE(text.contains("75.0%")) << text.toStdString();
    EXPECT_TRUE(text.contains("Limited by")) << text.toStdString();
    EXPECT_TRUE(text.contains("cudaLaunchKernel"));
}

// A baseline pinned from the runs list: named there, compared against with
// any run selected, and still pinned when the store is opened again.
TEST_F(MainWindowTest, APinnedBaselineIsComparedAgainstAndStaysAcrossReopening) {
    {
        MainWindow window;
        QSignalSpy loaded(&window, &MainWindow::storeLoaded);
        window.openStore(QString::fromStdString(store));
        ASSERT_TRUE(waitFor(loaded));
        window.setBaseline(2);
        auto label = [&](RunId id) {
            return window.runModel()
                ->index(window.runModel()->rowOfRun(id), RunListModel::Label)
                .data()
                .toString();
        };
        EXPECT_TRUE(label(2).endsWith("(baseline)")) << label(2).toStdString();
        EXPECT_FALSE(label(1).endsWith("(baseline)"));
        QSignalSpy charts(&window, &MainWindow::chartsShown);
        window.selectRun(1);
        ASSERT_TRUE(waitFor(charts));
        EXPECT_EQ(charts.last().at(0).toInt(), 2);  // run 1 beside its baseline
    }
    MainWindow again;
    QSignalSpy loaded(&again, &MainWindow::storeLoaded);
    again.openStore(QString::fromStdString(store));
    ASSERT_TRUE(waitFor(loaded));
    EXPECT_EQ(again.runModel()->baseline(), std::optional<RunId>(2));
    again.setBaseline(std::nullopt);
    EXPECT_FALSE(again.runModel()->baseline());
}

// With every chart drawn, the window still fits a 1366×768 screen: no dock
// asks for more height than a laptop has (the charts once asked ~450 px).
TEST_F(MainWindowTest, FitsALaptopScreenWithChartsLoaded) {
    MainWindow window;
    QSignalSpy charts(&window, &MainWindow::chartsShown);
    window.selectRuns({1, 2});
    window.openStore(QString::fromStdString(store));
    ASSERT_TRUE(waitFor(charts));
    for (int i = 0; i < window.charts()->count(); ++i) {
        window.charts()->setCurrentIndex(i);
        EXPECT_LE(window.minimumSizeHint().height(), 768 - 40)  // a panel or title bar
            << window.charts()->tabText(i).toStdString();
        EXPECT_LE(window.minimumSizeHint().width(), 1366);
    }
}

// The charts' window switch re-analyses the selection over the chosen part
// of each run, and the kernel table says which part it shows.
TEST_F(MainWindowTest, WindowSwitchReanalysesAndCaptionsTheKernelTable) {
    MainWindow window;
    QSignalSpy charts(&window, &MainWindow::chartsShown);
    window.selectRun(1);
    window.openStore(QString::fromStdString(store));
    ASSERT_TRUE(waitFor(charts));
    auto caption = [&] {
        QString text;
        for (auto* label : window.charts()->findChildren<QLabel*>())
            if (label->text().startsWith("Kernels over")) text = label->text();
        return text;
    };
    EXPECT_TRUE(caption().contains("run 1: while requests were served")) << caption().toStdString();
    // Switches as the combo box does, then waits for the re-analysis to show.
    auto switchTo = [&](const char* spec, const char* shown) {
        charts.clear();
        window.charts()->setWindow(parseWindowChoice(spec));
        emit window.charts()->windowChanged(window.charts()->window());
        EXPECT_TRUE(waitFor(charts));
        while (!caption().contains(shown) && charts.wait(5000)) {
        }
    };
    switchTo("run", "whole run");
    EXPECT_TRUE(caption().contains("run 1: whole run")) << caption().toStdString();
    switchTo("range:decode_step", "decode_step");
    EXPECT_TRUE(caption().contains("NVTX range 'decode_step'")) << caption().toStdString();
}

// Nsight Systems' selection statistics: a span selected on the timeline
// (Shift+drag) is the window of the tables; clearing it goes back.
TEST_F(MainWindowTest, ATimeRangeSelectedOnTheTimelineIsTheTablesWindow) {
    MainWindow window;
    QSignalSpy charts(&window, &MainWindow::chartsShown);
    QSignalSpy timelineShown(&window, &MainWindow::timelineShown);
    window.selectRun(1);
    window.openStore(QString::fromStdString(store));
    ASSERT_TRUE(waitFor(timelineShown));
    ASSERT_TRUE(waitFor(charts));
    const auto* data = window.timeline()->data();
    ASSERT_NE(data, nullptr);
    auto kernelsInTable = [&] {
        qlonglong n = 0;
        auto* table = window.charts()->kernelTable();
        for (int row = 0; row < table->rowCount(); ++row)
            n += table->index(row, KernelTableModel::Instances).data().toLongLong();
        return n;
    };
    charts.clear();
    window.charts()->setWindow(parseWindowChoice("run"));
    emit window.charts()->windowChanged(window.charts()->window());
    ASSERT_TRUE(waitFor(charts));
    const qlonglong all = kernelsInTable();
    ASSERT_EQ(all, 240);
    // The first fifth of the span of its kernels.
    std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = 0;
    for (const auto& lane : data->lanes)
        if (lane.kind == LaneKind::Kernels && lane.events.size() > 0) {
            first = std::min(first, lane.events.start(0));
            last = std::max(last, lane.events.end(lane.events.size() - 1));
        }
    ASSERT_LT(first, last);
    const std::int64_t from = first, to = first + (last - first) / 5;
    charts.clear();
    window.timeline()->selectRange(from, to);
    ASSERT_TRUE(waitFor(charts));
    EXPECT_EQ(window.charts()->window().kind, WindowChoice::Kind::Span);
    EXPECT_EQ(window.charts()->window().fromNs, from - data->firstRecordNs);
    EXPECT_EQ(window.charts()->currentWidget(), window.charts()->tables());
    EXPECT_TRUE(window.charts()->tables()->caption().contains("of the run"))
        << window.charts()->tables()->caption().toStdString();
    const qlonglong some = kernelsInTable();
    EXPECT_GT(some, 0);
    EXPECT_LT(some, all);
    // A span starting before the first record (over requests that arrived
    // earlier) counts from the first record.
    charts.clear();
    window.timeline()->selectRange(data->firstRecordNs - 1'000'000'000, to);
    ASSERT_TRUE(waitFor(charts));
    EXPECT_EQ(window.charts()->window().fromNs, 0);
    EXPECT_EQ(kernelsInTable(), some);
    // Esc goes back to the window chosen before (the whole run), not a default.
    charts.clear();
    window.timeline()->clearRange();
    ASSERT_TRUE(waitFor(charts));
    EXPECT_EQ(window.charts()->window().kind, WindowChoice::Kind::WholeRun);
    EXPECT_EQ(kernelsInTable(), all);
}

TEST_F(MainWindowTest, FindResultsListTheMatchesAndGoToOne) {
    MainWindow window;
    QSignalSpy timelineShown(&window, &MainWindow::timelineShown);
    QSignalSpy kernel(&window, &MainWindow::kernelShown);
    window.selectRun(1);
    window.openStore(QString::fromStdString(store));
    ASSERT_TRUE(waitFor(timelineShown));
    window.findInTimeline(1, QStringLiteral("gemv"));
    auto* list = window.searchMatches();
    EXPECT_TRUE(list->caption().contains("matches of 'gemv'")) << list->caption().toStdString();
    const int rows = list->table()->model()->rowCount();
    ASSERT_GT(rows, 1);
    kernel.clear();
    emit list->matchActivated(window.timeline()->searchMatches(2)[1].first,
                              window.timeline()->searchMatches(2)[1].second);
    EXPECT_EQ(window.timeline()->selection().event, window.timeline()->searchMatches(2)[1].second);
    EXPECT_TRUE(waitFor(kernel));  // the selected kernel's details load
}

TEST_F(MainWindowTest, RooflinePointFindsItsKernelInAnotherRunsTimeline) {
    MainWindow window;
    QSignalSpy timelineShown(&window, &MainWindow::timelineShown);
    window.selectRun(2);
    window.openStore(QString::fromStdString(store));
    ASSERT_TRUE(waitFor(timelineShown));
    QSignalSpy kernelShown(&window, &MainWindow::kernelShown);
    window.findInTimeline(1, "gemv");  // run 1 is not the one shown
    ASSERT_TRUE(waitFor(kernelShown)) << window.errorText().toStdString();
    EXPECT_EQ(window.timeline()->data()->run, 1);
    EXPECT_TRUE(window.detailsText().contains("gemv_bf16_splitk"));
}

TEST_F(MainWindowTest, CompactStoreRewritesOlderChunksInTheBackgroundAndReloads) {
    // A store whose chunks are in the first (inline) format, as older
    // Warpscope builds wrote them.
    {
        Store older(store);
        for (const auto& run : listRuns(older))
            if (run.status == RunStatus::Running) older.finishRun(run.id, RunStatus::Killed);
        ws::compactStore(older, codec::Format::Inline);
    }
    qputenv("WARPSCOPE_CLI", WARPSCOPE_CLI_PATH);
    MainWindow window;
    QSignalSpy loaded(&window, &MainWindow::storeLoaded);
    window.openStore(QString::fromStdString(store));
    ASSERT_TRUE(waitFor(loaded));
    QAction* compact = nullptr;
    for (auto* action : window.findChildren<QAction*>())
        if (action->text() == QStringLiteral("&Compact Store")) compact = action;
    ASSERT_NE(compact, nullptr);
    loaded.clear();
    compact->trigger();
    ASSERT_TRUE(waitFor(loaded, 60000));  // reloaded after warpscope-cli compact finished
    qunsetenv("WARPSCOPE_CLI");
    Store after(store);
    EXPECT_EQ(storeDb(after).queryInt("SELECT count(*) FROM event_chunks WHERE format = 1"), 0);
    EXPECT_GT(storeDb(after).queryInt("SELECT count(*) FROM event_chunks"), 0);
}

// File > Export Trace writes the run through warpscope-cli export: Perfetto's
// protobuf for .pftrace, Chrome trace JSON for .json; the store is left as it
// was (no reload).
TEST_F(MainWindowTest, ExportTraceWritesPerfettoOrChromeTraceByTheFileName) {
    qputenv("WARPSCOPE_CLI", WARPSCOPE_CLI_PATH);
    MainWindow window;
    QSignalSpy loaded(&window, &MainWindow::storeLoaded);
    window.openStore(QString::fromStdString(store));
    ASSERT_TRUE(waitFor(loaded));
    QSignalSpy written(&window, &MainWindow::traceWritten);
    loaded.clear();
    const auto pftrace = QString::fromStdString(dir.file("run1.pftrace"));
    window.exportTraceTo(1, pftrace);
    ASSERT_TRUE(waitFor(written, 60000));
    const auto json = QString::fromStdString(dir.file("run1.json"));
    written.clear();
    window.exportTraceTo(1, json);
    ASSERT_TRUE(waitFor(written, 60000));
    qunsetenv("WARPSCOPE_CLI");
    EXPECT_EQ(written.at(0).at(0).toString(), json);
    EXPECT_EQ(testing::readFile(pftrace.toStdString()).substr(0, 1), "\x0a");  // Trace.packet
    EXPECT_EQ(testing::readFile(json.toStdString()).substr(0, 1), "{");
    // A reload would follow the written file: none comes.
    EXPECT_FALSE(loaded.wait(500));
    EXPECT_EQ(loaded.size(), 0);
}

TEST_F(MainWindowTest, RunsAreRenamedTaggedAndDeletedFromTheListAndTheFocusedRunStays) {
    qputenv("WARPSCOPE_CLI", WARPSCOPE_CLI_PATH);
    MainWindow window;
    QSignalSpy loaded(&window, &MainWindow::storeLoaded);
    QSignalSpy shown(&window, &MainWindow::detailsShown);
    window.openStore(QString::fromStdString(store));
    ASSERT_TRUE(waitFor(loaded));
    window.selectRuns({2, 1, 3});  // 2 is the focused run
    ASSERT_TRUE(waitFor(shown));
    EXPECT_EQ(shown.last().at(0).toLongLong(), 2);
    auto* runs = window.findChild<RunsPanel*>();
    ASSERT_NE(runs, nullptr);

    auto labelOf = [&](RunId id) {
        return window.runModel()
            ->index(window.runModel()->rowOfRun(id), RunListModel::Label)
            .data()
            .toString();
    };
    loaded.clear();
    emit runs->renameRequested(2, QStringLiteral("-O3, before the fused MLP"));
    ASSERT_TRUE(waitFor(loaded, 60000));
    EXPECT_EQ(labelOf(2), QStringLiteral("-O3, before the fused MLP"));
    loaded.clear();
    emit runs->tagsRequested(2, QStringLiteral("h200, nightly"));
    ASSERT_TRUE(waitFor(loaded, 60000));
    EXPECT_EQ(window.runModel()
                  ->index(window.runModel()->rowOfRun(2), RunListModel::Tags)
                  .data()
                  .toString(),
              QStringLiteral("h200, nightly"));
    loaded.clear();
    emit runs->deleteRequested({3});
    ASSERT_TRUE(waitFor(loaded, 60000));
    qunsetenv("WARPSCOPE_CLI");
    EXPECT_EQ(window.runModel()->rowOfRun(3), -1);
    // After every reload the focused run is still 2, with 1 still selected.
    EXPECT_EQ(runs->focusedRun(), std::optional<RunId>(2));
    auto selected = runs->selectedRuns();
    std::sort(selected.begin(), selected.end());
    EXPECT_EQ(selected, (std::vector<RunId>{1, 2}));
    EXPECT_EQ(shown.last().at(0).toLongLong(), 2);
}

TEST(ShortcutsDialog, ListsEveryMenuShortcutAndTheTimelineGestures) {
    MainWindow window;
    ShortcutsDialog dialog(*window.menuBar());
    const QStringList lines = dialog.lines();
    auto has = [&](const QString& line) {
        return lines.contains(line) ? ::testing::AssertionSuccess()
                                    : ::testing::AssertionFailure()
                                          << line.toStdString() << " not in:\n"
                                          << lines.join('\n').toStdString();
    };
    EXPECT_TRUE(has(QStringLiteral("Ctrl+D — View ▸ Dashboard")));
    EXPECT_TRUE(has(QStringLiteral("Ctrl+K — View ▸ Find in Timeline")));
    EXPECT_TRUE(has(QStringLiteral("Ctrl+E — File ▸ Export Report")));
    EXPECT_TRUE(has(QStringLiteral("Ctrl+/ — Help ▸ Keyboard Shortcuts")));
    EXPECT_TRUE(
        has(QStringLiteral("Shift+Drag — Timeline: select a time range; the tables and "
                           "charts cover it")));
    // One line per menu shortcut: none of the window's is missed.
    int withShortcut = 0;
    for (auto* action : window.findChildren<QAction*>()) {
        bool inMenu = false;
        for (auto* object : action->associatedObjects())
            inMenu = inMenu || qobject_cast<QMenu*>(object);
        if (inMenu && !action->shortcut().isEmpty() && !action->menu()) ++withShortcut;
    }
    EXPECT_EQ(static_cast<int>(menuShortcuts(*window.menuBar()).size()), withShortcut);
}

}  // namespace
}  // namespace ws::ui
