// Latency of each decode step: the gap before output token i, averaged over
// a run's requests, one line per run — where decode slows down as the KV
// cache grows, or where a step stalls.
#pragma once

#include "analysis/run_analysis.h"
#include "charts/chart_fit.h"

namespace ws::ui {

class TokenLatencyChart : public FittedChart {
    Q_OBJECT
  public:
    explicit TokenLatencyChart(QWidget* parent = nullptr);
    void setRuns(const std::vector<RunAnalysis>& runs);
    QString note() const;  // what the chart shows, or why it is empty

  private:
    QCPTextElement* note_;
    QString noteText_;
};

// Mean inter-token latency per token index (index 1 = gap between tokens 0 and 1).
std::vector<double> meanItlByTokenIndex(const LatencyReport& report);

}  // namespace ws::ui
