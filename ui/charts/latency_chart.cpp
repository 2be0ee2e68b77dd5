#include "charts/latency_chart.h"

#include <algorithm>
#include <cmath>

#include "analysis/statistics.h"
#include "charts/chart_style.h"

namespace ws::ui {

namespace {

constexpr int kMaxPoints = 4000;  // per run and metric; beyond that the box says enough

void addCdf(QCustomPlot* plot, QCPAxisRect* rect, std::vector<double> values, const QColor& color,
            const QString& name, bool inLegend) {
    std::sort(values.begin(), values.end());
    // An empirical CDF as explicit steps: at each value the fraction rises.
    QVector<double> x, y;
    double below = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
        double above = static_cast<double>(i + 1) / static_cast<double>(values.size());
        x << values[i] << values[i];
        y << below << above;
        below = above;
    }
    auto* g = plot->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    g->setData(x, y, true);
    g->setLineStyle(QCPGraph::lsLine);
    g->setPen(QPen(color, 2));
    g->setName(name);
    if (!inLegend) g->removeFromLegend();
}

// A horizontal Tukey box (whiskers at the last value within 1.5 IQR) at `row`.
void addBox(QCPAxisRect* rect, std::vector<double> values, double row, const QColor& color,
            const ChartColors& colors) {
    std::sort(values.begin(), values.end());
    double q1 = stats::percentileSorted(values, 25), median = stats::percentileSorted(values, 50),
           q3 = stats::percentileSorted(values, 75), iqr = q3 - q1;
    auto low = std::lower_bound(values.begin(), values.end(), q1 - 1.5 * iqr);
    auto high = std::upper_bound(values.begin(), values.end(), q3 + 1.5 * iqr);
    double whiskerLow = low != values.end() ? *low : q1;
    double whiskerHigh = high != values.begin() ? *std::prev(high) : q3;
    auto* box = new QCPStatisticalBox(rect->axis(QCPAxis::atLeft), rect->axis(QCPAxis::atBottom));
    box->removeFromLegend();
    box->setWidth(0.6);
    QColor fill = color;
    fill.setAlpha(60);
    box->setBrush(fill);
    box->setPen(QPen(color, 1.2));
    box->setWhiskerPen(QPen(color, 1.2, Qt::SolidLine));
    box->setWhiskerBarPen(QPen(color, 1.2));
    box->setMedianPen(QPen(colors.ink, 2));
    box->setOutlierStyle(QCPScatterStyle(QCPScatterStyle::ssNone));  // the points show them
    box->addData(row, whiskerLow, q1, median, q3, whiskerHigh);
}

// Each request as a point, jittered across the box's height at `row`; the
// points are sorted by value, so the graph's data index is the index into
// `points` (what a click reports).
QCPGraph* addPoints(QCPAxisRect* rect, std::vector<std::pair<double, std::size_t>>& points,
                    double row, const QColor& color, const ChartColors& colors) {
    std::stable_sort(points.begin(), points.end());
    std::size_t step = std::max<std::size_t>(1, points.size() / kMaxPoints);
    std::vector<std::pair<double, std::size_t>> kept;
    for (std::size_t i = 0; i < points.size(); i += step)
        kept.push_back(points[i]);
    points = std::move(kept);
    auto* graph = new QCPGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    graph->removeFromLegend();
    graph->setLineStyle(QCPGraph::lsNone);
    QColor dot = colors.label(color);
    dot.setAlpha(150);
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, dot, 3));
    QVector<double> x, y;
    for (std::size_t i = 0; i < points.size(); ++i) {
        // Golden-ratio jitter: spread evenly, the same on every redraw.
        double jitter = std::fmod(static_cast<double>(i * step) * 0.6180339887, 1.0) - 0.5;
        x << points[i].first;
        y << row + 0.45 * jitter;
    }
    graph->setData(x, y, true);  // keys are ms on the bottom axis, already in order
    return graph;
}

QCPRange valueRange(const QCPAxisRect* rect) {
    bool found = false;
    QCPRange range;
    for (auto* g : rect->graphs()) {
        bool ok = false;
        auto gr = g->getKeyRange(ok);
        if (ok)
            range = found
                        ? QCPRange(std::min(range.lower, gr.lower), std::max(range.upper, gr.upper))
                        : gr;
        found |= ok;
    }
    if (!found) return QCPRange(0, 1);
    // A run of one request (or identical ones) has no spread: pad by 5% of the
    // value so the axis reads in the value's own digits, not in microseconds.
    double pad = std::max({range.size() * 0.05, std::abs(range.upper) * 0.05, 1e-3});
    return QCPRange(std::max(0.0, range.lower - pad), range.upper + pad);
}

}  // namespace

