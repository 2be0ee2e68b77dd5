// One served run's requests over time, as `vllm bench serve --plot-timeline`
// draws them: a row per request, a grey line from its arrival to its first
// token (TTFT), then a tick at each later token, coloured by the gap before it
// (its ITL) against the run's median and p99. Clicking a tick asks for that
// ITL on the timeline, beside the engine steps and kernels behind it.
#pragma once

#include "analysis/run_analysis.h"
#include "charts/chart_fit.h"

class QCPGraph;

namespace ws::ui {

class RequestTimelineChart : public FittedChart {
    Q_OBJECT
  public:
    explicit RequestTimelineChart(QWidget* parent = nullptr);
    // The first of `runs` with requests; nothing when none has.
    void setRuns(const std::vector<RunAnalysis>& runs);
    RunId run() const { return run_; }
    // Ticks drawn: normal, slow (≥ 2× the median ITL) and p99 outliers.
    int tickCount(int severity) const;
    // Emits intervalClicked for token `token` (≥ 1) of the request drawn in
    // row `row` (0 = the first to arrive).
    void clickToken(int row, int token);

  signals:
    void intervalClicked(ws::RunId run, std::int64_t beginNs, std::int64_t endNs);

  private:
    struct Row {
        std::int64_t requestId;
        std::vector<std::int64_t> tokenNs;
    };
    void onClick(QCPAbstractPlottable* plottable, int dataIndex);
    RunId run_ = 0;
    std::int64_t originNs_ = 0;
    std::vector<Row> rows_;
    QCPGraph* ticks_[3] = {};
};

}  // namespace ws::ui
