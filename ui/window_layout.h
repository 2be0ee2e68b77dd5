// The main window's saved layout (geometry and docks) belongs to the screen
// it was saved on. A layout saved on a 1920×1080 screen and restored on a
// 1366×768 one squeezed the Runs dock to 70 px and the latency CDFs to 10 px,
// and the squeezed layout was then saved again: on another screen the
// window starts from the default layout for that screen instead (sized to
// fit it), and every start, restored or not, ends with each dock at least
// its minimum.
#pragma once

#include <QSize>

class QMainWindow;
class QSettings;

namespace ws::ui {

// The smallest sizes the window keeps usable; a dock below them is widened
// (or heightened) back to them.
struct LayoutMinimums {
    static constexpr int runsDockWidth = 260;     // a run name, status and date side by side
    static constexpr int detailsDockWidth = 300;  // the details' tables without wrapping
    static constexpr int chartsDockHeight = 280;  // a box plot and CDF with axes and legend
    static constexpr int centralHeight = 200;     // the timeline's ruler and a few lanes
};

// What the window is sized for: the available geometry of its screen.
QSize availableScreenSize(const QMainWindow& window);

// Restores geometry and dock state saved on a screen of `screen`'s size;
// false (nothing restored) where none was saved or it was saved on another.
bool restoreWindowLayout(QMainWindow& window, QSettings& settings, QSize screen);
void saveWindowLayout(const QMainWindow& window, QSettings& settings, QSize screen);

// The default layout for a screen: 1600×960, or the whole screen where it is
// smaller (at once, before the window is shown); then, once it is laid out at
// that size, a quarter of the width for the runs and for the details and two
// fifths of the height (330 px at least) for the charts.
void applyDefaultSize(QMainWindow& window, QSize screen);
void applyDefaultDocks(QMainWindow& window);

// The runs, details and charts docks at least their minimums (the central
// timeline keeps its own). The window's size is left as it is: a restored
// one was saved on this screen, a default one was fitted to it.
void enforceLayoutMinimums(QMainWindow& window);

}  // namespace ws::ui
