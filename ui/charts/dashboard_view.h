// The dashboard: TTFT/TPOT distributions, the comparison (with two or more
// runs), the roofline and occupancy of the selected runs side by side in
// one view, under a header naming the runs, GPU, dates and store. Exports
// as one PNG, SVG or PDF with that header and without on-screen hints.
#pragma once

#include <QWidget>
#include <vector>

#include "analysis/run_analysis.h"

class QCustomPlot;
class QGridLayout;
class QLabel;

namespace ws::ui {

class LatencyChart;
class RooflineChart;
class OccupancyChart;
class ComparisonChart;

class DashboardView : public QWidget {
    Q_OBJECT
  public:
    explicit DashboardView(QWidget* parent = nullptr);
    // Charts are drawn when the view is shown (or exported), not before.
    void setRuns(const std::vector<RunAnalysis>& runs);
    void setStorePath(const QString& path);
    LatencyChart* latencyChart() const { return latency_; }
    RooflineChart* rooflineChart() const { return roofline_; }
    OccupancyChart* occupancyChart() const { return occupancy_; }
    ComparisonChart* comparisonChart() const { return comparison_; }
    // The charts in the grid now (the comparison needs two runs).
    std::vector<QCustomPlot*> shownCharts() const;
    // "Runs: #5 …, #7 … · GPU: NVIDIA H200 · recorded 2026-12-03 14:00 · store: …"
    QStringList headerLines() const;
    // The header and the charts at width × height pixels (PDF: points at 96
    // dpi), by the file's extension: png, svg or pdf. Returns an error, empty
    // on success.
    QString exportTo(const QString& path, int width = 1920, int height = 1080);

  protected:
    void showEvent(QShowEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    void apply();
    void arrange();
    // Each shown chart's cell at a page of `size` below a header `top` high.
    std::vector<std::pair<QCustomPlot*, QRect>> cells(QSize size, int top) const;

    QLabel* header_;
    QGridLayout* grid_;
    LatencyChart* latency_;
    RooflineChart* roofline_;
    OccupancyChart* occupancy_;
    ComparisonChart* comparison_;
    std::vector<RunAnalysis> runs_;
    QString store_;
    bool stale_ = false;
};

}  // namespace ws::ui
