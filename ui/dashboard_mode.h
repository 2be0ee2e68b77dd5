// The dashboard in the window's centre instead of the timeline (View ▸
// Dashboard, Ctrl+D; `warpscope --dashboard`), and File ▸ Export Dashboard.
// While it is shown the charts dock and the docks on the right step aside,
// so the grid gets the room; they come back as they were.
#pragma once

#include <QObject>
#include <QPointer>
#include <vector>

class QAction;
class QDockWidget;
class QMainWindow;
class QMenu;
class QStackedWidget;

namespace ws::ui {

class DashboardView;

class DashboardMode : public QObject {
    Q_OBJECT
  public:
    DashboardMode(QMainWindow* window, QStackedWidget* centre, DashboardView* view);
    void addActions(QMenu* file, QMenu* view);
    void setShown(bool on);
    bool shown() const;

  signals:
    void shownChanged(bool on);

  private:
    void exportDashboard();
    QMainWindow* window_;
    QStackedWidget* centre_;
    DashboardView* view_;
    QAction* toggle_ = nullptr;
    std::vector<QPointer<QDockWidget>> setAside_;
};

}  // namespace ws::ui
