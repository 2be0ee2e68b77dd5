// TTFT and TPOT of the selected runs side by side: per run a box plot with every
// request as a point, and below it the cumulative distributions of all runs on
// the same (linked) millisecond axis.
#pragma once

#include <map>

#include "analysis/run_analysis.h"
#include "charts/chart_fit.h"

namespace ws::ui {

class LatencyChart : public FittedChart {
    Q_OBJECT
  public:
    explicit LatencyChart(QWidget* parent = nullptr);
    void setRuns(const std::vector<RunAnalysis>& runs);
    int plottedSeries() const { return series_; }
    int cdfCurves() const;
    int boxes() const;
    // The millisecond axes: [0] TTFT, [1] TPOT; box plot above, CDF below.
    QCPAxis* boxAxis(int column) const { return boxes_[column]->axis(QCPAxis::atBottom); }
    QCPAxis* cdfAxis(int column) const { return cdfs_[column]->axis(QCPAxis::atBottom); }
    void fitTo(QSize size) override;
    // As a click on the `point`-th (in value order) request of the box at
    // `runRow` (0: the first run shown) of `column` (0 TTFT, 1 TPOT) does.
    bool clickPoint(int column, int runRow, std::size_t point);

  signals:
    // A request's point was clicked: its arrival to its last token, and what
    // to say about it.
    void requestClicked(ws::RunId run, std::int64_t beginNs, std::int64_t endNs,
                        const QString& description);

  private:
    void onPointClicked(QCPAbstractPlottable* plottable, int index);
    struct PointSet {
        RunId run = 0;
        std::vector<RequestLatency> requests;  // in the graph's data order
    };
    std::map<const QCPAbstractPlottable*, PointSet> points_;
    void setRunTicks();
    std::vector<std::pair<double, QString>> runTicks_[2];  // box row → "#id"
    QCPAxisRect* boxes_[2];
    QCPAxisRect* cdfs_[2];
    QCPTextElement* note_;
    int series_ = 0;
};

}  // namespace ws::ui
