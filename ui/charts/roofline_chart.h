// Log-log roofline of the selected runs: the DRAM slope and tensor-core roof
// (measured by the run, else the device table), the FP32 roof, and a point
// per kernel rung or decoder phase sized by its share of the run's time and
// coloured by run. Hovering a point names it and its figures.
#pragma once

#include <qcustomplot.h>

#include "models/run_analysis.h"

namespace ws::ui {

class RooflineChart : public QCustomPlot {
    Q_OBJECT
  public:
    explicit RooflineChart(QWidget* parent = nullptr);
    void setRuns(const std::vector<RunAnalysis>& runs);
    int points() const { return int(hits_.size()); }
    // The point under a widget position, as its tooltip text; empty when none.
    QString describeAt(const QPointF& pos) const;

  protected:
    void mouseMoveEvent(QMouseEvent* event) override;

  private:
    struct Hit {
        double intensity, tflops;
        QString text;
    };
    QCPTextElement* note_;
    std::vector<Hit> hits_;
};

}  // namespace ws::ui
