// TTFT and TPOT of the selected runs as cumulative distributions, side by side.
#pragma once

#include <qcustomplot.h>

#include "models/run_analysis.h"

namespace ws::ui {

class LatencyChart : public QCustomPlot {
    Q_OBJECT
  public:
    explicit LatencyChart(QWidget* parent = nullptr);
    void setRuns(const std::vector<RunAnalysis>& runs);
    int plottedSeries() const { return series_; }

  private:
    QCPAxisRect* ttft_;
    QCPAxisRect* tpot_;
    QCPTextElement* note_;
    int series_ = 0;
};

}  // namespace ws::ui
