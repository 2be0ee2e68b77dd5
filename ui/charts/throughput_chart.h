// Output throughput against the effective batch (peak requests in flight),
// one point per selected run: the batching curve, when runs differ in batch.
#pragma once

#include <qcustomplot.h>

#include "analysis/run_analysis.h"

namespace ws::ui {

class ThroughputChart : public QCustomPlot {
    Q_OBJECT
  public:
    explicit ThroughputChart(QWidget* parent = nullptr);
    void setRuns(const std::vector<RunAnalysis>& runs);
    int points() const { return points_; }

  private:
    QCPTextElement* note_;
    int points_ = 0;
};

}  // namespace ws::ui
