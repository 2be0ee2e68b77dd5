// The background loader: reading a run never writes the store, a superseded
// timeline load stops, and a report is prepared off the GUI thread.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QSignalSpy>
#include <filesystem>

#include "main_window.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "support/fixture_store.h"
#include "support/temp_dir.h"
#include "viewmodels/store_loader.h"
#include "viewmodels/timeline_data.h"

namespace ws::ui {
namespace {

// A run left "running" by a recorder that died on this host: a read-write
// open marks it killed.
RunId abandonedRun(const std::string& path) {
    RunId id = 0;
    {
        Store store(path);
        NewRun nr;
        nr.label = "abandoned";
        id = store.beginRun(nr);
    }
    pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ::waitpid(child, nullptr, 0);  // a pid that no longer runs
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    std::string sql = "UPDATE runs SET writer_pid = " + std::to_string(child) +
                      " WHERE id = " + std::to_string(id);
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    return id;
}

RunStatus statusOf(const std::string& path, RunId id) {
    Store::Options readOnly;
    readOnly.readOnly = true;
    Store store(path, readOnly);
    return requireRun(store, id).status;
}

TEST(StoreLoader, ReadingARunNeverWritesTheStoreOnlyOpeningItDoes) {
    testing::TempDir dir;
    auto path = dir.file("runs.wsdb");
    testing::writeFixtureStore(path);
    RunId id = abandonedRun(path);
    StoreLoader loader;
    QSignalSpy details(&loader, &StoreLoader::detailsLoaded);
    QSignalSpy analysed(&loader, &StoreLoader::analysisLoaded);
    QSignalSpy timeline(&loader, &StoreLoader::timelineLoaded);
    const QString qpath = QString::fromStdString(path);
    loader.loadDetails(qpath, id);
    loader.loadAnalysis(qpath, {id});
    loader.loadTimeline(qpath, id);
    ASSERT_TRUE(details.wait(20000));
    ASSERT_TRUE(analysed.count() || analysed.wait(20000));
    ASSERT_TRUE(timeline.count() || timeline.wait(20000));
    EXPECT_EQ(statusOf(path, id), RunStatus::Running) << "a read job rewrote the run";

    QSignalSpy runs(&loader, &StoreLoader::runsLoaded);
    loader.loadRuns(qpath);
    ASSERT_TRUE(runs.wait(20000));
    auto recovered = runs.at(0).at(2).value<std::vector<RunId>>();
    EXPECT_EQ(recovered, std::vector<RunId>{id});
    EXPECT_EQ(statusOf(path, id), RunStatus::Killed);
}

TEST(TimelineData, ALoadThatIsToStopReturnsNothing) {
    testing::TempDir dir;
    auto path = dir.file("runs.wsdb");
    auto runs = testing::writeFixtureStore(path);
    Store store(path);
    int polls = 0;
    EXPECT_EQ(loadTimeline(store, runs.decoderOk, [&] { return ++polls > 1; }), nullptr);
    EXPECT_GE(polls, 2);
    EXPECT_NE(loadTimeline(store, runs.decoderOk, [] { return false; }), nullptr);
}

TEST(MainWindow, ExportsAReportFromABackgroundAnalysis) {
    testing::TempDir dir;
    auto path = dir.file("runs.wsdb");
    auto runs = testing::writeFixtureStore(path);
    MainWindow window;
    QSignalSpy loaded(&window, &MainWindow::storeLoaded);
    window.openStore(QString::fromStdString(path));
    ASSERT_TRUE(loaded.wait(20000));
    QSignalSpy written(&window, &MainWindow::reportWritten);
    auto html = QString::fromStdString(dir.file("report.html"));
    window.exportReportTo(runs.decoderOk, runs.kernelFailed, html);
    ASSERT_TRUE(written.wait(60000));
    EXPECT_EQ(written.at(0).at(0).toString(), html);
    EXPECT_GT(std::filesystem::file_size(html.toStdString()), 10000u);
}

}  // namespace
}  // namespace ws::ui
