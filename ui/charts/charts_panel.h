// The charts dashboard for the selected runs, one tab per chart, each with
// export to PNG, SVG or PDF.
#pragma once

#include <QTabWidget>
#include <memory>
#include <utility>
#include <vector>

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;

#include "analysis/collectives.h"
#include "analysis/run_analysis.h"
#include "analysis/sweep.h"

namespace ws::ui {

class KernelChart;
class LatencyChart;
class TokenLatencyChart;
class RequestTimelineChart;
class ThroughputChart;
class RooflineChart;
class OccupancyChart;
class ComparisonChart;
class KernelTableModel;
class ParetoChart;
class CollectivesChart;
class SummaryTablesPage;

class ChartsPanel : public QTabWidget {
    Q_OBJECT
  public:
    explicit ChartsPanel(QWidget* parent = nullptr);
    void setRuns(const std::vector<RunAnalysis>& runs);
    const std::vector<RunAnalysis>& runs() const { return runs_; }
    // The sweep groups the selected runs belong to: the "Sweep (Pareto)" tab
    // is shown while there is one, hidden otherwise.
    void setSweeps(const std::vector<SweepTable>& sweeps);
    // A distributed run's collectives: the Collectives tab, shown only while
    // the report holds matched instances.
    void setCollectives(RunId run, std::shared_ptr<const CollectiveReport> report,
                        std::int64_t originNs);
    bool collectivesShown() const;
    CollectivesChart* collectivesChart() const { return collectives_; }
    ParetoChart* paretoChart() const { return pareto_; }
    bool paretoShown() const;
    LatencyChart* latencyChart() const { return latency_; }
    KernelChart* kernelChart() const { return kernels_; }
    TokenLatencyChart* tokenChart() const { return tokens_; }
    RequestTimelineChart* requestChart() const { return requests_; }
    ThroughputChart* throughputChart() const { return throughput_; }
    RooflineChart* rooflineChart() const { return roofline_; }
    OccupancyChart* occupancyChart() const { return occupancy_; }
    ComparisonChart* comparisonChart() const { return comparison_; }
    KernelTableModel* kernelTable() const;
    SummaryTablesPage* tables() const { return tables_; }
    // The part of each run the kernel table, kernel chart, occupancy and
    // comparison cover (while requests were served, the whole run, a range).
    WindowChoice window() const;
    void setWindow(const WindowChoice& window);
    // Writes every chart as DIR/<chart>.<format>; returns the files written.
    QStringList exportAll(const QString& dir, const QString& format, int width, int height,
                          QString* error = nullptr);
    // Every chart on one page, two per row, each chartWidth × chartHeight: a PNG
    // or a single-page PDF (by the extension). Returns an error, empty on success.
    QString exportDashboard(const QString& path, int chartWidth = 1000, int chartHeight = 560);

  signals:
    void windowChanged(const ws::WindowChoice& window);

  protected:
    void changeEvent(QEvent* event) override;

  private:
    void exportCurrent();
    void offerRanges(const std::vector<RunAnalysis>& runs);
    void showRooflineToggle();
    std::vector<std::pair<QCustomPlot*, const char*>> charts() const;
    LatencyChart* latency_;
    KernelChart* kernels_;
    TokenLatencyChart* tokens_;
    RequestTimelineChart* requests_;
    ThroughputChart* throughput_;
    RooflineChart* roofline_;
    OccupancyChart* occupancy_;
    ComparisonChart* comparison_;
    ParetoChart* pareto_;
    CollectivesChart* collectives_;
    SummaryTablesPage* tables_;
    QComboBox* window_;
    QCheckBox* rooflineByRange_ = nullptr;  // shown on the Roofline tab when a run has range points
    std::vector<RunAnalysis> runs_;         // kept to redraw in a new theme
    std::vector<SweepTable> sweeps_;
};

}  // namespace ws::ui
