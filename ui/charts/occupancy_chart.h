// Occupancy of the selected runs' top kernels, as Nsight Compute's occupancy
// section states it: a group of bars per kernel, one bar per run side by
// side on a 0–100 % axis (theoretical, with achieved inside where counters
// exist), each labelled with the limiting resource and the launch as far as
// its room allows; long kernel names elided in the middle. Below, when the
// chart is tall enough, what-if curves for the selected kernel (click a
// bar): occupancy against block size, registers and shared memory.
#pragma once

#include <map>

#include "analysis/run_analysis.h"
#include "charts/chart_fit.h"

namespace ws::ui {

class OccupancyChart : public FittedChart {
    Q_OBJECT
  public:
    explicit OccupancyChart(QWidget* parent = nullptr);
    void setRuns(const std::vector<RunAnalysis>& runs);
    int bars() const { return bars_; }
    // Kernels shown, top row first (full short names).
    QStringList kernelRows() const { return kernels_; }
    // Shows the what-if curves of kernel `kernel` of run `run` (indices into
    // the runs given); false when there is no such kernel.
    bool selectKernel(std::size_t run, std::size_t kernel);
    const KernelOccupancy* selectedKernel() const { return selected_; }
    // Points drawn on the three what-if curves.
    int curvePoints() const;
    bool curvesShown() const { return curvesShown_; }
    void fitTo(QSize size) override;

  private:
    void drawCurves();
    void showCurves(bool on);
    void placeLabels();
    void setKernelTicks(int pixels);
    QString noteText() const;

    QCPTextElement* note_;
    QCPLayoutGrid* curveRow_;
    QCPAxisRect* curveRects_[3];
    bool curvesShown_ = true;
    std::vector<RunAnalysis> runs_;
    QStringList kernels_;
    // (bar row, run) → kernel index in that run's occupancy
    std::map<std::pair<int, std::size_t>, std::size_t> barKernel_;
    struct Label {
        QCPItemText* item;
        double pct, key, slot;
        QColor bar;
        QStringList variants;  // longest first
        bool inside = true;    // may go inside its bar
    };
    // A label per bar where bars are as tall as the text; else one per
    // kernel, right of its longest bar, naming the limiters.
    std::vector<Label> labels_, rowLabels_;
    const KernelOccupancy* selected_ = nullptr;
    int bars_ = 0;
};

}  // namespace ws::ui
