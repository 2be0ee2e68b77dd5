#include "plot_layout_probe.h"

#include <qcustomplot.h>
#include <QPaintDevice>
#include <QPaintEngine>
#include <QTextItem>
#include <algorithm>

namespace ws::testing {

namespace {

// Keeps the rectangle of every text drawn; draws nothing.
class TextEngine : public QPaintEngine {
  public:
    TextEngine() : QPaintEngine(QPaintEngine::AllFeatures) {}
    bool begin(QPaintDevice*) override { return true; }
    bool end() override { return true; }
    Type type() const override { return QPaintEngine::User; }
    void drawPixmap(const QRectF&, const QPixmap&, const QRectF&) override {}
    void drawPath(const QPainterPath&) override {}
    void drawPolygon(const QPointF*, int, PolygonDrawMode) override {}
    void drawLines(const QLineF*, int) override {}
    void drawRects(const QRectF*, int) override {}
    void drawEllipse(const QRectF&) override {}
    void drawPoints(const QPointF*, int) override {}
    void updateState(const QPaintEngineState& s) override {
        if (s.state() & DirtyTransform) transform_ = s.transform();
        if (s.state() & DirtyClipEnabled) clipped_ = s.isClipEnabled();
        if (s.state() & DirtyClipPath)
            setClip(transform_.map(s.clipPath()).boundingRect(), s.clipOperation());
        if (s.state() & DirtyClipRegion)
            setClip(transform_.map(s.clipRegion()).boundingRect(), s.clipOperation());
    }
    void drawTextItem(const QPointF& p, const QTextItem& item) override {
        QRectF rect(p.x(), p.y() - item.ascent(), item.width(), item.ascent() + item.descent());
        rect = transform_.mapRect(rect);
        if (clipped_) rect = rect.intersected(clip_);
        if (rect.isEmpty() || item.text().trimmed().isEmpty()) return;
        texts.push_back({item.text(), rect});
    }
    std::vector<DrawnText> texts;

  private:
    void setClip(const QRectF& rect, Qt::ClipOperation op) {
        if (op == Qt::NoClip) {
            clipped_ = false;
            return;
        }
        clip_ = op == Qt::IntersectClip && clipped_ ? clip_.intersected(rect) : rect;
        clipped_ = true;
    }
    QTransform transform_;
    QRectF clip_;
    bool clipped_ = false;
};

class TextDevice : public QPaintDevice {
  public:
    explicit TextDevice(QSize size) : size_(size) {}
    QPaintEngine* paintEngine() const override { return &engine_; }
    mutable TextEngine engine_;

  protected:
    int metric(PaintDeviceMetric m) const override {
        switch (m) {
            case PdmWidth:
                return size_.width();
            case PdmHeight:
                return size_.height();
            case PdmDpiX:
            case PdmDpiY:
            case PdmPhysicalDpiX:
            case PdmPhysicalDpiY:
                return 96;
            case PdmDepth:
                return 32;
            case PdmDevicePixelRatio:
                return 1;
            case PdmDevicePixelRatioScaled:
                return 1 * QPaintDevice::devicePixelRatioFScale();
            default:
                return 0;
        }
    }

  private:
    QSize size_;
};

QRectF pixelRect(QCPAxis* keyAxis, QCPAxis* valueAxis, double k0, double k1, double v0, double v1) {
    QPointF a, b;
    if (keyAxis->orientation() == Qt::Horizontal) {
        a = {keyAxis->coordToPixel(k0), valueAxis->coordToPixel(v0)};
        b = {keyAxis->coordToPixel(k1), valueAxis->coordToPixel(v1)};
    } else {
        a = {valueAxis->coordToPixel(v0), keyAxis->coordToPixel(k0)};
        b = {valueAxis->coordToPixel(v1), keyAxis->coordToPixel(k1)};
    }
    return QRectF(a, b).normalized();
}

void addData(QCPAbstractPlottable* p, std::vector<QRectF>& out) {
    QCPAxis* key = p->keyAxis();
    QCPAxis* value = p->valueAxis();
    if (!key || !value || !p->realVisibility()) return;
    const QRectF area = key->axisRect()->rect();
    auto keep = [&](const QRectF& r) {
        QRectF in = r.intersected(area);
        if (!in.isEmpty()) out.push_back(in);
    };
    if (auto* bars = qobject_cast<QCPBars*>(p)) {
        for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
            keep(pixelRect(key, value, it->key - bars->width() / 2, it->key + bars->width() / 2, 0,
                           it->value));
    } else if (auto* box = qobject_cast<QCPStatisticalBox*>(p)) {
        for (auto it = box->data()->constBegin(); it != box->data()->constEnd(); ++it)
            keep(pixelRect(key, value, it->key - box->width() / 2, it->key + box->width() / 2,
                           it->minimum, it->maximum));
    } else if (auto* graph = qobject_cast<QCPGraph*>(p)) {
        const double r = std::max(2.0, graph->scatterStyle().size() / 2);
        QPointF last;
        bool first = true;
        for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) {
            QPointF at = graph->coordsToPixels(it->key, it->value);
            keep(QRectF(at.x() - r, at.y() - r, 2 * r, 2 * r));
            // A line between points: small squares along it.
            if (!first && graph->lineStyle() != QCPGraph::lsNone) {
                double length = QLineF(last, at).length();
                for (double s = 3; s < length; s += 3) {
                    QPointF q = last + (at - last) * (s / length);
                    keep(QRectF(q.x() - 1.5, q.y() - 1.5, 3, 3));
                }
            }
            last = at;
            first = false;
        }
    }
}

QString describe(const DrawnText& t) {
    return QStringLiteral("'%1' [%2,%3 %4x%5]")
        .arg(t.text.left(40))
        .arg(t.rect.x(), 0, 'f', 0)
        .arg(t.rect.y(), 0, 'f', 0)
        .arg(t.rect.width(), 0, 'f', 0)
        .arg(t.rect.height(), 0, 'f', 0);
}

}  // namespace

