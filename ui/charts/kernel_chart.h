// The top kernels by GPU time, stacked per selected run; beside them the
// memory copy bandwidth of each run by copy kind.
#pragma once

#include <qcustomplot.h>

#include "analysis/run_analysis.h"

namespace ws::ui {

class KernelChart : public QCustomPlot {
    Q_OBJECT
  public:
    explicit KernelChart(QWidget* parent = nullptr);
    void setRuns(const std::vector<RunAnalysis>& runs, int topKernels = 8);
    QStringList kernelNames() const { return names_; }
    int copyBars() const { return copyBars_; }

  private:
    void drawCopies(const std::vector<RunAnalysis>& runs);
    QStringList names_;
    QCPAxisRect* copies_;
    int copyBars_ = 0;
};

}  // namespace ws::ui
