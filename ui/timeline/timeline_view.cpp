#include "timeline/timeline_view.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QLocale>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <QWheelEvent>

#include "timeline/lane_painter.h"
#include "util/format.h"

namespace ws::ui {

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setMinimumHeight(160);
    setAutoFillBackground(false);
}

void TimelineView::setData(std::shared_ptr<const TimelineData> data) {
    data_ = std::move(data);
    highlight_.clear();
    selection_ = {};
    launch_ = {};
    launched_.clear();
    marked_.reset();
    scrollY_ = 0;
    fitAll();
}

void TimelineView::markInterval(std::optional<std::pair<std::int64_t, std::int64_t>> interval) {
    marked_ = interval;
    update();
}

void TimelineView::fitAll() {
    axis_.widthPx = std::max(1, width() - kHeaderWidth);
    if (data_ && data_->endNs > data_->beginNs) {
        auto pad = (data_->endNs - data_->beginNs) / 50;
        axis_.fit(data_->beginNs - pad, data_->endNs + pad);
    } else if (data_) {
        // Nothing timed: a second from the run's start, not the last run's axis.
        axis_.fit(data_->beginNs, data_->beginNs + 1'000'000'000);
    }
    update();
}

void TimelineView::zoomTo(std::int64_t beginNs, std::int64_t endNs) {
    axis_.widthPx = std::max(1, width() - kHeaderWidth);
    axis_.fit(beginNs, endNs);
    update();
}

std::size_t TimelineView::setSearch(const QString& text) {
    highlight_.clear();
    std::size_t matches = 0;
    if (!data_ || text.isEmpty()) {
        update();
        return 0;
    }
    highlight_.resize(data_->labels.size());
    for (std::size_t i = 0; i < data_->labels.size(); ++i)
        highlight_[i] =
            QString::fromStdString(data_->labels[i]).contains(text, Qt::CaseInsensitive);
    for (const auto& lane : data_->lanes)
        for (std::size_t e = 0; e < lane.events.size(); ++e)
            if (highlight_[lane.events.label(e)]) ++matches;
    update();
    return matches;
}

bool TimelineView::findNext(bool backwards) {
    if (!data_ || highlight_.empty()) return false;
    // Candidates are ordered by start time across lanes.
    std::int64_t from = selection_.lane >= 0
                            ? data_->lanes[static_cast<std::size_t>(selection_.lane)].events.start(
                                  static_cast<std::size_t>(selection_.event))
                            : (backwards ? std::numeric_limits<std::int64_t>::max()
                                         : std::numeric_limits<std::int64_t>::min());
    int bestLane = -1;
    long bestEvent = -1;
    std::int64_t bestT = 0;
    for (std::size_t l = 0; l < data_->lanes.size(); ++l) {
        const auto& ev = data_->lanes[l].events;
        for (std::size_t e = 0; e < ev.size(); ++e) {
            if (!highlight_[ev.label(e)]) continue;
            std::int64_t t = ev.start(e);
            bool after = backwards ? t < from : t > from;
            bool better = bestLane < 0 || (backwards ? t > bestT : t < bestT);
            if (after && better) {
                bestLane = static_cast<int>(l);
                bestEvent = static_cast<long>(e);
                bestT = t;
            }
        }
    }
    if (bestLane < 0) return false;
    const auto& ev = data_->lanes[static_cast<std::size_t>(bestLane)].events;
    std::int64_t span = static_cast<std::int64_t>(axis_.widthPx * axis_.nsPerPx);
    auto mid = (ev.start(static_cast<std::size_t>(bestEvent)) +
                ev.end(static_cast<std::size_t>(bestEvent))) /
               2;
    axis_.originNs = mid - span / 2;
    select(bestLane, bestEvent);
    return true;
}

QString TimelineView::describe(int laneIndex, long event) const {
    if (!data_ || laneIndex < 0 || event < 0) return {};
    const auto& lane = data_->lanes[static_cast<std::size_t>(laneIndex)];
    auto e = static_cast<std::size_t>(event);
    const auto& name = data_->labels[lane.events.label(e)];
    return QStringLiteral("%1\n%2 · %3\nstart %4 after run start\nduration %5")
        .arg(QString::fromStdString(name), lane.group, lane.title,
             timeLabel(lane.events.start(e) - data_->beginNs, 1000),
             QString::fromStdString(formatDuration(lane.events.end(e) - lane.events.start(e))));
}

int TimelineView::lanesTop() const {
    int counters = data_ ? static_cast<int>(data_->counters.size()) : 0;
    return kRulerHeight + kTokenHeight + counters * kCounterHeight - scrollY_;
}

int TimelineView::laneAt(int y) const {
    if (!data_) return -1;
    int i = (y - lanesTop()) / kLaneHeight;
    if (y < lanesTop() || i >= static_cast<int>(data_->lanes.size())) return -1;
    return i;
}

void TimelineView::select(int lane, long event) {
    selection_ = {lane, event};
    launch_ = {};
    launched_.clear();
    QString text = describe(lane, event);
    if (data_ && lane >= 0 &&
        data_->lanes[static_cast<std::size_t>(lane)].kind == LaneKind::ApiCalls) {
        launched_ = launchedKernels(*data_, lane, event);
        if (launched_.size() > 1)
            text += tr("\nlaunched %1 kernels (flows drawn to each)").arg(launched_.size());
    } else if (data_ && lane >= 0) {
        auto [callLane, call] = launchingCall(*data_, lane, event);
        launch_ = {callLane, call};
    }
    update();
    emit eventSelected(lane, event, text);
}

void TimelineView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    // Colours follow the palette, so the timeline works in light and dark themes.
    const QPalette& pal = palette();
    const QColor base = pal.color(QPalette::Base), text = pal.color(QPalette::Text),
                 stripe = pal.color(QPalette::AlternateBase), chrome = pal.color(QPalette::Window),
                 rule = pal.color(QPalette::Mid);
    p.fillRect(rect(), base);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    p.setFont(small);
    if (!data_) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("Select a run to see its timeline."));
        return;
    }
    const qreal left = kHeaderWidth, w = axis_.widthPx;
    int y = kRulerHeight + kTokenHeight - scrollY_;
    if (data_->eventCount == 0) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(QRectF(left + 12, lanesTop() + 8, w - 24, 60), Qt::TextWordWrap,
                   data_->tokenTimes.empty()
                       ? tr("Run %1 recorded no GPU activity and no NVTX ranges.").arg(data_->run)
                       : tr("Run %1 recorded no GPU activity (a benchmark client without its "
                            "server, or an import without kernels): the marks above are its "
                            "tokens; its requests are in the Requests and Latency charts.")
                             .arg(data_->run));
    }
    // Counter tracks.
    for (const auto& track : data_->counters) {
        QRectF r(left, y, w, kCounterHeight - 4);
        paintCounter(p, track, axis_, r);
        p.setPen(text);
        p.drawText(QRectF(6, y, kHeaderWidth - 10, kCounterHeight - 4), Qt::AlignVCenter,
                   QStringLiteral("%1  max %2").arg(track.title).arg(track.maxValue, 0, 'f', 0));
        y += kCounterHeight;
    }
    // Lanes, with alternating backgrounds and their group/title on the left.
    QString lastGroup;
    for (std::size_t i = 0; i < data_->lanes.size(); ++i, y += kLaneHeight) {
        if (y + kLaneHeight < kRulerHeight || y > height()) continue;
        const auto& lane = data_->lanes[i];
        QRectF r(left, y, w, kLaneHeight);
        if (i % 2) p.fillRect(QRectF(0, y, width(), kLaneHeight), stripe);
        p.setClipRect(r);
        paintLane(p, lod::buildDrawList(lane.events, axis_), lane, data_->labels, r, &highlight_);
        if (static_cast<int>(i) == selection_.lane && selection_.event >= 0) {
            auto e = static_cast<std::size_t>(selection_.event);
            qreal x0 = left + axis_.toPx(lane.events.start(e)),
                  x1 = left + axis_.toPx(lane.events.end(e));
            p.setPen(QPen(QColor(0xd3, 0x2f, 0x2f), 2));
            p.drawRect(QRectF(x0, y + 1, std::max<qreal>(x1 - x0, 2), kLaneHeight - 2));
        }
        p.setClipping(false);
        p.setPen(text);
        QString head =
            lane.group == lastGroup ? lane.title : lane.group + QStringLiteral(" · ") + lane.title;
        lastGroup = lane.group;
        p.drawText(QRectF(6, y, kHeaderWidth - 10, kLaneHeight), Qt::AlignVCenter,
                   QFontMetrics(small).elidedText(head, Qt::ElideRight, kHeaderWidth - 12));
    }
    // A flow line from the selected kernel's launch call to the kernel.
    if (launch_.lane >= 0 && selection_.lane >= 0) {
        auto rowY = [&](int lane) { return lanesTop() + lane * kLaneHeight + kLaneHeight / 2.0; };
        const auto& callLane = data_->lanes[static_cast<std::size_t>(launch_.lane)].events;
        const auto& kernelLane = data_->lanes[static_cast<std::size_t>(selection_.lane)].events;
        auto c = static_cast<std::size_t>(launch_.event),
             k = static_cast<std::size_t>(selection_.event);
        QPointF from(left + axis_.toPx(callLane.start(c)), rowY(launch_.lane));
        QPointF to(left + axis_.toPx(kernelLane.start(k)), rowY(selection_.lane));
        p.setClipRect(QRectF(left, kRulerHeight + kTokenHeight, w, height()));
        p.setPen(QPen(QColor(0xd3, 0x2f, 0x2f), 2));
        p.drawRect(
            QRectF(from.x(), from.y() - kLaneHeight / 2.0 + 1,
                   std::max<qreal>(axis_.toPx(callLane.end(c)) - axis_.toPx(callLane.start(c)), 2),
                   kLaneHeight - 2));
        QPainterPath flow(from);
        flow.cubicTo(QPointF(from.x() + 30, from.y()), QPointF(to.x() - 30, to.y()), to);
        p.drawPath(flow);
        p.setBrush(QColor(0xd3, 0x2f, 0x2f));
        p.drawPolygon(QPolygonF({to, to + QPointF(-7, -4), to + QPointF(-7, 4)}));
        p.setBrush(Qt::NoBrush);
        p.setClipping(false);
    }
    // Flows from a selected launch call to the kernels it launched: one for
    // cudaLaunchKernel, each kernel of the graph for cudaGraphLaunch.
    if (!launched_.empty() && selection_.lane >= 0) {
        auto rowY = [&](int lane) { return lanesTop() + lane * kLaneHeight + kLaneHeight / 2.0; };
        const auto& call = data_->lanes[static_cast<std::size_t>(selection_.lane)].events;
        QPointF from(left + axis_.toPx(call.start(static_cast<std::size_t>(selection_.event))),
                     rowY(selection_.lane));
        p.setClipRect(QRectF(left, kRulerHeight + kTokenHeight, w, height()));
        QColor flowColour(0xd3, 0x2f, 0x2f);
        if (launched_.size() > 1) flowColour.setAlpha(140);
        p.setPen(QPen(flowColour, launched_.size() > 1 ? 1 : 2));
        for (auto [lane, event] : launched_) {
            const auto& k = data_->lanes[static_cast<std::size_t>(lane)].events;
            QPointF to(left + axis_.toPx(k.start(static_cast<std::size_t>(event))), rowY(lane));
            if (to.x() < left - 50 || to.x() > left + w + 50) continue;  // off screen
            QPainterPath flow(from);
            flow.cubicTo(QPointF(from.x() + 30, from.y()), QPointF(to.x() - 30, to.y()), to);
            p.drawPath(flow);
        }
        p.setClipping(false);
    }
    // Token marks, ruler and header separator stay on top.
    QRectF tokens(left, kRulerHeight, w, kTokenHeight);
    p.fillRect(QRectF(0, kRulerHeight, width(), kTokenHeight), base);
    p.setPen(text);
    p.drawText(QRectF(6, kRulerHeight, kHeaderWidth - 10, kTokenHeight), Qt::AlignVCenter,
               tr("Tokens (%1)").arg(data_->tokenTimes.size()));
    p.setPen(QPen(QColor(0xd3, 0x2f, 0x2f), 1.5));
    for (auto t : data_->tokenTimes) {
        qreal x = left + axis_.toPx(t);
        if (x >= left && x <= left + w)
            p.drawLine(QPointF(x, tokens.top() + 2), QPointF(x, tokens.bottom() - 1));
    }
    paintRuler(p, axis_, data_->beginNs, QRectF(left, 0, w, kRulerHeight), chrome, text);
    p.fillRect(QRectF(0, 0, kHeaderWidth, kRulerHeight), chrome);
    p.setPen(text);
    p.drawText(QRectF(6, 0, kHeaderWidth - 10, kRulerHeight), Qt::AlignVCenter,
               tr("%1 events").arg(QLocale().toString(static_cast<qlonglong>(data_->eventCount))));
    p.setPen(rule);
    p.drawLine(QPointF(kHeaderWidth - 0.5, 0), QPointF(kHeaderWidth - 0.5, height()));
    if (marked_) {
        // A marked interval (an ITL between two tokens): a band over every
        // lane, bounded by lines at the two token times.
        qreal x0 = std::max<qreal>(left + axis_.toPx(marked_->first), left),
              x1 = std::min<qreal>(left + axis_.toPx(marked_->second), left + w);
        if (x1 > x0) {
            QRectF band(x0, kRulerHeight, x1 - x0, height() - kRulerHeight);
            p.fillRect(band, QColor(0xd3, 0x2f, 0x2f, 28));
            p.setPen(QPen(QColor(0xd3, 0x2f, 0x2f), 1, Qt::DashLine));
            p.drawLine(band.topLeft(), band.bottomLeft());
            p.drawLine(band.topRight(), band.bottomRight());
        }
    }
    if (selectFromX_) {
        int a = std::min(*selectFromX_, selectToX_), b = std::max(*selectFromX_, selectToX_);
        p.fillRect(QRect(a, 0, b - a, height()), QColor(30, 136, 229, 50));
    }
}

