#include "charts/roofline_chart.h"

#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "charts/chart_style.h"

namespace ws::ui {

RooflineChart::RooflineChart(QWidget* parent) : FittedChart(parent) {
    plotLayout()->insertRow(0);
    note_ = new QCPTextElement(this, QString());
    plotLayout()->addElement(0, 0, note_);
    for (auto* axis : {xAxis, yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
        axis->setTicker(ticker);
        axis->setNumberFormat("gb");
    }
    xAxis->setLabel(tr("arithmetic intensity (FLOP / DRAM byte)"));
    yAxis->setLabel(tr("TFLOP/s"));
    legend->setVisible(true);
    legend->setIconSize(16, 10);
    // Below the axes: inside, it covered the bandwidth roof and points.
    placeLegendBelow(this, 2);
    setMouseTracking(true);
    makeZoomable(axisRect(), Qt::Horizontal | Qt::Vertical);
    styleAxes(this);
    // Drawn on the grid layer, before the labels' layer: every render (on
    // screen, or an export at another size) spreads them at its own layout.
    new BeforeDraw(this, [this] { spreadLabels(); });
}

void RooflineChart::spreadLabels() {
    // Top to bottom; each label takes the nearest free line slot (0, up 1,
    // down 1, up 2, …) to the right of its point, inside the axes and off
    // the roof lines. Every
    // point's disc is taken from the start: a label must not hide another
    // point. Within three lines of its point a label still reads as its
    // point's; one without a free slot there is left out (its point names
    // itself on hover).
    const QRectF area = axisRect()->rect();
    std::vector<std::pair<QRectF, const Label*>> order;
    std::vector<QRectF> placed;
    for (const auto& l : labels_) {
        QPointF at = l.item->position->pixelPosition();
        QRectF text = QFontMetrics(l.item->font()).boundingRect(l.item->text());
        order.push_back({QRectF(at.x() + l.radius + 2, at.y() - l.radius - text.height(),
                                text.width(), text.height()),
                         &l});
        placed.push_back(QRectF(at.x() - l.radius, at.y() - l.radius, 2 * l.radius, 2 * l.radius));
    }
    // The roof lines as pixel segments: a label must not be struck through.
    std::vector<QLineF> roofLines;
    for (const QCPGraph* roof : roofs_) {
        std::optional<QPointF> last;
        for (auto it = roof->data()->constBegin(); it != roof->data()->constEnd(); ++it) {
            const QPointF at(xAxis->coordToPixel(it->key), yAxis->coordToPixel(it->value));
            if (last) roofLines.emplace_back(*last, at);
            last = at;
        }
    }
    auto crossesRoof = [&](const QRectF& r) {
        const QLineF edges[] = {{r.topLeft(), r.topRight()},
                                {r.topRight(), r.bottomRight()},
                                {r.bottomRight(), r.bottomLeft()},
                                {r.bottomLeft(), r.topLeft()}};
        return std::any_of(roofLines.begin(), roofLines.end(), [&](const QLineF& line) {
            if (r.contains(line.p1()) || r.contains(line.p2())) return true;
            return std::any_of(std::begin(edges), std::end(edges), [&](const QLineF& e) {
                return line.intersects(e, nullptr) == QLineF::BoundedIntersection;
            });
        });
    };
    std::sort(order.begin(), order.end(),
              [](const auto& a, const auto& b) { return a.first.top() < b.first.top(); });
    for (const auto& [rect, label] : order) {
        QRectF moved = rect;
        int up = 0;  // pixels
        bool free = false;
        for (int attempt = 0; attempt < 7 && !free; ++attempt) {
            int lines = attempt % 2 ? -(attempt + 1) / 2 : attempt / 2;
            up = int(lines * rect.height());
            moved = rect.translated(0, -up);
            free = area.contains(moved) && !crossesRoof(moved) &&
                   std::none_of(placed.begin(), placed.end(),
                                [&](const QRectF& p) { return p.intersects(moved); });
        }
        label->item->setVisible(free);
        if (!free) continue;
        int r = int(label->radius);
        label->item->setPadding(QMargins(r + 2, 0, 0, r + up));
        placed.push_back(moved);
    }
}

void RooflineChart::setRuns(const std::vector<RunAnalysis>& runs) {
    styleAxes(this);
    const ChartColors colors = chartColors();
    clearGraphs();
    clearItems();
    hits_.clear();
    labels_.clear();
    roofs_.clear();
    const RooflineCeilings* ceilings = nullptr;
    for (const auto& r : runs)
        if (r.roofline.ceilings.known()) {
            ceilings = &r.roofline.ceilings;
            break;
        }
    double xMin = 0.05, xMax = 5000, yMin = 0.01, yMax = 2000;
    if (ceilings) {
        // The roof: bandwidth slope up to the ridge, then the tensor peak.
        auto* roof = addGraph();
        roof->setName(tr("DRAM %1 GB/s → bf16 tensor %2 TFLOP/s")
                          .arg(ceilings->dramGBs, 0, 'f', 0)
                          .arg(ceilings->tensorTflops, 0, 'f', 0));
        roof->setPen(QPen(colors.ink, 2));
        roof->addData(xMin, ceilings->attainableTflops(xMin));
        roof->addData(ceilings->ridge(), ceilings->tensorTflops);
        roof->addData(xMax, ceilings->tensorTflops);
        roofs_.push_back(roof);
        if (ceilings->fp32Tflops > 0) {
            auto* fp32 = addGraph();
            fp32->setName(
                tr("FP32 (no tensor cores) %1 TFLOP/s").arg(ceilings->fp32Tflops, 0, 'f', 1));
            fp32->setPen(QPen(colors.muted, 1.5, Qt::DashLine));
            double ridge = ceilings->fp32Tflops * 1e3 / ceilings->dramGBs;
            fp32->addData(ridge, ceilings->fp32Tflops);
            fp32->addData(xMax, ceilings->fp32Tflops);
            roofs_.push_back(fp32);
        }
    }
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto& run = runs[i];
        QColor color = runColor(int(i));
        bool named = false;
        for (const auto& p : (byRange_ ? run.rangeRoofline : run.roofline).points) {
            if (p.intensity() <= 0 || p.tflops() <= 0) continue;
            auto* g = addGraph();
            double size = 7 + 17 * std::sqrt(p.timeShare);
            g->setLineStyle(QCPGraph::lsNone);
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, size));
            g->setPen(QPen(color));
            g->addData(p.intensity(), p.tflops());
            if (!named && runLegendShown()) {
                g->setName(elideMiddle(QStringLiteral("#%1 %2")
                                           .arg(run.run.id)
                                           .arg(QString::fromStdString(run.run.label)),
                                       legend->font(), 300));
                named = true;
            } else {
                g->removeFromLegend();
            }
            auto* label = new QCPItemText(this);
            label->position->setCoords(p.intensity(), p.tflops());
            label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
            label->setPadding(QMargins(int(size / 2) + 2, 0, 0, int(size / 2)));
            label->setText(QString::fromStdString(p.name));
            label->setFont(QFont(font().family(), 8));
            label->setColor(colors.label(color));
            labels_.push_back({label, size / 2});
            double roof = ceilings ? p.tflops() / ceilings->attainableTflops(p.intensity()) : 0;
            hits_.push_back(
                {p.intensity(), p.tflops(),
                 tr("#%1 %2\n%3 (%4)\n%5 FLOP/B, %6 TFLOP/s, %7 GB/s\n%8 µs mean × %9, "
                    "%10% of the run's points%11")
                         .arg(run.run.id)
                         .arg(QString::fromStdString(run.run.label), QString::fromStdString(p.name),
                              QString::fromStdString(p.origin))
                         .arg(p.intensity(), 0, 'g', 3)
                         .arg(p.tflops(), 0, 'f', 2)
                         .arg(p.gbs(), 0, 'f', 0)
                         .arg(p.meanNs / 1e3, 0, 'f', 1)
                         .arg(p.instances)
                         .arg(100 * p.timeShare, 0, 'f', 1)
                         .arg(ceilings ? tr(", %1% of the roof").arg(100 * roof, 0, 'f', 0)
                                       : QString()) +
                     tr("\nclick: find it in the timeline"),
                 run.run.id, QString::fromStdString(p.name), QString::fromStdString(p.origin)});
            xMin = std::min(xMin, p.intensity() / 2);
            xMax = std::max(xMax, p.intensity() * 2);
            yMin = std::min(yMin, p.tflops() / 2);
        }
    }
    if (!ceilings)
        setNote(note_, tr("Roofline: no ceilings (unknown device and nothing measured)"));
    else if (hits_.empty())
        setNote(note_, tr("Roofline: the selected runs declare no FLOPs and bytes (kernel "
                          "ladders and the decoder do)"));
    else
        setNote(note_, tr("Roofline (point size: share of the run's time)"));
    xAxis->setRange(xMin, xMax);
    yAxis->setRange(yMin, yMax);
    FittedChart::fitTo(size());
    replot();
}

