// MainWindow's docks and their wiring: runs, timeline, details, log, launch,
// ITL outliers, find results and charts.
#include "main_window.h"

#include <memory>
#include <utility>

#include <QDockWidget>
#include <QFontDatabase>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTextBrowser>
#include <QTextCursor>
#include <QVBoxLayout>

#include "advisor/whatif_panel.h"
#include "charts/charts_panel.h"
#include "charts/dashboard_view.h"
#include "charts/summary_tables_page.h"
#include "dashboard_mode.h"
#include "launch/launch_panel.h"
#include "runs_panel.h"
#include "sample_runs.h"
#include "serving/itl_outliers_panel.h"
#include "store/store.h"
#include "timeline/search_matches_list.h"
#include "timeline/timeline_toolbar.h"
#include "timeline/timeline_view.h"
#include "viewmodels/store_loader.h"

namespace ws::ui {

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
               {QStringLiteral("label"), QString::number(id), QStringLiteral("--db"), storePath_,
                QStringLiteral("--"), label},
               false);
    });
    connect(runs_, &RunsPanel::tagsRequested, this, [this](RunId id, const QString& tags) {
        runCli(tr("Edit Tags"), tr("Tagging run %1…").arg(id),
               {QStringLiteral("tag"), QString::number(id), QStringLiteral("--db"), storePath_,
                QStringLiteral("--"), tags},
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
    auto* runsDock = addDock(tr("Runs"), QStringLiteral("runsDock"), runs_, Qt::LeftDockWidgetArea);

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
        startRunSearch(text);
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
                if (charts_->window().kind != WindowChoice::Kind::Span)
                    windowBeforeSpan_ = charts_->window();
                charts_->setWindow(span);
                charts_->setCurrentWidget(charts_->tables());
                reloadAnalysis();
            });
    connect(timeline_, &TimelineView::rangeCleared, this, [this] {
        if (restoreWindowBeforeSpan()) reloadAnalysis();
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
    auto* detailsDock =
        addDock(tr("Details"), QStringLiteral("detailsDock"), details_, Qt::RightDockWidgetArea);

    log_ = new QPlainTextEdit(this);
    log_->setReadOnly(true);
    log_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    log_->setPlaceholderText(tr("The selected run's program output appears here."));
    auto* logDock = addDock(tr("Log"), QStringLiteral("logDock"), log_, Qt::RightDockWidgetArea);
    launch_ = new LaunchPanel(this);
    auto* launchDock = new QDockWidget(tr("Launch"), this);
    launchDock->setObjectName(QStringLiteral("launchDock"));
    // In a scroll area: the panel's form is ~560 px wide at its narrowest, and
    // as a dock tabbed with the details it held the whole right side that wide
    // (the runs list got what was left on a 1366×768 screen).
    auto* launchScroll = new QScrollArea(launchDock);
    launchScroll->setWidgetResizable(true);
    launchScroll->setFrameShape(QFrame::NoFrame);
    launchScroll->setWidget(launch_);
    launchDock->setWidget(launchScroll);
    addDockWidget(Qt::RightDockWidgetArea, launchDock);
    outliers_ = new ItlOutliersPanel(this);
    auto* outliersDock = addDock(tr("ITL outliers"), QStringLiteral("outliersDock"), outliers_,
                                 Qt::RightDockWidgetArea);
    connect(outliers_, &ItlOutliersPanel::intervalActivated, this,
            [this](RunId run, std::int64_t beginNs, std::int64_t endNs) {
                showInterval(run, beginNs, endNs);
            });
    whatIf_ = new WhatIfPanel(this);
    auto* whatIfDock =
        addDock(tr("What-if"), QStringLiteral("whatIfDock"), whatIf_, Qt::RightDockWidgetArea);
    connect(whatIf_, &WhatIfPanel::predictRequested, this,
            [this](RunId run, const WhatIfScenario& scenario) {
                loader_->answerWhatIf(storePath_, run, scenario);
            });
    connect(loader_, &StoreLoader::whatIfAnswered, this, [this](const WhatIfAnswer& a) {
        whatIf_->setAnswer(a);
        if (a.run == whatIf_->run()) emit whatIfShown(a.run);
    });
    matches_ = new SearchMatchesList(this);
    auto* matchesDock = addDock(tr("Find Results"), QStringLiteral("matchesDock"), matches_,
                                Qt::RightDockWidgetArea);
    // A whole-run search's list stays while the paged view loads windows.
    connect(timeline_, &TimelineView::searchMatchesChanged, this, [this] {
        if (!matches_->showsRunMatches()) matches_->setMatches(*timeline_);
    });
    connect(matches_, &SearchMatchesList::matchActivated, this, [this](int lane, long event) {
        timeline_->selectEvent(lane, event);
        timeline_->setFocus();
    });
    connect(matches_, &SearchMatchesList::runMatchActivated, this,
            [this](int lane, std::int64_t startNs, std::int64_t endNs) {
                timeline_->revealEvent(lane, startNs, endNs);
                timeline_->setFocus();
            });
    auto searchShown = [this](RunId run, const QString& text) {
        return timeline_->data() && timeline_->data()->run == run && toolbar_->searchText() == text;
    };
    connect(loader_, &StoreLoader::runSearchProgress, this,
            [this, searchShown](RunId run, const QString& text, double fraction) {
                if (!searchShown(run, text)) return;
                matches_->setSearching(text, fraction);
                toolbar_->setInfo(tr("searching %1 %").arg(static_cast<int>(fraction * 100)));
            });
    connect(
        loader_, &StoreLoader::runSearchFound, this,
        [this, searchShown](RunId run, const QString& text,
                            const std::shared_ptr<const EventSearch>& found) {
            if (!searchShown(run, text)) return;
            matches_->setRunMatches(*timeline_->data(), *found, text);
            // The view's own count is of the loaded part only.
            toolbar_->setInfo(
                tr("%1 in the run").arg(QLocale().toString(static_cast<qlonglong>(found->total))));
        });
    // Log, launch, outliers, what-if and find results share the right side with the
    // details, so the timeline gets the full height.
    tabifyDockWidget(detailsDock, logDock);
    tabifyDockWidget(logDock, launchDock);
    tabifyDockWidget(launchDock, outliersDock);
    tabifyDockWidget(outliersDock, whatIfDock);
    tabifyDockWidget(whatIfDock, matchesDock);
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
    auto* chartsDock =
        addDock(tr("Charts"), QStringLiteral("chartsDock"), charts_, Qt::BottomDockWidgetArea);
    resizeDocks({chartsDock}, {330}, Qt::Vertical);

    storeLabel_ = new QLabel(this);
    busyLabel_ = new QLabel(this);
    statusBar()->addWidget(storeLabel_, 1);
    statusBar()->addPermanentWidget(busyLabel_);
}

QDockWidget* MainWindow::addDock(const QString& title, const QString& objectName, QWidget* widget,
                                 Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(objectName);
    dock->setWidget(widget);
    addDockWidget(area, dock);
    return dock;
}

}  // namespace ws::ui