void TimelineView::resizeEvent(QResizeEvent*) {
    int old = axis_.widthPx;
    axis_.widthPx = std::max(1, width() - kHeaderWidth);
    if (old <= 1) fitAll();
}

void TimelineView::wheelEvent(QWheelEvent* e) {
    if (e->modifiers() & Qt::ShiftModifier) {
        scrollY_ = std::max(0, scrollY_ - e->angleDelta().y() / 4);
    } else {
        double factor = std::pow(1.0015, e->angleDelta().y());
        axis_.zoom(factor, e->position().x() - kHeaderWidth);
    }
    update();
}

void TimelineView::mousePressEvent(QMouseEvent* e) {
    dragged_ = false;
    if (e->button() == Qt::RightButton) {
        selectFromX_ = selectToX_ = static_cast<int>(e->position().x());
    } else {
        dragFrom_ = e->pos();
    }
}

void TimelineView::mouseMoveEvent(QMouseEvent* e) {
    if (dragFrom_) {
        int dx = e->pos().x() - dragFrom_->x();
        int dy = e->pos().y() - dragFrom_->y();
        if (std::abs(dx) + std::abs(dy) > 2) dragged_ = true;
        axis_.pan(dx);
        scrollY_ = std::max(0, scrollY_ - dy);
        dragFrom_ = e->pos();
        update();
    } else if (selectFromX_) {
        selectToX_ = static_cast<int>(e->position().x());
        update();
    }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* e) {
    if (selectFromX_) {
        int a = std::min(*selectFromX_, selectToX_) - kHeaderWidth;
        int b = std::max(*selectFromX_, selectToX_) - kHeaderWidth;
        selectFromX_.reset();
        if (b - a > 4) zoomTo(axis_.toTime(a), axis_.toTime(b));
        update();
        return;
    }
    dragFrom_.reset();
    if (dragged_ || !data_) return;
    int lane = laneAt(e->pos().y());
    if (lane < 0) return;
    long hit = lod::hitTest(data_->lanes[static_cast<std::size_t>(lane)].events, axis_,
                            e->position().x() - kHeaderWidth);
    if (hit >= 0) select(lane, hit);
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent*) {
    fitAll();
}

