// Occupancy of the top kernels of each selected run, as Nsight Compute's
// occupancy section states it: a bar per kernel (theoretical, with achieved
// inside where counters exist), labelled with the limiting resource and the
// launch that determines it; below, what-if curves for the selected kernel
// (click a bar): occupancy against block size, registers and shared memory.
#pragma once

#include <qcustomplot.h>

#include <map>

#include "analysis/run_analysis.h"

namespace ws::ui {

class OccupancyChart : public QCustomPlot {
    Q_OBJECT
  public:
    explicit OccupancyChart(QWidget* parent = nullptr);
    void setRuns(const std::vector<RunAnalysis>& runs);
    int bars() const { return bars_; }
    // Shows the what-if curves of kernel `kernel` of run `run` (indices into
    // the runs given); false when there is no such kernel.
    bool selectKernel(std::size_t run, std::size_t kernel);
    const KernelOccupancy* selectedKernel() const { return selected_; }
    // Points drawn on the three what-if curves.
    int curvePoints() const;

  private:
    void drawCurves();

    QCPTextElement* note_;
    QCPLayoutGrid* curveRow_;
    QCPAxisRect* curveRects_[3];
    std::vector<RunAnalysis> runs_;
    std::map<int, std::pair<std::size_t, std::size_t>> rowKernel_;  // bar row → (run, kernel)
    const KernelOccupancy* selected_ = nullptr;
    int bars_ = 0;
};

}  // namespace ws::ui
