// Journey: every bundled workload config, chosen in the Launch panel of the
// main window and started with its Launch button, into a fresh store. A
// server (the CPU one) runs until it says it is ready and is then stopped
// with Cancel, as a user stops it; GPU kinds on a machine without a GPU end
// at once with the reason, a failed run left in the store saying why. Each
// new run then appears in the Runs list and opens.
#include <gtest/gtest.h>

#include <QDir>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <filesystem>
#include <map>

#include "config/workload_config.h"
#include "launch/launch_panel.h"
#include "main_window.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "support/temp_dir.h"
#include "viewmodels/run_list_model.h"

namespace ws::ui {
namespace {

bool machineHasGpu() {
    return std::filesystem::exists("/dev/nvidiactl");
}

// Waits until `spy`'s text arguments, joined, contain `text`.
QString loggedText(const QSignalSpy& spy) {
    QString all;
    for (const auto& args : spy)
        all += args.at(0).toString();
    return all;
}

bool waitForText(QSignalSpy& spy, const QString& text, int timeoutMs) {
    QElapsedTimer clock;
    clock.start();
    for (;;) {
        if (loggedText(spy).contains(text)) return true;
        const int left = timeoutMs - static_cast<int>(clock.elapsed());
        if (left <= 0 || !spy.wait(left)) return false;
    }
}

TEST(LaunchJourney, EveryBundledConfigFromTheLaunchButton) {
    qputenv("WARPSCOPE_CLI", WARPSCOPE_CLI_PATH);
    testing::TempDir dir;
    const std::string db = dir.file("runs.wsdb");
    { Store fresh(db); }
    MainWindow window;
    window.resize(1366, 768);
    window.show();
    QSignalSpy loaded(&window, &MainWindow::storeLoaded);
    window.openStore(QString::fromStdString(db));
    ASSERT_TRUE(loaded.wait(20000));

    auto* panel = window.launcher();
    auto* launch = panel->findChild<QPushButton*>(QStringLiteral("launchButton"));
    auto* cancel = panel->findChild<QPushButton*>(QStringLiteral("cancelLaunchButton"));
    ASSERT_TRUE(launch && cancel);

    std::vector<std::filesystem::path> configs;
    for (const auto& e :
         std::filesystem::directory_iterator(WARPSCOPE_SOURCE_DIR "/resources/workloads"))
        if (e.path().extension() == ".toml") configs.push_back(e.path());
    std::sort(configs.begin(), configs.end());
    ASSERT_GE(configs.size(), 10u);

    std::map<std::string, RunStatus> expected;  // label → how its run must end
    for (const auto& path : configs) {
        SCOPED_TRACE(path.filename().string());
        const auto parsed = loadWorkloadConfig(path.string());
        ASSERT_TRUE(parsed.ok());
        const WorkloadConfig& config = *parsed.config;
        const bool cpuServer = config.serve && config.serve->backend == "cpu";
        if (!cpuServer && machineHasGpu()) continue;  // a GPU run: scripts/gpu covers those

        panel->selectConfig(QString::fromStdString(path.string()));
        ASSERT_TRUE(launch->isEnabled()) << panel->validationText().toStdString();
        QSignalSpy finished(panel, &LaunchPanel::runFinished);
        QSignalSpy log(panel, &LaunchPanel::logOutput);
        loaded.clear();
        QTest::mouseClick(launch, Qt::LeftButton);
        if (cpuServer) {
            // On failure, what the server said (a port another program holds, ...).
            ASSERT_TRUE(waitForText(log, QStringLiteral("warpscope-workload: ready"), 30000))
                << "log: " << loggedText(log).toStdString()
                << "\nstatus: " << panel->statusText().toStdString();
            QTest::mouseClick(cancel, Qt::LeftButton);
            expected[config.name] = RunStatus::Killed;
        } else {
            expected[config.name] = RunStatus::Failed;
        }
        ASSERT_TRUE(finished.count() > 0 || finished.wait(30000));
        const bool ok = finished.last().at(0).toBool();
        EXPECT_FALSE(ok);
        // Why, in the panel: the program's own reason after the exit status.
        const QString status = panel->statusText();
        if (!cpuServer) {
            EXPECT_TRUE(status.contains(QStringLiteral("no CUDA device")) ||
                        status.contains(QStringLiteral("No module named")) ||
                        status.contains(QStringLiteral("needs CUDA")))
                << status.toStdString();
        }
        // The window reloads the store: the new run is listed and opens.
        ASSERT_TRUE(loaded.count() > 0 || loaded.wait(20000));
        Store store(db, {.readOnly = true});
        const auto runs = listRuns(store);
        ASSERT_FALSE(runs.empty());
        const RunInfo& newest = *std::max_element(
            runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
        EXPECT_EQ(newest.label, config.name);
        EXPECT_EQ(newest.status, expected[config.name]) << runLog(store, newest.id);
        EXPECT_FALSE(runLog(store, newest.id).empty());
        std::printf("journey: %s: run %lld %s: %s\n", path.filename().c_str(),
                    static_cast<long long>(newest.id), toString(newest.status), qPrintable(status));
        ASSERT_GE(window.runModel()->rowOfRun(newest.id), 0);
        QSignalSpy details(&window, &MainWindow::detailsShown);
        window.selectRun(newest.id);
        ASSERT_TRUE(details.count() > 0 || details.wait(20000));
    }
    EXPECT_FALSE(expected.empty());
}

}  // namespace
}  // namespace ws::ui
