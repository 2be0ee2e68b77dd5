#include "dashboard_mode.h"

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QStackedWidget>

#include "charts/dashboard_view.h"
#include "charts/export_size_dialog.h"

namespace ws::ui {

DashboardMode::DashboardMode(QMainWindow* window, QStackedWidget* centre, DashboardView* view)
    : QObject(window), window_(window), centre_(centre), view_(view) {}

void DashboardMode::addActions(QMenu* file, QMenu* view) {
    QAction* exportAction =
        file->addAction(tr("Export &Dashboard…"), this, &DashboardMode::exportDashboard);
    exportAction->setToolTip(
        tr("The dashboard of the selected runs as one PNG, SVG or PDF, "
           "with a header naming the runs, GPU, dates and store"));
    toggle_ = view->addAction(tr("&Dashboard"));
    toggle_->setCheckable(true);
    toggle_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    toggle_->setToolTip(
        tr("Latency, comparison, roofline and occupancy side by side in the "
           "centre; again for the timeline"));
    connect(toggle_, &QAction::toggled, this, &DashboardMode::setShown);
}

bool DashboardMode::shown() const {
    return centre_->currentWidget() == view_;
}

void DashboardMode::setShown(bool on) {
    if (toggle_ && toggle_->isChecked() != on) {
        toggle_->setChecked(on);  // comes back here through toggled
        return;
    }
    if (on == shown()) return;
    if (on) {
        setAside_.clear();
        for (auto* dock : window_->findChildren<QDockWidget*>()) {
            auto area = window_->dockWidgetArea(dock);
            bool aside = dock->objectName() == QLatin1String("chartsDock") ||
                         area == Qt::RightDockWidgetArea;
            // isHidden, not isVisible: tabified docks behind another count,
            // and so do docks of a window not shown yet (--dashboard).
            if (aside && !dock->isHidden()) {
                setAside_.push_back(dock);
                dock->hide();
            }
        }
        centre_->setCurrentWidget(view_);
    } else {
        centre_->setCurrentIndex(0);
        for (auto& dock : setAside_)
            if (dock) dock->show();
        setAside_.clear();
    }
    emit shownChanged(on);
}

void DashboardMode::exportDashboard() {
    QString path = QFileDialog::getSaveFileName(
        window_, tr("Export Dashboard"), QStringLiteral("dashboard.png"),
        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
    if (path.isEmpty()) return;
    QSize size = ExportSizeDialog::ask(tr("Dashboard"), window_);
    if (size.isEmpty()) return;
    QString problem = view_->exportTo(path, size.width(), size.height());
    if (!problem.isEmpty()) QMessageBox::warning(window_, tr("Export Dashboard"), problem);
}

}  // namespace ws::ui
