#include "window_layout.h"

#include <algorithm>

#include <QDockWidget>
#include <QMainWindow>
#include <QScreen>
#include <QSettings>

namespace ws::ui {

namespace {

const QString kGeometryKey = QStringLiteral("window/geometry");
const QString kStateKey = QStringLiteral("window/state");
const QString kScreenKey = QStringLiteral("window/screen");

QDockWidget* dock(QMainWindow& window, const char* name) {
    return window.findChild<QDockWidget*>(QLatin1String(name));
}

bool shownIn(QMainWindow& window, QDockWidget* d, Qt::DockWidgetArea area) {
    return d && d->isVisible() && !d->isFloating() && window.dockWidgetArea(d) == area;
}

}  // namespace

QSize availableScreenSize(const QMainWindow& window) {
    if (const QScreen* s = window.screen()) return s->availableGeometry().size();
    return {1600, 960};
}

bool restoreWindowLayout(QMainWindow& window, QSettings& settings, QSize screen) {
    if (!settings.contains(kGeometryKey) || settings.value(kScreenKey).toSize() != screen)
        return false;
    window.restoreGeometry(settings.value(kGeometryKey).toByteArray());
    window.restoreState(settings.value(kStateKey).toByteArray());
    return true;
}

void saveWindowLayout(const QMainWindow& window, QSettings& settings, QSize screen) {
    settings.setValue(kGeometryKey, window.saveGeometry());
    settings.setValue(kStateKey, window.saveState());
    settings.setValue(kScreenKey, screen);
}

void applyDefaultSize(QMainWindow& window, QSize screen) {
    window.resize(QSize(1600, 960).boundedTo(screen));
}

void applyDefaultDocks(QMainWindow& window) {
    auto* runs = dock(window, "runsDock");
    auto* details = dock(window, "detailsDock");
    if (runs && details)
        window.resizeDocks({runs, details},
                           {std::max(LayoutMinimums::runsDockWidth + 40, window.width() / 4),
                            std::max(LayoutMinimums::detailsDockWidth + 40, window.width() / 4)},
                           Qt::Horizontal);
    // The charts as tall as they were asked for before (330 px), more on a
    // taller window.
    if (auto* charts = dock(window, "chartsDock"))
        window.resizeDocks({charts}, {std::max(330, window.height() * 2 / 5)}, Qt::Vertical);
}

void enforceLayoutMinimums(QMainWindow& window) {
    QList<QDockWidget*> wide;
    QList<int> widths;
    auto* runs = dock(window, "runsDock");
    if (shownIn(window, runs, Qt::LeftDockWidgetArea) &&
        runs->width() < LayoutMinimums::runsDockWidth) {
        wide << runs;
        widths << LayoutMinimums::runsDockWidth;
    }
    auto* details = dock(window, "detailsDock");
    if (shownIn(window, details, Qt::RightDockWidgetArea) &&
        details->width() < LayoutMinimums::detailsDockWidth) {
        wide << details;
        widths << LayoutMinimums::detailsDockWidth;
    }
    if (!wide.isEmpty()) window.resizeDocks(wide, widths, Qt::Horizontal);
    auto* charts = dock(window, "chartsDock");
    if (shownIn(window, charts, Qt::BottomDockWidgetArea) && window.centralWidget()) {
        // Charts at least their minimum, the timeline above at least its own;
        // where the two cannot both be had, the timeline gives way first.
        const int total = charts->height() + window.centralWidget()->height();
        const int low = std::min(LayoutMinimums::chartsDockHeight,
                                 std::max(0, total - LayoutMinimums::centralHeight));
        const int high = std::max(low, total - LayoutMinimums::centralHeight);
        const int wanted = std::clamp(charts->height(), low, high);
        if (wanted != charts->height()) window.resizeDocks({charts}, {wanted}, Qt::Vertical);
    }
}

}  // namespace ws::ui
