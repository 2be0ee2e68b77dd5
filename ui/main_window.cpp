#include "main_window.h"

#include <memory>
#include <utility>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QScreen>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTableView>
#include <QTextBrowser>
#include <QTextCursor>
#include <QTimer>
#include <QVBoxLayout>

#include "charts/chart_style.h"
#include "charts/charts_panel.h"
#include "charts/dashboard_view.h"
#include "charts/latency_chart.h"
#include "charts/request_timeline_chart.h"
#include "charts/roofline_chart.h"
#include "charts/summary_tables_page.h"
#include "dashboard_mode.h"
#include "export/report_renderer.h"
#include "launch/launch_panel.h"
#include "recent_stores.h"
#include "runs_panel.h"
#include "sample_runs.h"
#include "serving/itl_outliers_panel.h"
#include "shortcuts_dialog.h"
#include "store/store.h"
#include "theme.h"
#include "timeline/search_matches_list.h"
#include "timeline/timeline_toolbar.h"
#include "timeline/timeline_view.h"
#include "util/format.h"
#include "util/version.h"
#include "viewmodels/cli_job.h"
#include "viewmodels/run_details_html.h"
#include "viewmodels/run_list_model.h"
#include "viewmodels/store_loader.h"
#include "viewmodels/table_export.h"

