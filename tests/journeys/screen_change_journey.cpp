// Journey: a user quits the workbench on one screen and starts it on another.
// One start of the GUI per process, on an offscreen screen of the size
// WS_JOURNEY_SCREEN gives (WxH); screen_change_journey.sh starts it at
// 1920×1080, then 1366×768, then 1920×1080 twice, on one settings folder,
// as a user with a laptop and a monitor does. Each start must fit its
// screen with every dock and the charts at their minimums, whatever the
// previous start saved; each start quits through the window's close, as a
// user does, so the next start reads what this one saved.
#include <gtest/gtest.h>

#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>

#include "charts/charts_panel.h"
#include "main_window.h"
#include "window_layout.h"

namespace ws::ui {
namespace {

QSize wantedScreen() {
    const QStringList wh = qEnvironmentVariable("WS_JOURNEY_SCREEN", "1366x768").split('x');
    return {wh.value(0).toInt(), wh.value(1).toInt()};
}

int dockWidth(MainWindow& w, const char* name) {
    auto* d = w.findChild<QDockWidget*>(QLatin1String(name));
    return d && d->isVisible() ? d->width() : -1;
}
int dockHeight(MainWindow& w, const char* name) {
    auto* d = w.findChild<QDockWidget*>(QLatin1String(name));
    return d && d->isVisible() ? d->height() : -1;
}

TEST(ScreenChangeJourney, WindowFitsTheScreenWithUsableDocks) {
    const QSize screen = wantedScreen();
    ASSERT_EQ(QApplication::primaryScreen()->geometry().size(), screen);
    // The bundled samples, copied: the journey's store is a fresh one.
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("samples.wsdb"));
    ASSERT_TRUE(QFile::copy(
        QStringLiteral(WARPSCOPE_SOURCE_DIR "/resources/samples/h200-captures.wsdb"), db));

    MainWindow window;
    QSignalSpy settled(&window, &MainWindow::layoutSettled);
    QSignalSpy charts(&window, &MainWindow::chartsShown);
    window.selectRuns({1, 2});
    window.show();
    window.openStore(db);
    ASSERT_TRUE(settled.count() > 0 || settled.wait(20000));
    ASSERT_TRUE(charts.count() > 0 || charts.wait(60000));
    QTest::qWait(50);  // the charts' own relayout after their data

    const QSize avail = QApplication::primaryScreen()->availableGeometry().size();
    EXPECT_LE(window.width(), avail.width());
    EXPECT_LE(window.height(), avail.height());
    EXPECT_GE(window.width(),
              std::min(avail.width(), 1200));  // not left at a smaller screen's size
    EXPECT_GE(dockWidth(window, "runsDock"), LayoutMinimums::runsDockWidth);
    EXPECT_GE(dockWidth(window, "detailsDock"), LayoutMinimums::detailsDockWidth);
    EXPECT_GE(dockHeight(window, "chartsDock"), LayoutMinimums::chartsDockHeight);
    EXPECT_GE(window.centralWidget()->height(), LayoutMinimums::centralHeight);
    EXPECT_GE(window.charts()->currentWidget()->height(), LayoutMinimums::chartsDockHeight - 60);

    const QString shot = qEnvironmentVariable("WS_JOURNEY_SHOT");
    if (!shot.isEmpty()) window.grab().save(shot);
    std::printf(
        "journey: screen %dx%d: window %dx%d, runs %d, details %d, charts %d, timeline %d\n",
        screen.width(), screen.height(), window.width(), window.height(),
        dockWidth(window, "runsDock"), dockWidth(window, "detailsDock"),
        dockHeight(window, "chartsDock"), window.centralWidget()->height());
    window.close();  // saves the layout, as quitting does
}

}  // namespace
}  // namespace ws::ui

int main(int argc, char** argv) {
    // The screen's size through the offscreen platform's screen description.
    const QSize screen = ws::ui::wantedScreen();
    const QString config = QDir::temp().filePath(
        QStringLiteral("warpscope-journey-screen-%1.json").arg(QCoreApplication::applicationPid()));
    QFile f(config);
    if (!f.open(QIODevice::WriteOnly)) return 2;
    f.write(QStringLiteral(R"({"screens": [{"name": "journey", "x": 0, "y": 0, "width": %1,
        "height": %2, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})")
                .arg(screen.width())
                .arg(screen.height())
                .toUtf8());
    f.close();
    qputenv("QT_QPA_PLATFORM", ("offscreen:configfile=" + config).toUtf8());
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("WarpscopeJourney"));
    Q_INIT_RESOURCE(warpscope);
    ::testing::InitGoogleTest(&argc, argv);
    const int rc = RUN_ALL_TESTS();
    QFile::remove(config);
    return rc;
}
