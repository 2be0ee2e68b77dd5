// Comparison mode: each selected run against the first (the baseline), metric
// by metric, as the change in percent with its 95% bootstrap interval; a row
// per metric, a bar per candidate in its run colour, the label in the verdict's
// colour (faster green, slower red, otherwise grey). Lower latency is better,
// so a faster run's bar points left.
#pragma once

#include "analysis/run_analysis.h"
#include "charts/chart_fit.h"

namespace ws::ui {

class ComparisonChart : public FittedChart {
    Q_OBJECT
  public:
    explicit ComparisonChart(QWidget* parent = nullptr);
    void setRuns(const std::vector<RunAnalysis>& runs);
    int bars() const { return bars_; }
    // Labels shown: each needs its bar's height (at the size last fitted to).
    bool labelsShown() const { return labelsShown_; }
    void fitTo(QSize size) override;

  private:
    bool labelsShown_ = false;
    QCPTextElement* note_;
    std::vector<QCPItemText*> labels_;
    double slot_ = 0.8;  // a candidate's share of a metric's row
    int bars_ = 0;
};

}  // namespace ws::ui