namespace ws::ui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), runModel_(new RunListModel(this)), loader_(new StoreLoader(this)) {
    setWindowTitle(QStringLiteral("Warpscope"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/warpscope.svg")));
    setDockNestingEnabled(true);
    buildPanels();
    buildActions();

    connect(loader_, &StoreLoader::runsLoaded, this, &MainWindow::onRunsLoaded);
    connect(loader_, &StoreLoader::detailsLoaded, this, &MainWindow::onDetailsLoaded);
    connect(loader_, &StoreLoader::kernelLoaded, this, [this](const KernelDetails& k) {
        details_->setHtml(kernelDetailsHtml(k));
        kernelShownSinceRunChosen_ = true;
        emit kernelShown(k.kernel.correlationId);
    });
    connect(loader_, &StoreLoader::analysisLoaded, this,
            [this](const std::vector<RunAnalysis>& runs) {
                charts_->setRuns(runs);
                dashboard_->setRuns(runs);
                emit chartsShown(static_cast<int>(runs.size()));
            });
    connect(loader_, &StoreLoader::sweepsLoaded, this,
            [this](const std::vector<SweepTable>& sweeps) {
                charts_->setSweeps(sweeps);
                emit sweepsShown(static_cast<int>(sweeps.size()));
            });
    connect(charts_, &ChartsPanel::windowChanged, this, &MainWindow::reloadAnalysis);
    connect(charts_->requestChart(), &RequestTimelineChart::intervalClicked, this,
            [this](RunId run, std::int64_t beginNs, std::int64_t endNs) {
                showInterval(run, beginNs, endNs);
            });
    connect(charts_->latencyChart(), &LatencyChart::requestClicked, this,
            &MainWindow::showInterval);
    connect(dashboard_->latencyChart(), &LatencyChart::requestClicked, this,
            &MainWindow::showInterval);
    connect(charts_->rooflineChart(), &RooflineChart::pointClicked, this,
            [this](RunId run, const QString& name, const QString&) { findInTimeline(run, name); });
    connect(dashboard_->rooflineChart(), &RooflineChart::pointClicked, this,
            [this](RunId run, const QString& name, const QString&) {
                setDashboardShown(false);
                findInTimeline(run, name);
            });
    connect(loader_, &StoreLoader::timelineLoaded, this,
            [this](std::shared_ptr<const TimelineData> timeline) {
                timeline_->setData(timeline);
                // What the toolbar said was about the last timeline: a search
                // carries over with this run's match count, a selection does not.
                const QString search = toolbar_->searchText();
                toolbar_->setInfo(search.isEmpty()
                                      ? QString()
                                      : tr("%n match(es)", nullptr,
                                           static_cast<int>(timeline_->setSearch(search))));
                if (findAfterLoad_) timeline_->findNext();
                findAfterLoad_ = false;
                if (intervalAfterLoad_ && intervalAfterLoad_->run == timeline->run)
                    zoomToInterval(intervalAfterLoad_->beginNs, intervalAfterLoad_->endNs,
                                   intervalAfterLoad_->note);
                intervalAfterLoad_.reset();
                emit timelineShown(timeline->run);
            });
    connect(loader_, &StoreLoader::timelineStacked, this, [this](const QString& note) {
        toolbar_->setInfo(note);
        emit timelineStacked(note);
    });
    connect(loader_, &StoreLoader::reportPrepared, this, &MainWindow::onReportPrepared);
    connect(loader_, &StoreLoader::failed, this, [this](const QString& path, const QString& msg) {
        if (path == pendingPath_) pendingPath_.clear();
        showError(msg);
    });
    connect(loader_, &StoreLoader::busyChanged, this,
            [this](bool busy) { busyLabel_->setText(busy ? tr("Loading…") : QString()); });

    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    if (!settings.contains(QStringLiteral("window/geometry"))) {
        // First start: 1600×960, or the whole screen where it is smaller (a
        // 1366×768 laptop), never larger than what can be seen.
        QSize size(1600, 960);
        if (auto* s = screen()) size = size.boundedTo(s->availableGeometry().size());
        resize(size);
        // Dock sizes asked for before the window had its size were lost (the
        // runs list opened ~70 px wide at 1366×768): asked again once shown,
        // a quarter of the width for the runs, a little more for the details.
        QTimer::singleShot(0, this, [this] {
            auto* runs = findChild<QDockWidget*>(QStringLiteral("runsDock"));
            auto* details = findChild<QDockWidget*>(QStringLiteral("detailsDock"));
            if (runs && details)
                resizeDocks({runs, details},
                            {std::max(300, width() / 4), std::max(340, width() / 4)},
                            Qt::Horizontal);
        });
    }
}

MainWindow::~MainWindow() = default;

void MainWindow::setDashboardShown(bool on) {
    dashboardMode_->setShown(on);
}

bool MainWindow::dashboardShown() const {
    return dashboardMode_->shown();
}

void MainWindow::buildPanels() {
    // Runs: a dock on the left, filterable.
    runs_ = new RunsPanel(runModel_, this);
    connect(runs_, &RunsPanel::linkActivated, this, [this](const QString& link) {
        if (link == QLatin1String("samples")) openSamples();
    });
    connect(runs_, &RunsPanel::selectionChanged, this, &MainWindow::onSelectionChanged);
    connect(runs_, &RunsPanel::baselineRequested, this, &MainWindow::setBaseline);
    connect(runs_, &RunsPanel::renameRequested, this, [this](RunId id, const QString& label) {
        runCli(tr("Rename Run"), tr("Renaming run %1…").arg(id),
               {QStringLiteral("label"), QString::number(id), label, QStringLiteral("--db"),
                storePath_},
               false);
    });
    connect(runs_, &RunsPanel::tagsRequested, this, [this](RunId id, const QString& tags) {
        runCli(
            tr("Edit Tags"), tr("Tagging run %1…").arg(id),
            {QStringLiteral("tag"), QString::number(id), tags, QStringLiteral("--db"), storePath_},
            false);
    });
    connect(runs_, &RunsPanel::deleteRequested, this, [this](const std::vector<RunId>& ids) {
        QStringList args{QStringLiteral("rm")};
        for (RunId id : ids)
            args << QString::number(id);
        args << QStringLiteral("--db") << storePath_;
        runCli(tr("Delete Runs"), tr("Deleting %n run(s)…", nullptr, static_cast<int>(ids.size())),
               args, false);
    });
    connect(runs_, &RunsPanel::reportRequested, this, [this](RunId id) { exportReportOf(id); });
    auto* runsDock = new QDockWidget(tr("Runs"), this);
    runsDock->setObjectName(QStringLiteral("runsDock"));
    runsDock->setWidget(runs_);
    addDockWidget(Qt::LeftDockWidgetArea, runsDock);

    // Timeline: the central area, with kernel search above it.
    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(4, 4, 4, 0);
    layout->setSpacing(4);
    toolbar_ = new TimelineToolbar(central);
    timeline_ = new TimelineView(central);
    layout->addWidget(toolbar_);
    layout->addWidget(timeline_, 1);
    // The centre shows the timeline, or the dashboard (Ctrl+D).
    dashboard_ = new DashboardView(this);
    auto* centre = new QStackedWidget(this);
    centre->addWidget(central);
    centre->addWidget(dashboard_);
    setCentralWidget(centre);
    dashboardMode_ = new DashboardMode(this, centre, dashboard_);
    connect(toolbar_, &TimelineToolbar::searchChanged, this, [this](const QString& text) {
        auto n = timeline_->setSearch(text);
        toolbar_->setInfo(text.isEmpty() ? QString()
                                         : tr("%n match(es)", nullptr, static_cast<int>(n)));
    });
    toolbar_->setTimelineView(timeline_);  // its Lanes menu hides and filters lanes
    connect(timeline_, &TimelineView::laneVisibilityChanged, this, [this] {
        // Matches in hidden lanes do not count.
        if (!toolbar_->searchText().isEmpty())
            toolbar_->setInfo(
                tr("%n match(es)", nullptr, static_cast<int>(timeline_->searchMatchCount())));
    });
    // A time range selected on the timeline (Shift+drag) becomes the window of
    // the tables and kernel charts, as Nsight Systems' selection statistics.
    connect(timeline_, &TimelineView::rangeSelected, this,
            [this](std::int64_t beginNs, std::int64_t endNs) {
                const auto* shown = timeline_->data();
                if (!shown) return;
                WindowChoice span;
                span.kind = WindowChoice::Kind::Span;
                // Before the first record there is nothing to count: a span
                // from there (over requests that arrived earlier) starts at 0.
                span.fromNs = std::max<std::int64_t>(0, beginNs - shown->firstRecordNs);
                span.toNs = endNs - shown->firstRecordNs;
                if (span.toNs <= span.fromNs) return;
                charts_->setWindow(span);
                charts_->setCurrentWidget(charts_->tables());
                reloadAnalysis();
            });
    connect(timeline_, &TimelineView::rangeCleared, this, [this] {
        if (charts_->window().kind != WindowChoice::Kind::Span) return;
        charts_->setWindow(WindowChoice{});
        reloadAnalysis();
    });
    connect(toolbar_, &TimelineToolbar::findNext, timeline_, &TimelineView::findNext);
    connect(toolbar_, &TimelineToolbar::fitRequested, timeline_, &TimelineView::fitAll);
    connect(toolbar_, &TimelineToolbar::stackChanged, this, [this] { onSelectionChanged(); });
    connect(timeline_, &TimelineView::eventSelected, this,
            [this](int lane, long event, const QString& description) {
                toolbar_->setInfo(QString(description).replace('\n', QStringLiteral("  ·  ")));
                // A kernel's launch configuration and occupancy come from the store.
                const auto* shown = timeline_->data();
                if (!shown || lane < 0) return;
                const auto& l = shown->lanes[static_cast<std::size_t>(lane)];
                if (l.kind == LaneKind::Kernels)
                    loader_->loadKernel(
                        storePath_, l.run ? l.run : shown->run, l.laneId,
                        l.events.start(static_cast<std::size_t>(event)) - l.shiftNs);
            });

    details_ = new QTextBrowser(this);
    details_->setOpenLinks(false);
    details_->setPlaceholderText(tr("Select a run to see its details."));
    auto* detailsDock = new QDockWidget(tr("Details"), this);
    detailsDock->setObjectName(QStringLiteral("detailsDock"));
    detailsDock->setWidget(details_);
    addDockWidget(Qt::RightDockWidgetArea, detailsDock);

    log_ = new QPlainTextEdit(this);
    log_->setReadOnly(true);
    log_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    log_->setPlaceholderText(tr("The selected run's program output appears here."));
    auto* logDock = new QDockWidget(tr("Log"), this);
    logDock->setObjectName(QStringLiteral("logDock"));
    logDock->setWidget(log_);
    addDockWidget(Qt::RightDockWidgetArea, logDock);
    launch_ = new LaunchPanel(this);
    auto* launchDock = new QDockWidget(tr("Launch"), this);
    launchDock->setObjectName(QStringLiteral("launchDock"));
    launchDock->setWidget(launch_);
    addDockWidget(Qt::RightDockWidgetArea, launchDock);
    outliers_ = new ItlOutliersPanel(this);
    auto* outliersDock = new QDockWidget(tr("ITL outliers"), this);
    outliersDock->setObjectName(QStringLiteral("outliersDock"));
    outliersDock->setWidget(outliers_);
    addDockWidget(Qt::RightDockWidgetArea, outliersDock);
    connect(outliers_, &ItlOutliersPanel::intervalActivated, this,
            [this](RunId run, std::int64_t beginNs, std::int64_t endNs) {
                showInterval(run, beginNs, endNs);
            });
    matches_ = new SearchMatchesList(this);
    auto* matchesDock = new QDockWidget(tr("Find Results"), this);
    matchesDock->setObjectName(QStringLiteral("matchesDock"));
    matchesDock->setWidget(matches_);
    addDockWidget(Qt::RightDockWidgetArea, matchesDock);
    connect(timeline_, &TimelineView::searchMatchesChanged, this,
            [this] { matches_->setMatches(*timeline_); });
    connect(matches_, &SearchMatchesList::matchActivated, this, [this](int lane, long event) {
        timeline_->selectEvent(lane, event);
        timeline_->setFocus();
    });
    // Log, launch, outliers and find results share the right side with the
    // details, so the timeline gets the full height.
    tabifyDockWidget(detailsDock, logDock);
    tabifyDockWidget(logDock, launchDock);
    tabifyDockWidget(launchDock, outliersDock);
    tabifyDockWidget(outliersDock, matchesDock);
    detailsDock->raise();
    connect(launch_, &LaunchPanel::logOutput, this, [this](const QString& text) {
        log_->moveCursor(QTextCursor::End);
        log_->insertPlainText(text);
    });
    connect(launch_, &LaunchPanel::runFinished, this, [this](bool, const QString& summary) {
        statusBar()->showMessage(summary, 15000);
        if (!storePath_.isEmpty()) openStore(storePath_);  // shows the new run
    });
    resizeDocks({runsDock, detailsDock}, {330, 380}, Qt::Horizontal);

    charts_ = new ChartsPanel(this);
    auto* chartsDock = new QDockWidget(tr("Charts"), this);
    chartsDock->setObjectName(QStringLiteral("chartsDock"));
    chartsDock->setWidget(charts_);
    addDockWidget(Qt::BottomDockWidgetArea, chartsDock);
    resizeDocks({chartsDock}, {330}, Qt::Vertical);

    storeLabel_ = new QLabel(this);
    busyLabel_ = new QLabel(this);
    statusBar()->addWidget(storeLabel_, 1);
    statusBar()->addPermanentWidget(busyLabel_);
}

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

    QAction* launchAction = file->addAction(tr("&Launch Workload…"), this, [this] {
        if (auto* dock = findChild<QDockWidget*>(QStringLiteral("launchDock"))) {
            dock->show();
            dock->raise();
        }
    });
    launchAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
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

void MainWindow::openStore(const QString& path) {
    pendingPath_ = path;
    loader_->loadRuns(path);
}

void MainWindow::selectRun(RunId id) {
    selectRuns({id});
}

void MainWindow::selectRuns(const std::vector<RunId>& ids) {
    if (ids.empty()) return;
    if (runModel_->rowOfRun(ids.front()) < 0) {
        pendingSelection_ = ids;
        return;
    }
    runs_->selectRuns(ids);
}

QTableView* MainWindow::runView() const {
    return runs_->view();
}

QString MainWindow::detailsText() const {
    return details_->toPlainText();
}
QString MainWindow::noticeText() const {
    return runs_->noticeText();
}

QString MainWindow::errorText() const {
    return runs_->noticeShown() ? runs_->noticeText() : QString();
}

void MainWindow::showError(const QString& message) {
    runs_->showError(message);
    statusBar()->showMessage(message, 10000);
    emit loadFailed(message);
}

void MainWindow::onRunsLoaded(const QString& path, const std::vector<RunInfo>& runs,
                              const std::vector<RunId>& recovered) {
    bool sameStore = path == storePath_;
    std::vector<RunId> selected;
    std::optional<RunId> focused;
    if (sameStore) {
        selected = runs_->selectedRuns();
        focused = runs_->focusedRun();
    }
    storePath_ = path;
    launch_->setStorePath(path);
    dashboard_->setStorePath(path);
    pendingPath_.clear();
    runs_->clearNotice();
    runModel_->setRuns(runs);
    const QVariant pinned = QSettings().value(QStringLiteral("baseline/") + path);
    runModel_->setBaseline(pinned.isValid() ? std::optional<RunId>(pinned.toLongLong())
                                            : std::nullopt);
    if (!sameStore) {
        details_->clear();
        log_->clear();
    }
    setWindowTitle(QStringLiteral("%1 — Warpscope").arg(QFileInfo(path).fileName()));
    storeLabel_->setText(tr("%1 — %n run(s)", nullptr, static_cast<int>(runs.size())).arg(path));
    if (runs.empty()) offerSamples();
    if (!recovered.empty())
        statusBar()->showMessage(tr("%n run(s) whose recorder had died were marked killed", nullptr,
                                    static_cast<int>(recovered.size())),
                                 10000);
    recent_->remember(path);
    if (!pendingSelection_.empty()) {
        selected = pendingSelection_;
        pendingSelection_.clear();
    }
    // The focused run stays the focused run across reloads (it is listed
    // first for selectRuns); a run that is gone drops out.
    if (focused && std::find(selected.begin(), selected.end(), *focused) != selected.end()) {
        selected.erase(std::find(selected.begin(), selected.end(), *focused));
        selected.insert(selected.begin(), *focused);
    }
    std::erase_if(selected, [this](RunId id) { return runModel_->rowOfRun(id) < 0; });
    if (!selected.empty())
        selectRuns(selected);
    else if (!runs.empty())
        runs_->selectFirstRow();
    emit storeLoaded(path);
}

void MainWindow::offerSamples() {
    if (bundledSampleStore().isEmpty()) return;
    runs_->showHint(
        tr("This store has no runs yet. <a href=\"samples\">Open the sample runs</a> recorded "
           "on an NVIDIA H200 (PyTorch generate at batch 1 and 4, a Triton kernel, a CUDA "
           "fixture), or record one with <code>warpscope-cli record -- PROGRAM</code>."));
}

void MainWindow::openSamples() {
    QString error;
    QString copy = userCopyOfSamples(&error);
    if (copy.isEmpty())
        showError(error);
    else
        openStore(copy);
}

void MainWindow::onSelectionChanged() {
    auto focused = runs_->focusedRun();
    if (!focused || storePath_.isEmpty()) return;
    const RunId id = *focused;
    kernelShownSinceRunChosen_ = false;
    loader_->loadDetails(storePath_, id);
    const auto ids = comparedRuns();
    if (toolbar_->stacked() && ids.size() >= 2)
        loader_->loadStackedTimeline(storePath_, ids[0], ids[1], toolbar_->alignAt());
    else
        loader_->loadTimeline(storePath_, id);
    reloadAnalysis();
}

std::vector<RunId> MainWindow::comparedRuns() const {
    // The charts compare every selected run, in the order of their ids.
    std::vector<RunId> ids = runs_->selectedRuns();
    std::sort(ids.begin(), ids.end());
    // A pinned baseline comes first: every comparison is made against it.
    if (auto base = runModel_->baseline()) {
        ids.erase(std::remove(ids.begin(), ids.end(), *base), ids.end());
        ids.insert(ids.begin(), *base);
    }
    return ids;
}

void MainWindow::reloadAnalysis() {
    const auto ids = comparedRuns();
    if (ids.empty() || storePath_.isEmpty()) return;
    loader_->loadAnalysis(storePath_, ids, charts_->window());
    loader_->loadSweeps(storePath_, ids);
}

void MainWindow::exportReport() {
    auto focused = runs_->focusedRun();
    if (!focused || storePath_.isEmpty()) {
        QMessageBox::information(this, tr("Export Report"), tr("Select a run first."));
        return;
    }
    exportReportOf(*focused);
}

void MainWindow::exportReportOf(RunId run) {
    // Against the pinned baseline, else the lowest other selected run.
    std::optional<RunId> baseline = runModel_->baseline();
    if (!baseline)
        for (RunId id : runs_->selectedRuns())
            if (id != run && (!baseline || id < *baseline)) baseline = id;
    if (baseline == run) baseline.reset();
    QString path = QFileDialog::getSaveFileName(
        this, tr("Export Report"), QStringLiteral("warpscope-run-%1.html").arg(run),
        tr("HTML page (*.html);;PDF document (*.pdf);;Markdown (*.md)"));
    if (path.isEmpty()) return;
    exportReportTo(run, baseline, path);
}

void MainWindow::exportReportTo(RunId run, std::optional<RunId> baseline, const QString& path) {
    // The store work runs as a loader job; charts (widgets) and the file are
    // made here once it is done. A newer export supersedes a pending one.
    reportPath_ = path;
    statusBar()->showMessage(tr("Preparing the report of run %1…").arg(run));
    loader_->prepareReport(storePath_, run, baseline);
}

void MainWindow::onReportPrepared(const std::shared_ptr<const ReportInput>& input) {
    QString path = std::exchange(reportPath_, QString());
    if (path.isEmpty() || !input) return;
    statusBar()->showMessage(tr("Writing %1…").arg(QFileInfo(path).fileName()));
    QString error = writeReportFile(*input, QFileInfo(path).suffix(), path);
    if (!error.isEmpty()) {
        statusBar()->clearMessage();
        QMessageBox::warning(this, tr("Export Report"), error);
    } else {
        statusBar()->showMessage(tr("Report written to %1").arg(path), 8000);
        emit reportWritten(path);
    }
}

void MainWindow::setStackedTimeline(bool on, const QString& alignAt) {
    toolbar_->setAlignAt(alignAt);
    if (toolbar_->stacked() == on)
        onSelectionChanged();
    else
        toolbar_->setStacked(on);  // reloads through stackChanged
}

void MainWindow::findInTimeline(RunId run, const QString& name) {
    toolbar_->setSearchText(name);  // runs the search on the shown timeline
    if (timeline_->data() && timeline_->data()->run == run) {
        timeline_->findNext();
        timeline_->setFocus();
        return;
    }
    // Another selected run: show its timeline, then select the first match.
    findAfterLoad_ = true;
    loader_->loadTimeline(storePath_, run);
}

void MainWindow::setBaseline(std::optional<RunId> run) {
    runModel_->setBaseline(run);
    QSettings settings;
    if (runModel_->baseline())
        settings.setValue(QStringLiteral("baseline/") + storePath_,
                          QVariant::fromValue<qlonglong>(*runModel_->baseline()));
    else
        settings.remove(QStringLiteral("baseline/") + storePath_);
    onSelectionChanged();
}

void MainWindow::showOutliersPanel() {
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("outliersDock"))) {
        dock->show();
        dock->raise();
    }
}