LatencyChart::LatencyChart(QWidget* parent) : FittedChart(parent) {
    plotLayout()->clear();
    note_ =
        new QCPTextElement(this, tr("Select runs with token timestamps to compare TTFT and TPOT"));
    plotLayout()->addElement(0, 0, note_);
    auto* grid = new QCPLayoutGrid;
    plotLayout()->addElement(1, 0, grid);
    const QString metric[] = {tr("TTFT (ms)"), tr("TPOT (ms)")};
    for (int c = 0; c < 2; ++c) {
        boxes_[c] = new QCPAxisRect(this);
        cdfs_[c] = new QCPAxisRect(this);
        grid->addElement(0, c, boxes_[c]);
        grid->addElement(1, c, cdfs_[c]);
        cdfs_[c]->axis(QCPAxis::atBottom)->setLabel(metric[c]);
        cdfs_[c]->axis(QCPAxis::atLeft)->setLabel(tr("fraction of requests"));
        cdfs_[c]->axis(QCPAxis::atLeft)->setRange(0, 1.02);
        // Far enough below the axis that the first ms label clears the "0"
        // centred on the corner.
        cdfs_[c]->axis(QCPAxis::atBottom)->setTickLabelPadding(9);
        // Box above CDF: one ms axis, zoomed and panned together.
        makeZoomable(boxes_[c], Qt::Horizontal);
        makeZoomable(cdfs_[c], Qt::Horizontal);
        linkAxes(boxes_[c]->axis(QCPAxis::atBottom), cdfs_[c]->axis(QCPAxis::atBottom));
        // The same left margin above and below keeps the two ms axes aligned.
        auto* margins = new QCPMarginGroup(this);
        boxes_[c]->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
        cdfs_[c]->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    }
    grid->setRowStretchFactors({1.0, 1.3});
    // The legend in a row of its own under the charts: inside a CDF's axis
    // rect it covers the curves of the slowest runs, whose steps end there.
    legend = new QCPLegend;
    plotLayout()->addElement(2, 0, legend);
    plotLayout()->setRowStretchFactors({0.01, 1.0, 0.01});
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setWrap(4);
    legend->setVisible(true);
    markLegendBelow(legend);
    setToolTip(
        tr("Wheel zooms the milliseconds, drag pans; box and CDF move together; click a "
           "request's point to see it on the timeline"));
    connect(this, &QCustomPlot::plottableClick, this,
            [this](QCPAbstractPlottable* p, int index, QMouseEvent*) { onPointClicked(p, index); });
    styleAxes(this);
}

int LatencyChart::cdfCurves() const {
    return static_cast<int>(cdfs_[0]->graphs().size() + cdfs_[1]->graphs().size());
}

int LatencyChart::boxes() const {
    int n = 0;
    for (auto* rect : boxes_)
        for (auto* p : rect->plottables())
            n += qobject_cast<QCPStatisticalBox*>(p) ? 1 : 0;
    return n;
}

void LatencyChart::setRuns(const std::vector<RunAnalysis>& runs) {
    styleAxes(this);
    const ChartColors colors = chartColors();
    clearPlottables();
    points_.clear();
    series_ = 0;
    runTicks_[0].clear();
    runTicks_[1].clear();
    // The first run at the top, as in the run list.
    int rows = 0;
    for (const auto& r : runs)
        rows += r.latency.ttftMs.empty() ? 0 : 1;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto& r = runs[i];
        if (r.latency.ttftMs.empty()) continue;
        QString name = elideMiddle(
            QStringLiteral("#%1 %2").arg(r.run.id).arg(QString::fromStdString(r.run.label)),
            legend->font(), 300);
        QColor color = runColor(static_cast<int>(i));
        double row = rows - 1 - series_;
        const std::vector<double>* samples[] = {&r.latency.ttftMs, &r.latency.tpotMs};
        for (int c = 0; c < 2; ++c) {
            if (samples[c]->empty()) continue;
            addCdf(this, cdfs_[c], *samples[c], color, name, c == 0 && runLegendShown());
            addBox(boxes_[c], *samples[c], row, color, colors);
            // The points are the requests themselves (the samples in request
            // order, less those without a TPOT), so a click can name one.
            std::vector<std::pair<double, std::size_t>> points;
            for (std::size_t q = 0; q < r.latency.requests.size(); ++q) {
                const auto& request = r.latency.requests[q];
                if (c == 0) points.emplace_back(request.ttftMs, q);
                if (c == 1 && request.tpotMs) points.emplace_back(*request.tpotMs, q);
            }
            auto* graph = addPoints(boxes_[c], points, row, color, colors);
            PointSet set{r.run.id, {}};
            for (const auto& point : points)
                set.requests.push_back(r.latency.requests[point.second]);
            points_.emplace(graph, std::move(set));
            runTicks_[c].push_back({row, QStringLiteral("#%1").arg(r.run.id)});
        }
        ++series_;
    }
    setNote(note_, series_ ? tr("Per run: box (quartiles, whiskers at 1.5 IQR) with every "
                                "request; below, the cumulative distribution")
                           : tr("None of the selected runs has token timestamps "
                                "(docs/token-conventions.md)"));
    for (int c = 0; c < 2; ++c) {
        boxes_[c]->axis(QCPAxis::atLeft)->setRange(-0.6, std::max(rows, 1) - 0.4);
        // The CDF's range holds every sample; the linked box axis follows it.
        cdfs_[c]->axis(QCPAxis::atBottom)->setRange(valueRange(cdfs_[c]));
    }
    legend->setVisible(legend->itemCount() > 0);
    fitTo(size());
    replot();
}

