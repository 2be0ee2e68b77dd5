// Comparison mode: each selected run against the first (the baseline), metric
// by metric, as the change in percent with its 95% bootstrap interval and the
// verdict's colour (faster green, slower red, within noise grey). Lower
// latency is better, so a faster run's bar points left.
#pragma once

#include <qcustomplot.h>

#include "models/run_analysis.h"

namespace ws::ui {

class ComparisonChart : public QCustomPlot {
    Q_OBJECT
  public:
    explicit ComparisonChart(QWidget* parent = nullptr);
    void setRuns(const std::vector<RunAnalysis>& runs);
    int bars() const { return bars_; }

  private:
    QCPTextElement* note_;
    int bars_ = 0;
};

}  // namespace ws::ui
