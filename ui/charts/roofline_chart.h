// Log-log roofline of the selected runs: the DRAM slope and tensor-core roof
// (measured by the run, else the device table), the FP32 roof, and a point
// per kernel rung or decoder phase sized by its share of the run's time and
// coloured by run. Hovering a point names it and its figures; clicking it
// emits pointClicked, and the main window finds it in the timeline.
#pragma once

#include "analysis/run_analysis.h"
#include "charts/chart_fit.h"

namespace ws::ui {

class RooflineChart : public FittedChart {
    Q_OBJECT
  public:
    explicit RooflineChart(QWidget* parent = nullptr);
    void setRuns(const std::vector<RunAnalysis>& runs);
    // Points per NVTX range (RunAnalysis::rangeRoofline) instead of per kernel
    // or phase; takes effect at the next setRuns.
    void setByRange(bool byRange) { byRange_ = byRange; }
    int points() const { return int(hits_.size()); }
    // The point under a widget position, as its tooltip text; empty when none.
    QString describeAt(const QPointF& pos) const;
    // Emits pointClicked for the point under `pos`; false when there is none.
    bool clickAt(const QPointF& pos);
    // Widget position of the i-th point drawn (for tests and scripted use).
    QPointF pointPosition(int i) const;
    // Widget rectangles of the point labels shown at the last render.
    std::vector<QRectF> labelRects() const;

  signals:
    // `name` is a kernel's short name (counters), a rung ("gemm_bf16/mma",
    // declared) or a decoder phase ("prefill", model).
    void pointClicked(ws::RunId run, const QString& name, const QString& origin);

  protected:
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

  private:
    QPointF pressedAt_;  // a release far from it ends a pan, not a click
    bool byRange_ = false;
    struct Hit {
        double intensity, tflops;
        QString text;
        RunId run;
        QString name, origin;
    };
    const Hit* hitAt(const QPointF& pos) const;
    // Moves labels that would overlap another label or point up or down by
    // whole lines, at the current zoom; runs at the start of every render.
    void spreadLabels();
    QCPTextElement* note_;
    std::vector<Hit> hits_;
    struct Label {
        QCPItemText* item;
        double radius;  // of the point's disc, in pixels
    };
    std::vector<Label> labels_;
    std::vector<QCPGraph*> roofs_;  // the ceilings' lines, which labels keep off
};

}  // namespace ws::ui