void MainWindow::showInterval(RunId run, std::int64_t beginNs, std::int64_t endNs,
                              const QString& note) {
    setDashboardShown(false);
    if (timeline_->data() && timeline_->data()->run == run) {
        zoomToInterval(beginNs, endNs, note);
        return;
    }
    intervalAfterLoad_ = PendingInterval{run, beginNs, endNs, note};
    loader_->loadTimeline(storePath_, run);
}

void MainWindow::zoomToInterval(std::int64_t beginNs, std::int64_t endNs, const QString& note) {
    // Some context either side: the step before the interval and the one after.
    const std::int64_t pad = std::max<std::int64_t>((endNs - beginNs) / 2, 1000);
    timeline_->zoomTo(beginNs - pad, endNs + pad);
    timeline_->markInterval(std::pair{beginNs, endNs});
    timeline_->setFocus();
    toolbar_->setInfo(!note.isEmpty()
                          ? note
                          : tr("ITL %1 ms: between the two tokens' arrivals at the client "
                               "(marks below the lanes)")
                                .arg((endNs - beginNs) / 1e6, 0, 'f', 3));
    emit intervalShown(beginNs, endNs);
}

void MainWindow::importTrace() {
    if (storePath_.isEmpty()) {
        QMessageBox::information(this, tr("Import Trace"), tr("Open a store first."));
        return;
    }
    QString file = QFileDialog::getOpenFileName(
        this, tr("Import Trace"), QString(),
        tr("Traces (*.sqlite *.json);;Nsight Systems SQLite export (*.sqlite);;"
           "PyTorch profiler or vLLM result (*.json);;All files (*)"));
    if (file.isEmpty()) return;
    runCli(tr("Import Trace"), tr("Importing %1…").arg(QFileInfo(file).fileName()),
           {QStringLiteral("import"), file, QStringLiteral("--db"), storePath_});
}

