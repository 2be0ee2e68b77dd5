// What a QCustomPlot draws, measured: every text it paints (tick labels, axis
// labels, titles, legend entries, text items) as the rectangle it covers,
// recorded from a render through a paint engine that keeps only text, and
// the rectangles of its data (bars, boxes, points, lines). Layout tests
// assert on these.
#pragma once

#include <QRectF>
#include <QString>
#include <vector>

class QCustomPlot;

namespace ws::testing {

struct DrawnText {
    QString text;
    QRectF rect;  // plot pixels, clipped as painted
};

struct PlotLayout {
    QRectF canvas;
    std::vector<DrawnText> texts;
    std::vector<QRectF> legends;  // visible legends with entries
    std::vector<QRectF> data;     // inside their axis rects
};

// Renders `plot` at its widget size and measures it.
PlotLayout probeLayout(QCustomPlot* plot);

// Problems found, one line each: two texts overlapping, a text past the
// canvas, a legend over data or over a text that is not its own. Empty when
// the chart reads cleanly.
std::vector<QString> layoutProblems(const PlotLayout& layout);

}  // namespace ws::testing