const RooflineChart::Hit* RooflineChart::hitAt(const QPointF& pos) const {
    double best = 12 * 12;  // pixels²
    const Hit* hit = nullptr;
    for (const auto& h : hits_) {
        double dx = xAxis->coordToPixel(h.intensity) - pos.x();
        double dy = yAxis->coordToPixel(h.tflops) - pos.y();
        if (dx * dx + dy * dy < best) {
            best = dx * dx + dy * dy;
            hit = &h;
        }
    }
    return hit;
}

QString RooflineChart::describeAt(const QPointF& pos) const {
    const Hit* h = hitAt(pos);
    return h ? h->text : QString();
}

bool RooflineChart::clickAt(const QPointF& pos) {
    const Hit* h = hitAt(pos);
    if (!h) return false;
    emit pointClicked(h->run, h->name, h->origin);
    return true;
}

QPointF RooflineChart::pointPosition(int i) const {
    const auto& h = hits_.at(std::size_t(i));
    return {xAxis->coordToPixel(h.intensity), yAxis->coordToPixel(h.tflops)};
}

std::vector<QRectF> RooflineChart::labelRects() const {
    std::vector<QRectF> rects;
    for (const auto& l : labels_) {
        if (!l.item->visible()) continue;
        const QPointF at = l.item->position->pixelPosition();
        const QRectF text = QFontMetrics(l.item->font()).boundingRect(l.item->text());
        const QMargins pad = l.item->padding();
        rects.emplace_back(at.x() + pad.left(), at.y() - pad.bottom() - text.height(), text.width(),
                           text.height());
    }
    return rects;
}

void RooflineChart::mousePressEvent(QMouseEvent* event) {
    pressedAt_ = event->position();
    QCustomPlot::mousePressEvent(event);
}

void RooflineChart::mouseReleaseEvent(QMouseEvent* event) {
    QCustomPlot::mouseReleaseEvent(event);
    if (event->button() == Qt::LeftButton && (event->position() - pressedAt_).manhattanLength() < 5)
        clickAt(event->position());
}

void RooflineChart::mouseMoveEvent(QMouseEvent* event) {
    QCustomPlot::mouseMoveEvent(event);
    QString text = describeAt(event->position());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

}  // namespace ws::ui