void TimelineView::keyPressEvent(QKeyEvent* e) {
    double centre = axis_.widthPx / 2.0;
    switch (e->key()) {
        case Qt::Key_Plus:
        case Qt::Key_Equal:
        case Qt::Key_W:
            axis_.zoom(1.5, centre);
            break;
        case Qt::Key_Minus:
        case Qt::Key_S:
            axis_.zoom(1 / 1.5, centre);
            break;
        case Qt::Key_Left:
        case Qt::Key_A:
            axis_.pan(axis_.widthPx / 8.0);
            break;
        case Qt::Key_Right:
        case Qt::Key_D:
            axis_.pan(-axis_.widthPx / 8.0);
            break;
        case Qt::Key_Home:
            fitAll();
            break;
        case Qt::Key_F3:
            findNext(e->modifiers() & Qt::ShiftModifier);
            break;
        default:
            QWidget::keyPressEvent(e);
            return;
    }
    update();
}

bool TimelineView::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip && data_) {
        auto* help = static_cast<QHelpEvent*>(e);
        int lane = laneAt(help->pos().y());
        double x = help->pos().x() - kHeaderWidth;
        if (lane >= 0 && x >= 0) {
            const auto& ev = data_->lanes[static_cast<std::size_t>(lane)].events;
            for (const auto& item : lod::buildDrawList(ev, axis_)) {
                if (x < item.x0 - 1 || x > item.x1 + 1) continue;
                QString text = item.count > 1
                                   ? tr("%1 events folded, %2% busy\nzoom in to see them")
                                         .arg(item.count)
                                         .arg(item.busy * 100, 0, 'f', 0)
                                   : describe(lane, item.first);
                QToolTip::showText(help->globalPos(), text, this);
                return true;
            }
        }
        QToolTip::hideText();
        e->ignore();
        return true;
    }
    return QWidget::event(e);
}

}  // namespace ws::ui
