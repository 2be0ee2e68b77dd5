#include "timeline/lane_painter.h"

#include <QPainterPath>
#include <algorithm>
#include <cmath>

namespace ws::ui {

QColor colorForLabel(std::uint32_t label, LaneKind kind) {
    switch (kind) {
        case LaneKind::Memcpys:
            return QColor::fromHsv(static_cast<int>(20 + (label * 37) % 40), 170, 225);
        case LaneKind::ApiCalls:
            return QColor::fromHsv(static_cast<int>(200 + (label * 23) % 40), 90, 200);
        case LaneKind::Ranges:
            return QColor::fromHsv(static_cast<int>(260 + (label * 29) % 80), 110, 215);
        case LaneKind::Kernels:
            break;
    }
    // Kernels: well-separated hues from the label, in the green-teal-blue band.
    return QColor::fromHsv(static_cast<int>((90 + label * 47) % 200 + 60) % 360, 150, 205);
}

void paintLane(QPainter& p, const std::vector<lod::DrawItem>& items, const TimelineLane& lane,
               const std::vector<std::string>& labels, const QRectF& rect,
               const std::vector<bool>* highlight) {
    const qreal top = rect.top() + 1, h = rect.height() - 2;
    QFontMetrics fm(p.font());
    for (const auto& it : items) {
        qreal x0 = std::max<qreal>(it.x0, 0) + rect.left();
        qreal x1 = std::min<qreal>(it.x1, rect.width()) + rect.left();
        if (x1 <= x0) x1 = x0 + 1;
        std::uint32_t label = lane.events.label(it.first);
        if (it.folded()) {
            // An aggregate: height shows how busy the folded span is.
            QColor c = colorForLabel(label, lane.kind);
            c.setAlpha(200);
            qreal fill = std::max<qreal>(2, h * it.busy);
            p.fillRect(QRectF(x0, top + h - fill, x1 - x0, fill), c);
            continue;
        }
        bool marked = highlight && label < highlight->size() && (*highlight)[label];
        QRectF box(x0, top, x1 - x0, h);
        p.fillRect(box, marked ? QColor(255, 214, 0) : colorForLabel(label, lane.kind));
        if (box.width() > 30 && label < labels.size()) {
            p.setPen(QColor(20, 20, 20));
            p.drawText(box.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                       fm.elidedText(QString::fromStdString(labels[label]), Qt::ElideRight,
                                     static_cast<int>(box.width() - 5)));
        }
    }
}

void paintCoarseLane(QPainter& p, const std::vector<lod::DrawItem>& items, LaneKind kind,
                     const QRectF& rect) {
    const qreal top = rect.top() + 1, h = rect.height() - 2;
    QColor c = colorForLabel(0, kind);
    c.setAlpha(170);
    const QBrush hatch(c.darker(130), Qt::BDiagPattern);
    for (const auto& it : items) {
        qreal x0 = std::max<qreal>(it.x0, 0) + rect.left();
        qreal x1 = std::min<qreal>(it.x1, rect.width()) + rect.left();
        if (x1 <= x0) x1 = x0 + 1;
        qreal fill = std::max<qreal>(2, h * it.busy);
        QRectF bar(x0, top + h - fill, x1 - x0, fill);
        p.fillRect(bar, c);
        if (bar.width() > 6) p.fillRect(bar, hatch);
    }
}

QString timeLabel(std::int64_t ns, std::int64_t step) {
    auto fmt = [&](double v, const char* unit) {
        int decimals = 0;
        double s = static_cast<double>(step);
        double scale = v == 0 ? 1 : static_cast<double>(ns) / v;
        // As many decimals as the step needs: 20 µs ticks 50 s into a run
        // read 50.00002 s, not 50.000 s each.
        while (decimals < 9 && s / scale < 1 && s > 0) {
            ++decimals;
            scale /= 10;
        }
        return QString::number(v, 'f', decimals) + QString::fromUtf8(unit);
    };
    double a = static_cast<double>(std::llabs(ns));
    if (a >= 1e9 || step >= 1'000'000'000) return fmt(static_cast<double>(ns) / 1e9, " s");
    if (a >= 1e6 || step >= 1'000'000) return fmt(static_cast<double>(ns) / 1e6, " ms");
    if (a >= 1e3 || step >= 1'000) return fmt(static_cast<double>(ns) / 1e3, " µs");
    return QString::number(ns) + QStringLiteral(" ns");
}

void paintRuler(QPainter& p, const lod::TimeAxis& axis, std::int64_t zeroNs, const QRectF& rect,
                const QColor& background, const QColor& text) {
    p.fillRect(rect, background);
    p.setPen(QColor(0x9a, 0xa0, 0xa6));
    p.drawLine(rect.bottomLeft(), rect.bottomRight());
    std::int64_t step = lod::rulerStep(axis.nsPerPx, 90);
    std::int64_t rel0 = axis.originNs - zeroNs;
    std::int64_t first = (rel0 / step) * step;
    if (first < rel0) first += step;
    p.setPen(text);
    for (std::int64_t t = first; t < rel0 + static_cast<std::int64_t>(axis.widthPx * axis.nsPerPx);
         t += step) {
        qreal x = rect.left() + axis.toPx(t + zeroNs);
        p.drawLine(QPointF(x, rect.bottom() - 6), QPointF(x, rect.bottom()));
        p.drawText(QPointF(x + 3, rect.bottom() - 8), timeLabel(t, step));
    }
}

void paintCounter(QPainter& p, const CounterTrack& track, const lod::TimeAxis& axis,
                  const QRectF& rect) {
    const auto& t = track.timeNs;
    if (t.empty() || track.maxValue <= 0) return;
    // Only the samples on screen, from the one holding at the left edge.
    auto first = std::upper_bound(t.begin(), t.end(), axis.toTime(0));
    const std::size_t begin = first == t.begin() ? 0 : std::size_t(first - t.begin()) - 1;
    const std::size_t end =
        std::size_t(std::upper_bound(t.begin(), t.end(), axis.toTime(rect.width())) - t.begin());
    auto xOf = [&](std::int64_t time) {
        return rect.left() + std::clamp<qreal>(axis.toPx(time), -1, rect.width() + 1);
    };
    auto yOf = [&](double v) {
        return rect.bottom() - (rect.height() - 2) * std::clamp(v / track.maxValue, 0.0, 1.0);
    };
    QPainterPath path;
    bool started = false;
    auto step = [&](qreal from, qreal to, double v) {  // a value held from `from` to `to`
        if (!started) path.moveTo(from, rect.bottom());
        started = true;
        path.lineTo(from, yOf(v));
        path.lineTo(to, yOf(v));
    };
    // Samples narrower than a pixel (10 kHz GPU metrics zoomed out) are
    // drawn as their time-weighted mean per pixel column: one step a pixel,
    // however many samples the run holds.
    qreal columnFrom = 0, columnTo = 0;
    double sum = 0, weight = 0;
    int column = 0;
    auto flushColumn = [&] {
        if (weight > 0) step(columnFrom, columnTo, sum / weight);
        sum = weight = 0;
    };
    for (std::size_t i = begin; i < end; ++i) {
        const qreal xs = xOf(t[i]);
        // A sample holds until the next one; the last for one pixel.
        const qreal xe = i + 1 < t.size() ? xOf(t[i + 1]) : xs + 1;
        if (xe - xs >= 1) {
            flushColumn();
            step(xs, xe, track.value[i]);
            continue;
        }
        const int col = static_cast<int>(std::floor(xs));
        if (weight > 0 && col != column) flushColumn();
        if (weight == 0) {
            columnFrom = xs;
            column = col;
        }
        const double w = std::max<qreal>(xe - xs, 1e-9);
        sum += track.value[i] * w;
        weight += w;
        columnTo = xe;
    }
    flushColumn();
    if (!started) return;
    path.lineTo(path.currentPosition().x(), rect.bottom());
    path.closeSubpath();
    p.setPen(QColor(0xe6, 0x7e, 0x22));
    p.setBrush(QColor(0xe6, 0x7e, 0x22, 70));
    p.drawPath(path);
    p.setBrush(Qt::NoBrush);
}

}  // namespace ws::ui
