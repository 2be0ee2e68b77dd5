// Charts that fit their text to the size they are drawn at: notes wrap,
// legends sit below the data in as many columns as fit, long names are
// elided in the middle. fitTo runs on every resize and before an export at
// another size, so a PNG reads as well as the window.
#pragma once

#include <qcustomplot.h>

#include <functional>

namespace ws::ui {

class FittedChart : public QCustomPlot {
    Q_OBJECT
  public:
    using QCustomPlot::QCustomPlot;
    // Adapts the chart's text to `size` (pixels); the default wraps notes and
    // spreads legends set up by the helpers below.
    virtual void fitTo(QSize size);
    // Runs named in the legend (the default), or not where the runs' colours
    // are named once for several charts (the dashboard's header). Applies
    // from the next setRuns.
    void setRunLegendShown(bool on) { runLegend_ = on; }
    bool runLegendShown() const { return runLegend_; }
    // Small, whatever the layout holds: QCustomPlot asks for the sum of its
    // elements' minimums (two stacked axes and a legend row ask ~450 px), and
    // a chart dock holding that could not fit a 1366×768 screen. fitTo adapts
    // the text to whatever height the user leaves the chart.
    QSize minimumSizeHint() const override { return {240, 160}; }

  protected:
    void resizeEvent(QResizeEvent* event) override;
    // Lays the plot out at `size` now (the axis rects' pixels are then known).
    void layOutAt(QSize size);

  private:
    bool runLegend_ = true;
};

// Fits `plot` (when it is a FittedChart) to an export's size for as long as
// it lives, then back to the widget's size.
class FitForExport {
  public:
    FitForExport(QCustomPlot* plot, QSize size);
    ~FitForExport();
    FitForExport(const FitForExport&) = delete;
    FitForExport& operator=(const FitForExport&) = delete;

  private:
    FittedChart* chart_;
};

// Sets a title-like note; fitTo wraps it at word boundaries to the width.
void setNote(QCPTextElement* note, const QString& text);
void wrapNote(QCPTextElement* note, int width);

// Moves `plot`'s legend out of the axis rect into a row of the plot layout
// at `row` (taking only the height it needs), without a frame.
void placeLegendBelow(QCustomPlot* plot, int row);
// For a legend already in a row of the plot layout.
void markLegendBelow(QCPLegend* legend);
// As many legend columns as its widest entry allows in `width`.
void spreadLegend(QCPLegend* legend, int width);

// "sm90_xmma_gemm_…_kernel__5x_cublas": at most `pixels` wide in `font`.
QString elideMiddle(const QString& text, const QFont& font, int pixels);

// Draws nothing; runs `before` at the start of each render, once the layout
// of that render is known (QCustomPlot's exports emit no replot signal).
// Items on later layers can be moved or hidden there.
class BeforeDraw : public QCPLayerable {
  public:
    BeforeDraw(QCustomPlot* plot, std::function<void()> before)
        : QCPLayerable(plot, QStringLiteral("grid")), before_(std::move(before)) {}

  protected:
    void applyDefaultAntialiasingHint(QCPPainter*) const override {}
    void draw(QCPPainter*) override { before_(); }

  private:
    std::function<void()> before_;
};

}  // namespace ws::ui
