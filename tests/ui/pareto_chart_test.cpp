// The sweep Pareto chart under offscreen Qt: the points it plots are the
// sweep's own (throughput per GPU against TPOT and TTFT, p50 and p99), each
// labelled with its value; the chart dock shows the tab only for sweeps.
#include <gtest/gtest.h>

#include <QApplication>
#include <QImage>

#include "charts/charts_panel.h"
#include "charts/pareto_chart.h"
#include "support/temp_dir.h"
#include "synthetic_sweeps.h"

namespace ws::ui {
namespace {

using testing::sweep;

TEST(ParetoChart, PlotsEachPointOfEachSweepOnBothPanels) {
    ParetoChart chart;
    chart.resize(1400, 600);
    auto a = sweep("g1", "max-concurrency", {"1", "2", "4"}, 100);
    auto b = sweep("g2", "request-rate", {"2", "inf"}, 300);
    b.points[1].tpotP99Ms.reset();  // a point without a p99 is left out, not drawn at 0
    chart.setSweeps({a, b});
    EXPECT_EQ(chart.curves(), 8);  // 2 sweeps × 2 panels × p50/p99
    const auto& pts = chart.points();
    ASSERT_EQ(pts.size(), 3u * 4 + 2u * 4 - 1);
    int checked = 0;
    for (const auto& p : pts) {
        const auto& t = p.group == 0 ? a : b;
        auto it = std::find_if(t.points.begin(), t.points.end(), [&](const SweepPoint& s) {
            return sweepPointLabel(t.group.parameter, s.value) == p.label;
        });
        ASSERT_NE(it, t.points.end()) << p.label.toStdString();
        EXPECT_DOUBLE_EQ(p.tokensPerGpu, it->outputThroughputPerGpu);
        double expected = p.panel == ParetoChart::Tpot ? *(p.p99 ? it->tpotP99Ms : it->tpotP50Ms)
                                                       : *(p.p99 ? it->ttftP99Ms : it->ttftP50Ms);
        EXPECT_DOUBLE_EQ(p.latencyMs, expected);
        ++checked;
    }
    EXPECT_EQ(checked, 19);
    EXPECT_EQ(pts[2].label, "c=4");
    EXPECT_EQ(sweepPointLabel("request-rate", "2"), "2 req/s");
    EXPECT_EQ(sweepPointLabel("request-rate", "inf"), "rate inf");
    // The curves' own data: the first sweep's p50 on the TPOT panel.
    auto* curve = qobject_cast<QCPCurve*>(chart.panel(ParetoChart::Tpot)->plottables().at(0));
    ASSERT_TRUE(curve);
    ASSERT_EQ(curve->data()->size(), 3);
    EXPECT_DOUBLE_EQ(curve->data()->at(2)->key, 30);     // TPOT p50 of c=4, the third point
    EXPECT_DOUBLE_EQ(curve->data()->at(2)->value, 150);  // 300 tok/s over 2 GPUs
    // A label per point, and every point inside the axes' ranges.
    EXPECT_EQ(chart.itemCount(), static_cast<int>(pts.size()));
    for (const auto& p : pts) {
        auto* rect = chart.panel(p.panel);
        EXPECT_TRUE(rect->axis(QCPAxis::atBottom)->range().contains(p.latencyMs));
        EXPECT_TRUE(rect->axis(QCPAxis::atLeft)->range().contains(p.tokensPerGpu));
    }
    // The legend is a layout row of its own, not inside a panel.
    EXPECT_EQ(chart.legend->layout(), chart.plotLayout());
    EXPECT_EQ(chart.legend->itemCount(), 4);  // per sweep: p50 and p99
    EXPECT_FALSE(chart.toPixmap(1400, 600).toImage().isNull());
    // Labels that would overlap are hidden, p99 ones first; these points are apart.
    chart.replot();
    EXPECT_GE(chart.visibleLabels(), 10);
    EXPECT_LE(chart.visibleLabels(), static_cast<int>(pts.size()));
}

TEST(ParetoChart, TheDockShowsTheTabOnlyForSweeps) {
    ChartsPanel panel;
    panel.resize(1200, 600);
    EXPECT_FALSE(panel.paretoShown());
    panel.setSweeps({sweep("g1", "max-concurrency", {"1", "8"}, 50)});
    EXPECT_TRUE(panel.paretoShown());
    EXPECT_EQ(panel.tabText(panel.indexOf(panel.paretoChart())), "Sweep (Pareto)");
    testing::TempDir dir;
    auto files = panel.exportAll(QString::fromStdString(dir.file("charts")), "png", 800, 400);
    EXPECT_TRUE(files.contains(QString::fromStdString(dir.file("charts/pareto.png"))));
    panel.setSweeps({});
    EXPECT_FALSE(panel.paretoShown());
    EXPECT_TRUE(panel.paretoChart()->points().empty());
}

}  // namespace
}  // namespace ws::ui
