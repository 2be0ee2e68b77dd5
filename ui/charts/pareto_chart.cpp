#include "charts/pareto_chart.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "charts/chart_style.h"

namespace ws::ui {

QString sweepPointLabel(const std::string& parameter, const std::string& value) {
    const QString v = QString::fromStdString(value);
    if (parameter == "max-concurrency") return QStringLiteral("c=%1").arg(v);
    if (parameter == "request-rate")
        return v == QLatin1String("inf") ? QStringLiteral("rate inf")
                                         : QStringLiteral("%1 req/s").arg(v);
    return v;
}

ParetoChart::ParetoChart(QWidget* parent) : QCustomPlot(parent) {
    plotLayout()->clear();
    note_ = new QCPTextElement(this, QString());
    plotLayout()->addElement(0, 0, note_);
    auto* grid = new QCPLayoutGrid;
    plotLayout()->addElement(1, 0, grid);
    const QString metric[] = {tr("TPOT (ms)"), tr("TTFT (ms)")};
    auto* margins = new QCPMarginGroup(this);
    for (int p = 0; p < 2; ++p) {
        rects_[p] = new QCPAxisRect(this);
        grid->addElement(0, p, rects_[p]);
        rects_[p]->axis(QCPAxis::atBottom)->setLabel(metric[p]);
        rects_[p]->axis(QCPAxis::atLeft)->setLabel(tr("out tok/s per GPU"));
        rects_[p]->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
        makeZoomable(rects_[p], Qt::Horizontal | Qt::Vertical);
    }
    // One throughput axis for both panels: the same point sits at one height.
    linkAxes(rects_[0]->axis(QCPAxis::atLeft), rects_[1]->axis(QCPAxis::atLeft));
    legend = new QCPLegend;
    plotLayout()->addElement(2, 0, legend);
    plotLayout()->setRowStretchFactors({0.01, 1.0, 0.01});
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setWrap(4);
    legend->setVisible(true);
    styleAxes(this);
    connect(this, &QCustomPlot::afterLayout, this, &ParetoChart::declutterLabels);
}

void ParetoChart::declutterLabels() {
    std::vector<QRectF> placed[2];
    for (auto p99 : {false, true})
        for (auto& [text, panel, small] : labels_) {
            if (small != p99) continue;
            const QPointF at = text->position->pixelPosition();
            const QSizeF size = QFontMetricsF(text->font()).size(0, text->text()) +
                                QSizeF(text->padding().left() + text->padding().right(),
                                       text->padding().top() + text->padding().bottom());
            // p50 labels above the point, p99 ones below: left first, else right.
            const Qt::Alignment vertical = p99 ? Qt::AlignTop : Qt::AlignBottom;
            const Qt::Alignment sides[] = {p99 ? Qt::AlignLeft : Qt::AlignRight,
                                           p99 ? Qt::AlignRight : Qt::AlignLeft};
            bool shown = false;
            for (Qt::Alignment side : sides) {
                QRectF box(at, size);
                if (side & Qt::AlignRight) box.moveRight(at.x());
                if (vertical & Qt::AlignBottom) box.moveBottom(at.y());
                bool free = rects_[panel]->rect().contains(box.toRect());
                for (const auto& other : placed[panel])
                    free = free && !other.intersects(box);
                if (!free) continue;
                text->setPositionAlignment(side | vertical);
                placed[panel].push_back(box);
                shown = true;
                break;
            }
            text->setVisible(shown);
        }
}

int ParetoChart::visibleLabels() const {
    int n = 0;
    for (const auto& label : labels_)
        n += label.text->visible() ? 1 : 0;
    return n;
}

void ParetoChart::addCurve(Panel panel, int group, bool p99, const SweepTable& table,
                           const QColor& color) {
    auto* rect = rects_[panel];
    auto* curve = new QCPCurve(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    QPen pen(color, p99 ? 1.6 : 2.2, p99 ? Qt::DashLine : Qt::SolidLine);
    curve->setPen(pen);
    curve->setScatterStyle(
        p99 ? QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(color, 1.6), Qt::NoBrush, 8)
            : QCPScatterStyle(QCPScatterStyle::ssDisc, color, 9));
    const QString name =
        QString::fromStdString(table.group.label.empty() ? table.group.group : table.group.label);
    curve->setName(QStringLiteral("%1 — %2").arg(name, p99 ? tr("p99") : tr("p50")));
    if (panel != Tpot) curve->removeFromLegend();
    const ChartColors colors = chartColors();
    double t = 0;
    for (const auto& pt : table.points) {
        auto latency = panel == Tpot ? (p99 ? pt.tpotP99Ms : pt.tpotP50Ms)
                                     : (p99 ? pt.ttftP99Ms : pt.ttftP50Ms);
        if (!latency || pt.completed == 0) continue;
        curve->addData(t++, *latency, pt.outputThroughputPerGpu);
        Point point{panel,    group,
                    p99,      sweepPointLabel(table.group.parameter, pt.value),
                    *latency, pt.outputThroughputPerGpu};
        auto* text = new QCPItemText(this);
        text->setClipAxisRect(rect);
        text->setClipToAxisRect(true);
        text->position->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        text->position->setCoords(*latency, pt.outputThroughputPerGpu);
        text->setPositionAlignment(p99 ? (Qt::AlignLeft | Qt::AlignTop)
                                       : (Qt::AlignRight | Qt::AlignBottom));
        text->setPadding(QMargins(5, 2, 5, 2));
        text->setText(point.label);
        text->setFont(QFont(font().family(), p99 ? 7 : 8));
        QColor ink = colors.label(color);
        if (p99) ink.setAlpha(170);
        text->setColor(ink);
        labels_.push_back({text, panel, p99});
        points_.push_back(std::move(point));
    }
    ++curves_;
}

void ParetoChart::setSweeps(const std::vector<SweepTable>& sweeps) {
    styleAxes(this);
    clearPlottables();
    clearItems();
    labels_.clear();
    points_.clear();
    curves_ = 0;
    for (std::size_t g = 0; g < sweeps.size(); ++g) {
        const QColor color = runColor(static_cast<int>(g));
        for (bool p99 : {false, true})
            for (Panel panel : {Tpot, Ttft})
                addCurve(panel, static_cast<int>(g), p99, sweeps[g], color);
    }
    QString parameters;
    for (const auto& s : sweeps) {
        QString name = QString::fromStdString(sweepParameterName(s.group.parameter));
        if (!parameters.contains(name))
            parameters += (parameters.isEmpty() ? QString() : QStringLiteral(", ")) + name;
    }
    note_->setText(points_.empty()
                       ? tr("Select a run of a sweep (bench serve --sweep) to see its curve")
                       : tr("Output throughput per GPU against latency, one curve per sweep "
                            "(solid p50, dashed p99), each point labelled with its %1; up and "
                            "to the left is better")
                             .arg(parameters));
    // Ranges from the points with a margin, so labels at the edges stay inside.
    double maxY = 0;
    for (int p = 0; p < 2; ++p) {
        double lo = std::numeric_limits<double>::infinity(), hi = 0;
        for (const auto& pt : points_) {
            if (pt.panel != p) continue;
            lo = std::min(lo, pt.latencyMs);
            hi = std::max(hi, pt.latencyMs);
            maxY = std::max(maxY, pt.tokensPerGpu);
        }
        auto* x = rects_[p]->axis(QCPAxis::atBottom);
        if (hi <= 0) {
            x->setRange(0, 1);
            continue;
        }
        const double span = std::max(hi - lo, hi * 0.05);
        x->setRange(std::max(0.0, lo - 0.12 * span), hi + 0.12 * span);
    }
    for (auto* rect : rects_)
        rect->axis(QCPAxis::atLeft)->setRange(0, maxY > 0 ? maxY * 1.15 : 1);
    replot();
}

}  // namespace ws::ui
