// MainWindow's menus and their shortcuts (Help ▸ Keyboard Shortcuts reads them).
#include "main_window.h"

#include <memory>
#include <utility>

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QTableView>

#include "charts/chart_style.h"
#include "dashboard_mode.h"
#include "recent_stores.h"
#include "runs_panel.h"
#include "shortcuts_dialog.h"
#include "store/store.h"
#include "theme.h"
#include "timeline/timeline_toolbar.h"
#include "timeline/timeline_view.h"
#include "util/format.h"
#include "util/version.h"
#include "viewmodels/table_export.h"

namespace ws::ui {

void MainWindow::buildActions() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open Store…"), this, &MainWindow::chooseStore);
    open->setShortcut(QKeySequence::Open);
    recent_ = new RecentStores(file->addMenu(tr("Open &Recent")), this);
    connect(recent_, &RecentStores::openRequested, this, &MainWindow::openStore);
    QAction* reload = file->addAction(tr("&Reload"), this, [this] {
        if (!storePath_.isEmpty()) openStore(storePath_);
    });
    reload->setShortcut(QKeySequence::Refresh);
    QAction* importAction = file->addAction(tr("&Import Trace…"), this, &MainWindow::importTrace);
    importAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    importAction->setToolTip(
        tr("Add a run from an Nsight Systems SQLite export, a PyTorch "
           "profiler trace or a vLLM benchmark result"));
    QAction* compactAction = file->addAction(tr("&Compact Store"), this, &MainWindow::compactStore);
    compactAction->setToolTip(
        tr("Rewrite runs recorded before schema 3 in the smaller event format and give "
           "the space of removed runs back to the disk"));
    file->addAction(tr("Export Runs &Table…"), this, [this] {
        QString path =
            QFileDialog::getSaveFileName(this, tr("Export Runs Table"), QStringLiteral("runs.csv"),
                                         tr("CSV (*.csv);;JSON (*.json)"));
        if (path.isEmpty()) return;
        QString problem =
            exportTable(*runs_->view()->model(), path);  // filtered and sorted as shown
        if (!problem.isEmpty()) QMessageBox::warning(this, tr("Export Runs Table"), problem);
    });
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QAction* launchAction =
        file->addAction(tr("&Launch Workload…"), this, &MainWindow::showLaunchPanel);
    launchAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    QAction* traceAction = file->addAction(tr("Export &Trace…"), this, [this] {
        auto run = runs_->focusedRun();
        if (!run || storePath_.isEmpty()) {
            QMessageBox::information(this, tr("Export Trace"), tr("Select a run first."));
            return;
        }
        QString path = QFileDialog::getSaveFileName(
            this, tr("Export Trace"), QStringLiteral("warpscope-run-%1.pftrace").arg(*run),
            tr("Perfetto trace (*.pftrace);;Chrome trace JSON (*.json *.json.gz)"));
        if (!path.isEmpty()) exportTraceTo(*run, path);
    });
    traceAction->setToolTip(
        tr("The shown run as a trace for the Perfetto UI: a track per GPU stream, thread and "
           "counter, with launch flows"));
    QAction* reportAction = file->addAction(tr("Export &Report…"), this, &MainWindow::exportReport);
    reportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    reportAction->setToolTip(
        tr("The shown run's benchmark and optimization report; with two or "
           "more runs selected, the other first one is its baseline"));

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (auto* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());
    QAction* find = view->addAction(tr("&Filter Runs"), this, [this] { runs_->focusFilter(); });
    find->setShortcut(QKeySequence::Find);
    QAction* findKernel =
        view->addAction(tr("Find in &Timeline"), this, [this] { toolbar_->focusSearch(); });
    findKernel->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
    QAction* fitAction =
        view->addAction(tr("&Fit Timeline"), this, [this] { timeline_->fitAll(); });
    fitAction->setShortcut(QKeySequence(Qt::Key_Home));
    fitAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    view->addSeparator();
    dashboardMode_->addActions(file, view);
    QAction* darkAction = view->addAction(tr("&Dark Theme"));
    darkAction->setCheckable(true);
    darkAction->setChecked(chartColors().dark);
    darkAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
    connect(darkAction, &QAction::toggled, this, [](bool dark) {
        applyTheme(dark);
        QSettings().setValue(QStringLiteral("view/dark"), dark);
    });

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* keys = help->addAction(tr("&Keyboard Shortcuts"), this, [this] {
        ShortcutsDialog dialog(*menuBar(), this);
        dialog.exec();
    });
    keys->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Slash));
    help->addAction(tr("&About Warpscope"), this, [this] {
        QMessageBox::about(this, tr("About Warpscope"),
                           tr("<b>Warpscope %1</b><br>A workbench for GPU inference "
                              "optimization: kernel timelines, TTFT/TPOT, roofline and "
                              "occupancy, side by side.")
                               .arg(QString::fromLatin1(kWarpscopeVersion)));
    });
}

void MainWindow::chooseStore() {
    QString dir = storePath_.isEmpty() ? QString() : QFileInfo(storePath_).absolutePath();
    QString path = QFileDialog::getOpenFileName(this, tr("Open Warpscope Store"), dir,
                                                tr("Warpscope stores (*.wsdb);;All files (*)"));
    if (!path.isEmpty()) openStore(path);
}

}  // namespace ws::ui
