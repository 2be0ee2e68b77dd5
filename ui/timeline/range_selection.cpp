#include "timeline/range_selection.h"

#include <QFontMetricsF>
#include <algorithm>

namespace ws::ui {

std::optional<TimeRange> RangeSelection::finishDrag(std::int64_t minNs) {
    auto drag = shown();
    bool wasDragging = dragging();
    drag_.reset();
    if (!wasDragging || !drag || drag->second - drag->first < std::max<std::int64_t>(minNs, 1))
        return std::nullopt;
    range_ = drag;
    return range_;
}

std::optional<TimeRange> RangeSelection::shown() const {
    if (drag_)
        return TimeRange{std::min(drag_->first, drag_->second),
                         std::max(drag_->first, drag_->second)};
    return range_;
}

QString rangeLengthLabel(std::int64_t ns) {
    if (ns < 1'000) return QStringLiteral("%1 ns").arg(ns);
    // Four significant digits: 1.234 ms, 12.35 ms, 123.5 ms.
    auto fmt = [](double v, const char* unit) {
        int decimals = v < 10 ? 3 : v < 100 ? 2 : 1;
        return QString::number(v, 'f', decimals) + QString::fromUtf8(unit);
    };
    double v = static_cast<double>(ns);
    if (ns < 1'000'000) return fmt(v / 1e3, " µs");
    if (ns < 1'000'000'000) return fmt(v / 1e6, " ms");
    return fmt(v / 1e9, " s");
}

void paintRangeBand(QPainter& p, const lod::TimeAxis& axis, const TimeRange& range,
                    const QRectF& lanes, const QRectF& ruler) {
    const QColor edge(0x5e, 0x35, 0xb1);  // violet: apart from the red ITL band
    const qreal x0 = lanes.left() + axis.toPx(range.first),
                x1 = lanes.left() + axis.toPx(range.second);
    const qreal a = std::max(x0, lanes.left()), b = std::min(x1, lanes.right());
    p.save();
    if (b > a) {
        p.fillRect(QRectF(a, lanes.top(), b - a, lanes.height()), QColor(0x5e, 0x35, 0xb1, 40));
        p.setPen(QPen(edge, 1));
        if (x0 >= lanes.left()) p.drawLine(QPointF(x0, ruler.top()), QPointF(x0, lanes.bottom()));
        if (x1 <= lanes.right()) p.drawLine(QPointF(x1, ruler.top()), QPointF(x1, lanes.bottom()));
    }
    // The length, centred over the visible part of the band, kept on the ruler.
    const QString text = rangeLengthLabel(range.second - range.first);
    QFontMetricsF fm(p.font());
    const qreal w = fm.horizontalAdvance(text) + 10, h = std::min(fm.height() + 4, ruler.height());
    qreal cx = b > a ? (a + b) / 2 : (x1 < lanes.left() ? lanes.left() : lanes.right());
    cx = std::clamp(cx, ruler.left() + w / 2, ruler.right() - w / 2);
    QRectF box(cx - w / 2, ruler.top() + 1, w, h);
    p.setPen(Qt::NoPen);
    p.setBrush(edge);
    p.drawRoundedRect(box, 3, 3);
    p.setPen(Qt::white);
    p.drawText(box, Qt::AlignCenter, text);
    p.restore();
}

}  // namespace ws::ui
