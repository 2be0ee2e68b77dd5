// The launch panel's host field: a workload recorded on "a GPU server" (a
// throwaway sshd on 127.0.0.1, support/ssh_server.h) and its run shown here.
#include <gtest/gtest.h>

#include <QDockWidget>
#include <QSignalSpy>
#include <filesystem>

#include "launch/launch_panel.h"
#include "main_window.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "support/ssh_server.h"
#include "support/temp_dir.h"

namespace ws::ui {
namespace {

namespace fs = std::filesystem;

// Sets an environment variable for the CLI the panel starts; restores it.
class ScopedEnv {
  public:
    ScopedEnv(const char* name, const std::string& value)
        : name_(name), had_(qEnvironmentVariableIsSet(name)), old_(qgetenv(name)) {
        qputenv(name, QByteArray::fromStdString(value));
    }
    ~ScopedEnv() {
        if (had_)
            qputenv(name_, old_);
        else
            qunsetenv(name_);
    }

  private:
    const char* name_;
    bool had_;
    QByteArray old_;
};

// With WARPSCOPE_SCREENSHOT_DIR set, the window as it is now, for a person
// to look at (README's screenshots); nothing otherwise.
void screenshot(QWidget& window, const QString& name) {
    QString dir = qEnvironmentVariable("WARPSCOPE_SCREENSHOT_DIR");
    if (!dir.isEmpty()) window.grab().save(dir + "/" + name);
}

TEST(RemoteLaunch, HostFieldRecordsThereAndShowsTheRunHere) {
    if (auto why = testing::SshServer::unavailable()) GTEST_SKIP() << *why;
    testing::TempDir dir;
    fs::create_directories(dir.file("bin"));
    fs::create_symlink(WARPSCOPE_CLI_PATH, dir.file("bin/warpscope-cli"));
    testing::SshServer server(dir.path().string(), dir.file("bin") + ":/usr/bin:/bin");
    ScopedEnv config("WARPSCOPE_SSH_CONFIG", server.clientConfig());
    ScopedEnv runtime("XDG_RUNTIME_DIR", dir.path().string());
    auto db = dir.file("local.wsdb");
    { Store create(db); }

    MainWindow window;
    window.resize(1366, 768);
    window.show();
    QSignalSpy loaded(&window, &MainWindow::storeLoaded);
    window.openStore(QString::fromStdString(db));
    ASSERT_TRUE(loaded.wait(10000));
    window.findChild<QDockWidget*>(QStringLiteral("launchDock"))->raise();
    LaunchPanel& panel = *window.launcher();
    panel.setCliPath(WARPSCOPE_CLI_PATH);
    panel.setHost(QStringLiteral("  wstest "));
    EXPECT_EQ(panel.host(), "wstest");
    panel.setConfigText(
        "name = \"remote-sleep\"\nkind = \"command\"\n[command]\nprogram = \"/bin/sh\"\n"
        "args = [\"-c\", \"echo on-the-server; sleep 2\"]\n");
    QSignalSpy progressed(&panel, &LaunchPanel::progressed);
    QSignalSpy finished(&panel, &LaunchPanel::runFinished);
    panel.launch();
    EXPECT_TRUE(panel.statusText().contains("Running on wstest"));
    ASSERT_TRUE(progressed.wait(30000)) << panel.statusText().toStdString();
    screenshot(window, "remote-launch-running.png");
    ASSERT_TRUE(finished.count() > 0 || finished.wait(60000));
    EXPECT_TRUE(finished.last().at(0).toBool()) << panel.statusText().toStdString();
    EXPECT_TRUE(panel.statusText().contains("run 1 ok, exit code 0 (remote wstest run 1)"))
        << panel.statusText().toStdString();
    {
        Store store(db);
        auto runs = listRuns(store);
        ASSERT_EQ(runs.size(), 1u);
        EXPECT_EQ(runs[0].workload, "remote-sleep");
        EXPECT_EQ(runProperties(store, runs[0].id)["remote.host"], "wstest");
    }
    // The details say where it was recorded.
    ASSERT_TRUE(loaded.count() > 1 || loaded.wait(10000));
    QSignalSpy shown(&window, &MainWindow::detailsShown);
    window.selectRun(1);
    ASSERT_TRUE(shown.count() > 0 || shown.wait(10000));
    EXPECT_TRUE(window.detailsText().contains("recorded through ssh to wstest, run 1 there"))
        << window.detailsText().toStdString();
    screenshot(window, "remote-launch-done.png");
}

}  // namespace
}  // namespace ws::ui
