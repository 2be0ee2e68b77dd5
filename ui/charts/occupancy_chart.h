// Theoretical occupancy of the top kernels of each selected run, as Nsight
// Compute's occupancy section states it: a bar per kernel, labelled with the
// limiting resource and the launch that determines it.
#pragma once

#include <qcustomplot.h>

#include "models/run_analysis.h"

namespace ws::ui {

class OccupancyChart : public QCustomPlot {
    Q_OBJECT
  public:
    explicit OccupancyChart(QWidget* parent = nullptr);
    void setRuns(const std::vector<RunAnalysis>& runs);
    int bars() const { return bars_; }

  private:
    QCPTextElement* note_;
    int bars_ = 0;
};

}  // namespace ws::ui
