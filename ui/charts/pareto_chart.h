// Sweeps as Pareto curves: output throughput per GPU against TPOT (left) and
// TTFT (right), one colour per sweep group, p50 solid and p99 dashed, each
// point labelled with its sweep value (concurrency or request rate). The
// legend sits in a row of its own under the panels, never over the data.
#pragma once

#include <qcustomplot.h>

#include <vector>

#include "analysis/sweep.h"

namespace ws::ui {

class ParetoChart : public QCustomPlot {
    Q_OBJECT
  public:
    enum Panel { Tpot = 0, Ttft = 1 };
    struct Point {
        Panel panel = Tpot;
        int group = 0;  // index into the tables given
        bool p99 = false;
        QString label;  // "c=4", "8 req/s"
        double latencyMs = 0;
        double tokensPerGpu = 0;
    };

    explicit ParetoChart(QWidget* parent = nullptr);
    void setSweeps(const std::vector<SweepTable>& sweeps);
    // What was plotted, in drawing order (for tests and tool tips).
    const std::vector<Point>& points() const { return points_; }
    int curves() const { return curves_; }
    int visibleLabels() const;
    QCPAxisRect* panel(Panel p) const { return rects_[p]; }

  private:
    void addCurve(Panel panel, int group, bool p99, const SweepTable& table, const QColor& color);
    // Hides labels that would overlap one already placed (p50 before p99), so
    // points close together stay readable; run after every layout.
    void declutterLabels();
    QCPAxisRect* rects_[2];
    QCPTextElement* note_;
    std::vector<Point> points_;
    struct Label {
        QCPItemText* text;
        Panel panel;
        bool p99;
    };
    std::vector<Label> labels_;
    int curves_ = 0;
};

// "c=4" for a concurrency point, "8 req/s" for a request rate ("inf" stays).
QString sweepPointLabel(const std::string& parameter, const std::string& value);

}  // namespace ws::ui