PlotLayout probeLayout(QCustomPlot* plot) {
    PlotLayout layout;
    const QSize size = plot->size();
    layout.canvas = QRectF(QPointF(0, 0), QSizeF(size));
    TextDevice device(size);
    {
        const bool cached = plot->plottingHints().testFlag(QCP::phCacheLabels);
        plot->setPlottingHint(QCP::phCacheLabels, false);
        QCPPainter painter(&device);
        painter.setMode(QCPPainter::pmNoCaching);
        plot->toPainter(&painter, size.width(), size.height());
        painter.end();
        plot->setPlottingHint(QCP::phCacheLabels, cached);
    }
    // The layout of that render (toPainter restores the viewport, not the layout).
    plot->replot(QCustomPlot::rpImmediateRefresh);
    layout.texts = std::move(device.engine_.texts);
    for (auto* element : plot->plotLayout()->elements(true))
        if (auto* legend = qobject_cast<QCPLegend*>(element))
            if (legend->realVisibility() && legend->itemCount() > 0)
                layout.legends.push_back(legend->outerRect());
    for (auto* rect : plot->axisRects())
        for (auto* legend : rect->insetLayout()->elements(false))
            if (auto* l = qobject_cast<QCPLegend*>(legend))
                if (l->realVisibility() && l->itemCount() > 0)
                    layout.legends.push_back(l->outerRect());
    // An axis rect's inset legend is reached both ways: once is enough.
    std::sort(layout.legends.begin(), layout.legends.end(), [](const QRectF& a, const QRectF& b) {
        return std::make_pair(a.x(), a.y()) < std::make_pair(b.x(), b.y());
    });
    layout.legends.erase(std::unique(layout.legends.begin(), layout.legends.end()),
                         layout.legends.end());
    for (int i = 0; i < plot->plottableCount(); ++i)
        addData(plot->plottable(i), layout.data);
    return layout;
}

std::vector<QString> layoutProblems(const PlotLayout& layout) {
    std::vector<QString> problems;
    const auto& t = layout.texts;
    // A pixel of tolerance: glyph boxes of neighbouring lines may touch.
    auto core = [](const QRectF& r) { return r.adjusted(1, 1, -1, -1); };
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (!layout.canvas.adjusted(-1, -1, 1, 1).contains(t[i].rect))
            problems.push_back(QStringLiteral("past the edge: %1").arg(describe(t[i])));
        for (std::size_t j = i + 1; j < t.size(); ++j)
            if (core(t[i].rect).intersects(core(t[j].rect)))
                problems.push_back(
                    QStringLiteral("overlap: %1 and %2").arg(describe(t[i]), describe(t[j])));
    }
    for (const auto& legend : layout.legends) {
        for (const auto& d : layout.data)
            if (core(legend).intersects(d)) {
                problems.push_back(QStringLiteral("legend [%1,%2 %3x%4] covers data at %5,%6")
                                       .arg(legend.x())
                                       .arg(legend.y())
                                       .arg(legend.width())
                                       .arg(legend.height())
                                       .arg(d.center().x(), 0, 'f', 0)
                                       .arg(d.center().y(), 0, 'f', 0));
                break;
            }
        for (const auto& text : t)
            if (!legend.contains(text.rect) && core(legend).intersects(core(text.rect)))
                problems.push_back(QStringLiteral("legend covers %1").arg(describe(text)));
    }
    return problems;
}

}  // namespace ws::testing
