// Look, interaction and export shared by every chart.
#pragma once

#include <QColor>
#include <QString>
#include <Qt>
#include <vector>

#include "analysis/run_analysis.h"

class QCustomPlot;
class QCPAxis;
class QCPAxisRect;
class QCPAxisTickerText;
template <typename T>
class QSharedPointer;

namespace ws::ui {

// A colour per run index, distinguishable in print and for common colour blindness.
QColor runColor(int index);

// The chart colours for the application's palette, so charts follow the light
// or dark theme like every other widget.
struct ChartColors {
    bool dark = false;
    QColor background, text, axis, subTick, grid, legend;
    QColor ink;    // lines that carry meaning without a run: the roof, error bars, curves
    QColor muted;  // secondary lines and the "other" share
    // Text next to a run's marks: readable on the background, still the run's hue.
    QColor label(const QColor& run) const { return dark ? run.lighter(140) : run.darker(140); }
};
ChartColors chartColors();

// Applies chartColors() to the background, every axis, legend and text element.
// Charts call it whenever they redraw, so a theme switch reaches them.
void styleAxes(QCustomPlot* plot);

// Names rows (runs, kernels, metrics) on an axis; no zero line, which on a
// category axis would strike through the first row.
void setCategoryTicks(QCPAxis* axis, const QSharedPointer<QCPAxisTickerText>& ticker);

// Wheel zoom around the cursor and drag to pan, along the given directions.
void makeZoomable(QCPAxisRect* rect, Qt::Orientations orientations);
// Keeps two axes on one range: zooming or panning either moves the other, in
// this chart or another one.
void linkAxes(QCPAxis* a, QCPAxis* b);

// Writes the plot as PNG, SVG or PDF (by the file's extension) at width × height
// pixels; returns an error message, empty on success.
// What a chart's kernels cover, from the analyses' window labels: "while
// requests were served", "whole run", "NVTX range 'decode'" (each run's
// length left out; several different windows are joined with " / ").
QString windowPhrase(const std::vector<RunAnalysis>& runs);

QString exportPlot(QCustomPlot* plot, const QString& path, int width, int height);

}  // namespace ws::ui
