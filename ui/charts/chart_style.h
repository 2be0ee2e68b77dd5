// Look and export shared by every chart.
#pragma once

#include <QColor>
#include <QString>

class QCustomPlot;

namespace ws::ui {

// A colour per run index, distinguishable in print and for common colour blindness.
QColor runColor(int index);
void styleAxes(QCustomPlot* plot);
// Writes the plot as PNG, SVG or PDF (by the file's extension) at width × height
// pixels; returns an error message, empty on success.
QString exportPlot(QCustomPlot* plot, const QString& path, int width, int height);

}  // namespace ws::ui
