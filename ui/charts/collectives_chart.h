// Collectives of a distributed run over time: a point per matched NCCL
// collective at its first rank's arrival (seconds into the run) and its
// arrival skew (how long the last rank came after the first), coloured by
// the rank that came last, so a rank that drags or a stretch of the run
// where skew grows stands out. The findings read above the plot.
#pragma once

#include <qcustomplot.h>

#include <memory>

#include "analysis/collectives.h"

namespace ws::ui {

class CollectivesChart : public QCustomPlot {
    Q_OBJECT
  public:
    explicit CollectivesChart(QWidget* parent = nullptr);
    // `originNs`: where the time axis starts (the run's first record).
    void setReport(RunId run, std::shared_ptr<const CollectiveReport> report,
                   std::int64_t originNs);
    const CollectiveReport* report() const { return report_.get(); }
    int plottedPoints() const { return points_; }

  private:
    void redraw();
    QCPTextElement* title_;
    RunId run_ = 0;
    std::shared_ptr<const CollectiveReport> report_;
    std::int64_t originNs_ = 0;
    int points_ = 0;
};

}  // namespace ws::ui
