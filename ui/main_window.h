// The workbench window: run browser, details and log panels over one store.
#pragma once

#include <functional>

#include <QMainWindow>
#include <QString>
#include <memory>
#include <optional>
#include <vector>

#include "analysis/analysis_window.h"
#include "model/records.h"

class QLabel;
class QPlainTextEdit;
class QTableView;
class QTextBrowser;

namespace ws {
struct ReportInput;
}

namespace ws::ui {

class RunListModel;
class RunsPanel;
class TimelineView;
class TimelineToolbar;
class RecentStores;
class ChartsPanel;
class DashboardView;
class DashboardMode;
class LaunchPanel;
class ItlOutliersPanel;
class WhatIfPanel;
class SearchMatchesList;
class StoreLoader;
struct RunDetails;

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Loads the store at `path` in the background; the current one stays
    // shown until the new one has loaded, and stays if it cannot be opened.
    void openStore(const QString& path);
    QString storePath() const { return storePath_; }

    // For tests and scripting.
    RunListModel* runModel() const { return runModel_; }
    QTableView* runView() const;
    TimelineView* timeline() const { return timeline_; }
    ChartsPanel* charts() const { return charts_; }
    DashboardView* dashboard() const { return dashboard_; }
    // The dashboard in the centre instead of the timeline (View ▸ Dashboard).
    void setDashboardShown(bool on);
    bool dashboardShown() const;
    LaunchPanel* launcher() const { return launch_; }
    ItlOutliersPanel* outliers() const { return outliers_; }
    WhatIfPanel* whatIf() const { return whatIf_; }
    SearchMatchesList* searchMatches() const { return matches_; }
    void showOutliersPanel();  // brings its dock to the front
    void showWhatIfPanel();    // the same for the What-if dock
    void showLaunchPanel();    // and the Launch dock
    // Shows [beginNs, endNs) of `run` on the timeline (loading it when
    // another run is shown), with context either side, and `note` (by default
    // it is read as an ITL) above it; intervalShown follows.
    void showInterval(RunId run, std::int64_t beginNs, std::int64_t endNs,
                      const QString& note = {});
    QString detailsText() const;
    QString errorText() const;
    // The notice shown over the run list (errors, or the offer of sample runs).
    QString noticeText() const;
    void selectRun(RunId id);
    // Pins `run` as the baseline every comparison and report is made against
    // (remembered per store); std::nullopt unpins it.
    void setBaseline(std::optional<RunId> run);
    // Selects several runs (charts compare them); the first is shown in detail.
    void selectRuns(const std::vector<RunId>& ids);
    // Shows `run`'s timeline if it is not shown, and selects the first kernel
    // or range matching `name` (a roofline point's name).
    void findInTimeline(RunId run, const QString& name);
    // Stacks the first two selected runs' timelines aligned at a range name
    // (the Stack button and the field beside it).
    void setStackedTimeline(bool on, const QString& alignAt = QStringLiteral("decode step"));
    // Writes `run`'s report (against `baseline`) to `path` (.html, .pdf or
    // .md): the analysis runs in the background; reportWritten follows.
    void exportReportTo(RunId run, std::optional<RunId> baseline, const QString& path);
    // Writes `run` as a trace for Perfetto UI to `path`: Perfetto's protobuf
    // (.pftrace) or Chrome trace JSON (.json), gzip-compressed for .gz, by
    // `warpscope-cli export` in the background; traceWritten follows.
    void exportTraceTo(RunId run, const QString& path);

  signals:
    void storeLoaded(const QString& path);
    void detailsShown(ws::RunId id);
    // The What-if panel shows an answer (options or a prediction) for `id`.
    void whatIfShown(ws::RunId id);
    void timelineShown(ws::RunId id);
    void timelineStacked(const QString& note);
    void chartsShown(int runs);
    void sweepsShown(int groups);
    // The Collectives tab was updated (shown: the run is a distributed one).
    void collectivesShown(bool shown);
    void kernelShown(std::uint32_t correlationId);
    void intervalShown(std::int64_t beginNs, std::int64_t endNs);
    void loadFailed(const QString& message);
    void reportWritten(const QString& path);
    void traceWritten(const QString& path);
    // The start's layout is in place: restored or this screen's default,
    // each dock at least its minimum (window_layout.h).
    void layoutSettled();

  protected:
    void closeEvent(QCloseEvent* event) override;

  private:
    // A dock named `objectName` (saved layouts know it by that name) holding
    // `widget`, added to `area`.
    QDockWidget* addDock(const QString& title, const QString& objectName, QWidget* widget,
                         Qt::DockWidgetArea area);
    void raiseDock(const QString& objectName);  // shown and in front
    // A paged timeline's search also runs over the whole run (Find Results
    // lists those matches); any other timeline's search is the view's own.
    void startRunSearch(const QString& text);
    void buildActions();
    void buildPanels();
    void showError(const QString& message);
    void offerSamples();
    void importTrace();
    void compactStore();
    // Runs warpscope-cli ARGS on the open store in the background, then reloads
    // it, or calls `done` instead where given (a command that changed nothing).
    // Commands without --progress (label, tag, rm, export) pass withProgress false.
    void runCli(const QString& title, const QString& busyText, const QStringList& args,
                bool withProgress = true, std::function<void()> done = {});
    void openSamples();
    void onRunsLoaded(const QString& path, const std::vector<RunInfo>& runs,
                      const std::vector<RunId>& recovered);
    void onDetailsLoaded(const RunDetails& details);
    void onSelectionChanged();
    // The selected runs, the baseline first; their charts and tables again
    // (another window), leaving the timeline and details as they are.
    std::vector<RunId> comparedRuns() const;
    void reloadAnalysis();
    // Back to the window chosen before a span was selected on the timeline;
    // false when no span was the window.
    bool restoreWindowBeforeSpan();
    void exportReport();
    void exportReportOf(RunId run);
    void zoomToInterval(std::int64_t beginNs, std::int64_t endNs, const QString& note);
    void onReportPrepared(const std::shared_ptr<const ReportInput>& input);
    void chooseStore();

    RunListModel* runModel_;
    StoreLoader* loader_;
    RunsPanel* runs_ = nullptr;
    TimelineToolbar* toolbar_ = nullptr;
    TimelineView* timeline_ = nullptr;
    ChartsPanel* charts_ = nullptr;
    DashboardView* dashboard_ = nullptr;
    DashboardMode* dashboardMode_ = nullptr;
    LaunchPanel* launch_ = nullptr;
    ItlOutliersPanel* outliers_ = nullptr;
    WhatIfPanel* whatIf_ = nullptr;
    SearchMatchesList* matches_ = nullptr;
    QTextBrowser* details_ = nullptr;
    QPlainTextEdit* log_ = nullptr;
    QLabel* storeLabel_ = nullptr;
    QLabel* busyLabel_ = nullptr;
    RecentStores* recent_ = nullptr;
    QString storePath_;
    QString reportPath_;  // where the report being prepared goes
    QString pendingPath_;
    bool findAfterLoad_ = false;  // select the first search match once a timeline loads
    struct PendingInterval {
        RunId run;
        std::int64_t beginNs, endNs;
        QString note;
    };
    std::optional<PendingInterval> intervalAfterLoad_;  // shown once that timeline loads
    // A kernel was clicked after the run's details were asked for: when they
    // arrive late they must not replace what the user just chose.
    bool kernelShownSinceRunChosen_ = false;
    std::vector<RunId> pendingSelection_;
    std::optional<WindowChoice> windowBeforeSpan_;
};

}  // namespace ws::ui
