// The top kernels by GPU time, stacked per selected run.
#pragma once

#include <qcustomplot.h>

#include "models/run_analysis.h"

namespace ws::ui {

class KernelChart : public QCustomPlot {
    Q_OBJECT
  public:
    explicit KernelChart(QWidget* parent = nullptr);
    void setRuns(const std::vector<RunAnalysis>& runs, int topKernels = 8);
    QStringList kernelNames() const { return names_; }

  private:
    QStringList names_;
};

}  // namespace ws::ui
