#include "main_window.h"

#include <memory>
#include <utility>

#include <QCloseEvent>
#include <QDockWidget>
#include <QFileInfo>
#include <QSettings>
#include <QTableView>
#include <QTimer>

#include "advisor/whatif_panel.h"
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
#include "window_layout.h"

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
    connect(loader_, &StoreLoader::collectivesLoaded, this,
            [this](RunId run, std::shared_ptr<const CollectiveReport> report, qint64 originNs) {
                charts_->setCollectives(run, std::move(report), originNs);
                emit collectivesShown(charts_->collectivesShown());
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
    // A paged run's window of single events: asked for by the view, loaded
    // off the GUI thread, shown if the view still holds that run.
    connect(timeline_, &TimelineView::detailWanted, this,
            [this](std::int64_t beginNs, std::int64_t endNs) {
                loader_->loadTimelineDetail(storePath_, timeline_->sharedData(), beginNs, endNs);
            });
    connect(loader_, &StoreLoader::timelineDetailLoaded, timeline_, &TimelineView::setDetail);
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
                startRunSearch(search);
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

    // The layout saved on this screen, else this screen's default (fitted to
    // it); either way, once shown, each dock keeps its minimum (window_layout.h).
    QSettings settings;
    const QSize screen = availableScreenSize(*this);
    const bool restored = restoreWindowLayout(*this, settings, screen);
    if (!restored) applyDefaultSize(*this, screen);
    // Dock sizes asked for before the window is laid out at its size are
    // lost, and a second request replaces a first still pending: the default
    // docks go in once the window is shown, the minimums once that is laid out.
    QTimer::singleShot(0, this, [this, restored] {
        if (!restored) applyDefaultDocks(*this);
        QTimer::singleShot(0, this, [this] {
            enforceLayoutMinimums(*this);
            emit layoutSettled();
        });
    });
}

MainWindow::~MainWindow() = default;

void MainWindow::setDashboardShown(bool on) {
    dashboardMode_->setShown(on);
}

bool MainWindow::dashboardShown() const {
    return dashboardMode_->shown();
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
        whatIf_->setRun(0);
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
        tr("This store has no runs yet. <a href=\"samples\">Open the 22 sample runs</a> "
           "recorded on NVIDIA H200 and H100 GPUs (PyTorch generate, a Triton kernel, the "
           "built-in Llama-3.2-1B decoder's variants and its counters, the GEMM and GEMV "
           "ladders, the built-in server under load and a concurrency sweep of it), use the "
           "Launch panel, or record a program with <code>warpscope-cli record -- "
           "PROGRAM</code>."));
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
    // A span selected on one run's timeline is not another run's window.
    if (!timeline_->data() || timeline_->data()->run != id) restoreWindowBeforeSpan();
    loader_->loadDetails(storePath_, id);
    const auto ids = comparedRuns();
    if (toolbar_->stacked() && ids.size() >= 2)
        loader_->loadStackedTimeline(storePath_, ids[0], ids[1], toolbar_->alignAt());
    else
        loader_->loadTimeline(storePath_, id);
    reloadAnalysis();
    // Not in reloadAnalysis: collectives cover the whole run, and a new
    // kernel window (a span selected on the timeline) would read every kernel again.
    if (!ids.empty()) loader_->loadCollectives(storePath_, ids.front());
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

bool MainWindow::restoreWindowBeforeSpan() {
    if (charts_->window().kind != WindowChoice::Kind::Span) return false;
    charts_->setWindow(windowBeforeSpan_.value_or(WindowChoice{}));
    windowBeforeSpan_.reset();
    return true;
}

void MainWindow::reloadAnalysis() {
    const auto ids = comparedRuns();
    if (ids.empty() || storePath_.isEmpty()) return;
    loader_->loadAnalysis(storePath_, ids, charts_->window());
    loader_->loadSweeps(storePath_, ids);
}

void MainWindow::setStackedTimeline(bool on, const QString& alignAt) {
    toolbar_->setAlignAt(alignAt);
    if (toolbar_->stacked() == on)
        onSelectionChanged();
    else
        toolbar_->setStacked(on);  // reloads through stackChanged
}

void MainWindow::startRunSearch(const QString& text) {
    const TimelineData* shown = timeline_->data();
    if (!shown || !shown->paged || text.isEmpty()) {
        loader_->cancelRunSearch();
        matches_->setMatches(*timeline_);
        return;
    }
    matches_->setSearching(text, 0);
    toolbar_->setInfo(tr("searching…"));
    // The view shows an overview until zoomed: the list is where matches are.
    if (auto* dock = qobject_cast<QDockWidget*>(matches_->parentWidget())) dock->raise();
    loader_->searchRun(storePath_, shown->run, text);
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

void MainWindow::raiseDock(const QString& objectName) {
    if (auto* dock = findChild<QDockWidget*>(objectName)) {
        dock->show();
        dock->raise();
    }
}

void MainWindow::showOutliersPanel() {
    raiseDock(QStringLiteral("outliersDock"));
}

void MainWindow::showWhatIfPanel() {
    raiseDock(QStringLiteral("whatIfDock"));
}

void MainWindow::showLaunchPanel() {
    raiseDock(QStringLiteral("launchDock"));
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

void MainWindow::onDetailsLoaded(const RunDetails& d) {
    if (!kernelShownSinceRunChosen_) details_->setHtml(runDetailsHtml(d));
    log_->setPlainText(QString::fromStdString(d.log));
    outliers_->setRun(d.run.id, d.itlOutliers);
    if (whatIf_->run() != d.run.id) {  // a run newly shown: rank what it suggests
        whatIf_->setRun(d.run.id);
        loader_->answerWhatIf(storePath_, d.run.id, std::nullopt);
    }
    emit detailsShown(d.run.id);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    // The docks the dashboard set aside come back first, or the next start
    // would open without them.
    setDashboardShown(false);
    QSettings settings;
    saveWindowLayout(*this, settings, availableScreenSize(*this));
    QMainWindow::closeEvent(event);
}

}  // namespace ws::ui