void MainWindow::compactStore() {
    if (storePath_.isEmpty()) return;
    runCli(tr("Compact Store"), tr("Compacting %1…").arg(QFileInfo(storePath_).fileName()),
           {QStringLiteral("compact"), QStringLiteral("--db"), storePath_});
}

void MainWindow::runCli(const QString& title, const QString& busyText, const QStringList& args,
                        bool withProgress) {
    // In warpscope-cli, as launches are: long store work never blocks the
    // window and a bad file can never take it down. Its progress shows in the
    // status bar; its failure reason in a message box.
    auto* job = new CliJob(this);
    busyLabel_->setText(busyText);
    connect(job, &CliJob::message, this, [this, busyText](const progress::Message& m) {
        if (m.kind == progress::Kind::Compact)
            busyLabel_->setText(tr("Compacting: %1 / %2 event chunks").arg(m.done).arg(m.total));
        else if (m.kind == progress::Kind::Import && m.total > 0 && m.done > 0)
            busyLabel_->setText(tr("%1 (%2 of %3)")
                                    .arg(busyText, QString::fromStdString(formatBytes(m.done)),
                                         QString::fromStdString(formatBytes(m.total))));
        else if (m.kind == progress::Kind::Import && m.total > 0)
            busyLabel_->setText(
                tr("%1 (%2)").arg(busyText, QString::fromStdString(formatBytes(m.total))));
    });
    connect(job, &CliJob::finished, this, [this, job, title](bool ok, const QString& summary) {
        busyLabel_->clear();
        job->deleteLater();
        if (!ok) {
            QMessageBox::warning(this, title,
                                 summary.isEmpty() ? tr("%1 failed").arg(title) : summary);
            return;
        }
        statusBar()->showMessage(summary, 10000);
        openStore(storePath_);
    });
    job->start(args, withProgress);
}

void MainWindow::onDetailsLoaded(const RunDetails& d) {
    if (!kernelShownSinceRunChosen_) details_->setHtml(runDetailsHtml(d));
    log_->setPlainText(QString::fromStdString(d.log));
    outliers_->setRun(d.run.id, d.itlOutliers);
    emit detailsShown(d.run.id);
}

void MainWindow::chooseStore() {
    QString dir = storePath_.isEmpty() ? QString() : QFileInfo(storePath_).absolutePath();
    QString path = QFileDialog::getOpenFileName(this, tr("Open Warpscope Store"), dir,
                                                tr("Warpscope stores (*.wsdb);;All files (*)"));
    if (!path.isEmpty()) openStore(path);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    // The docks the dashboard set aside come back first, or the next start
    // would open without them.
    setDashboardShown(false);
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    QMainWindow::closeEvent(event);
}

}  // namespace ws::ui