bool LatencyChart::clickPoint(int column, int runRow, std::size_t point) {
    int row = 0;
    for (auto* p : boxes_[column]->plottables()) {
        auto* graph = qobject_cast<QCPGraph*>(p);
        if (!graph || !points_.count(graph)) continue;
        if (row++ != runRow) continue;
        if (point >= static_cast<std::size_t>(graph->dataCount())) return false;
        onPointClicked(graph, static_cast<int>(point));
        return true;
    }
    return false;
}

void LatencyChart::onPointClicked(QCPAbstractPlottable* plottable, int index) {
    auto it = points_.find(plottable);
    if (it == points_.end() || index < 0 ||
        static_cast<std::size_t>(index) >= it->second.requests.size())
        return;
    const RequestLatency& r = it->second.requests[static_cast<std::size_t>(index)];
    const std::int64_t end = r.startNs + static_cast<std::int64_t>(r.e2elMs * 1e6);
    QString what = tr("Request %1: TTFT %2 ms").arg(r.requestId).arg(r.ttftMs, 0, 'f', 2);
    if (r.tpotMs) what += tr(", TPOT %1 ms").arg(*r.tpotMs, 0, 'f', 2);
    what += tr(", %1 → %2 tokens, E2E %3 ms (arrival to last token, marked below the lanes)")
                .arg(r.promptTokens)
                .arg(r.outputTokens)
                .arg(r.e2elMs, 0, 'f', 1);
    emit requestClicked(it->second.run, r.startNs, end, what);
}

void LatencyChart::fitTo(QSize size) {
    FittedChart::fitTo(size);
    layOutAt(size);
    for (int c = 0; c < 2; ++c) {
        // Along a short axis the long label would run into the box plot's.
        auto* axis = cdfs_[c]->axis(QCPAxis::atLeft);
        QString label = tr("fraction of requests");
        int needed = QFontMetrics(axis->labelFont()).horizontalAdvance(label) + 8;
        axis->setLabel(cdfs_[c]->height() >= needed ? label : tr("CDF"));
        // Fractions every 0.2 where there is room, else fewer.
        QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
        double unit = cdfs_[c]->height() / 1.02,
               text = QFontMetrics(axis->tickLabelFont()).height();
        ticker->setTickStep(unit * 0.2 >= text + 2 ? 0.2 : unit * 0.5 >= text + 2 ? 0.5 : 1.0);
        ticker->setScaleStrategy(QCPAxisTickerFixed::ssNone);
        axis->setTicker(ticker);
        // Milliseconds: about one label per 60 px ("1.175" is ~35 px wide), at least three.
        int count = std::max(3, cdfs_[c]->width() / 60);
        cdfs_[c]->axis(QCPAxis::atBottom)->ticker()->setTickCount(count);
        boxes_[c]->axis(QCPAxis::atBottom)->ticker()->setTickCount(count);
    }
    setRunTicks();
}

// A run's number on every row, or on every n-th where rows are thinner than
// the text (the legend names every colour).
void LatencyChart::setRunTicks() {
    for (int c = 0; c < 2; ++c) {
        auto* axis = boxes_[c]->axis(QCPAxis::atLeft);
        QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
        double rowPx =
            runTicks_[c].empty() ? 1e9 : std::abs(axis->coordToPixel(1) - axis->coordToPixel(0));
        int text = QFontMetrics(axis->tickLabelFont()).height() + 2;
        std::size_t step = rowPx >= text ? 1 : std::size_t(std::ceil(text / std::max(rowPx, 1.0)));
        for (std::size_t i = 0; i < runTicks_[c].size(); i += step)
            ticker->addTick(runTicks_[c][i].first, runTicks_[c][i].second);
        setCategoryTicks(axis, ticker);
    }
}

}  // namespace ws::ui
