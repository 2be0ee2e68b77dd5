#include "timeline/timeline_view.h"

#include <QFontMetricsF>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLocale>
#include <QMenu>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "timeline/lane_painter.h"
#include "timeline/match_order.h"
#include "util/format.h"

namespace ws::ui {

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setMinimumHeight(160);
    setAutoFillBackground(false);
    detailTimer_ = new QTimer(this);
    detailTimer_->setSingleShot(true);
    detailTimer_->setInterval(150);
    connect(detailTimer_, &QTimer::timeout, this, &TimelineView::requestDetail);
}

void TimelineView::setData(std::shared_ptr<const TimelineData> data) {
    const bool sameRun = data_ && data && data_->run == data->run;
    data_ = std::move(data);
    highlight_.clear();
    search_.clear();
    selection_ = {};
    pendingReveal_.reset();
    launch_ = {};
    launched_.clear();
    marked_.reset();
    scrollY_ = 0;
    lanes_.setLanes(data_.get(), sameRun);
    range_.cancelDrag();
    if (!sameRun) clearRange();
    requested_.reset();
    checkedView_.reset();
    eventsInView_ = 0;
    fitAll();
    emit laneVisibilityChanged();
    emit searchMatchesChanged();
}

void TimelineView::setDetail(std::shared_ptr<const TimelineData> data) {
    if (!data_ || !data || !data_->paged || data->run != data_->run) return;
    // The selected event by lane and start: indices change with the window.
    std::optional<std::int64_t> selectedStart;
    if (selection_.lane >= 0 && selection_.event >= 0 &&
        static_cast<std::size_t>(selection_.lane) < data_->lanes.size())
        selectedStart = data_->lanes[static_cast<std::size_t>(selection_.lane)].events.start(
            static_cast<std::size_t>(selection_.event));
    const int selectedLane = selection_.lane;
    data_ = std::move(data);
    if (requested_ == data_->detail) requested_.reset();
    lanes_.setLanes(data_.get(), /*sameRun=*/true);
    selection_ = {};
    launch_ = {};
    launched_.clear();
    if (!search_.isEmpty())
        setSearch(search_);  // labels differ between windows
    else
        emit searchMatchesChanged();
    if (pendingReveal_) {
        if (auto i = loadedEvent(pendingReveal_->first, pendingReveal_->second))
            select(pendingReveal_->first, *i);
        // Asked for once: a window that holds its time ends the wait.
        if (data_->detail && data_->detail->first <= pendingReveal_->second &&
            pendingReveal_->second < data_->detail->second)
            pendingReveal_.reset();
    } else if (selectedStart) {
        if (auto i = loadedEvent(selectedLane, *selectedStart)) select(selectedLane, *i);
    }
    update();
}

std::optional<long> TimelineView::loadedEvent(int lane, std::int64_t startNs) const {
    if (!data_ || lane < 0 || lane >= static_cast<int>(data_->lanes.size())) return std::nullopt;
    const auto& ev = data_->lanes[static_cast<std::size_t>(lane)].events;
    std::size_t i = ev.firstStartingFrom(startNs, 0);
    if (i < ev.size() && ev.start(i) == startNs) return static_cast<long>(i);
    return std::nullopt;
}

void TimelineView::revealEvent(int lane, std::int64_t startNs, std::int64_t endNs) {
    if (!data_ || lane < 0 || lane >= static_cast<int>(data_->lanes.size())) return;
    if (auto i = loadedEvent(lane, startNs)) {
        pendingReveal_.reset();
        selectEvent(lane, *i);
        return;
    }
    pendingReveal_ = {lane, startNs};
    // The event a tenth of the width, at least 10 µs in view: a part small
    // enough to load, with some of what surrounds it.
    axis_.widthPx = std::max(1, width() - kHeaderWidth);
    const double span = std::max(10.0 * static_cast<double>(endNs - startNs), 10'000.0);
    axis_.nsPerPx = span / axis_.widthPx;
    axis_.originNs = startNs + (endNs - startNs) / 2 - static_cast<std::int64_t>(span / 2);
    scrollLaneIntoView(lane);
    requestDetail();
}

void TimelineView::scrollLaneIntoView(int lane) {
    if (auto top = laneTop(lane)) {
        const int above = kRulerHeight + kTokenHeight;
        if (*top < above)
            scrollTo(scrollY_ - (above - *top));
        else if (*top + kLaneHeight > height())
            scrollTo(scrollY_ + *top + kLaneHeight - height());
    }
}

bool TimelineView::showsSingleEvents() const {
    return !data_ || !data_->paged || detailCovers(*data_, axis_.originNs, axis_.endNs());
}

void TimelineView::requestDetail() {
    if (!data_ || !data_->paged || showsSingleEvents()) return;
    const std::int64_t t0 = axis_.originNs, t1 = axis_.endNs();
    checkedView_ = {t0, t1};
    if (requested_ && requested_->first <= t0 && t1 <= requested_->second) return;
    auto window = detailWindowFor(*data_, t0, t1, detailBudget_);
    eventsInView_ = window ? 0 : overviewEventsIn(*data_, t0, t1);
    if (window) {
        requested_ = window;
        emit detailWanted(window->first, window->second);
    }
    update();
}

void TimelineView::paintPagingNote(QPainter& p, const QRectF& area) {
    QString note;
    if (eventsInView_ > 0)
        note = tr("Overview of ~%1 events: zoom in to a part of ≤ %2 to see each one")
                   .arg(QLocale().toString(static_cast<qulonglong>(eventsInView_)),
                        QLocale().toString(static_cast<qulonglong>(detailBudget_)));
    else if (requested_)
        note = tr("Overview: loading the single events of this part…");
    else
        return;
    // At the bottom, over the lanes least likely to be read.
    QFontMetrics fm(p.font());
    const qreal width = std::min<qreal>(fm.horizontalAdvance(note) + 16, area.width() - 16);
    QRectF box(area.left() + 8, area.bottom() - fm.height() - 12, width, fm.height() + 6);
    p.fillRect(box, QColor(255, 248, 196, 235));
    p.setPen(QColor(60, 60, 60));
    p.drawText(box, Qt::AlignCenter,
               fm.elidedText(note, Qt::ElideRight, static_cast<int>(width - 12)));
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
    search_ = data_ ? text : QString();
    if (data_ && !text.isEmpty()) {
        highlight_.resize(data_->labels.size());
        for (std::size_t i = 0; i < data_->labels.size(); ++i)
            highlight_[i] =
                QString::fromStdString(data_->labels[i]).contains(text, Qt::CaseInsensitive);
    }
    update();
    emit searchMatchesChanged();
    return searchMatchCount();
}

std::size_t TimelineView::searchMatchCount() const {
    return data_ ? countMatches(*data_, highlight_, lanes_) : 0;
}

std::vector<std::pair<int, long>> TimelineView::searchMatches(std::size_t limit) const {
    if (!data_) return {};
    return orderedMatches(*data_, highlight_, lanes_, limit);
}

bool TimelineView::findNext(bool backwards) {
    if (!data_ || highlight_.empty()) return false;
    auto [lane, event] =
        adjacentMatch(*data_, highlight_, lanes_, {selection_.lane, selection_.event}, backwards);
    if (lane < 0) return false;
    centreOn(lane, event, false);
    select(lane, event);
    return true;
}

void TimelineView::selectEvent(int lane, long event) {
    if (!data_ || lane < 0 || lane >= static_cast<int>(data_->lanes.size()) || event < 0 ||
        static_cast<std::size_t>(event) >=
            data_->lanes[static_cast<std::size_t>(lane)].events.size())
        return;
    centreOn(lane, event, true);
    select(lane, event);
}

void TimelineView::centreOn(int lane, long event, bool zoomIn) {
    const auto& ev = data_->lanes[static_cast<std::size_t>(lane)].events;
    const std::int64_t start = ev.start(static_cast<std::size_t>(event)),
                       end = ev.end(static_cast<std::size_t>(event));
    axis_.widthPx = std::max(1, width() - kHeaderWidth);
    // Narrower than 4 px: zoom so that it takes a tenth of the width.
    if (zoomIn && static_cast<double>(end - start) / axis_.nsPerPx < 4)
        axis_.nsPerPx = std::max(1e-3, static_cast<double>(std::max<std::int64_t>(end - start, 1)) /
                                           (axis_.widthPx / 10.0));
    auto span = static_cast<std::int64_t>(axis_.widthPx * axis_.nsPerPx);
    axis_.originNs = start + (end - start) / 2 - span / 2;
    scrollLaneIntoView(lane);  // below the ruler and the token row
    update();
}

void TimelineView::setLaneHidden(int lane, bool hidden) {
    if (lane < 0 || lane >= lanes_.laneCount() || lanes_.hidden(lane) == hidden) return;
    lanes_.setHidden(lane, hidden);
    visibilityChanged();
}

bool TimelineView::laneHidden(int lane) const {
    return lanes_.hidden(lane);
}

bool TimelineView::laneVisible(int lane) const {
    return lanes_.visible(lane);
}

void TimelineView::setLaneFilter(const QString& text) {
    if (text.trimmed() == lanes_.filter()) return;
    lanes_.setFilter(text);
    visibilityChanged();
}

void TimelineView::showAllLanes() {
    lanes_.showAll();
    visibilityChanged();
}

void TimelineView::visibilityChanged() {
    scrollTo(scrollY_);
    update();
    emit laneVisibilityChanged();
    emit searchMatchesChanged();
}

void TimelineView::showLaneMenu(int lane, const QPoint& globalPos) {
    const auto& l = data_->lanes[static_cast<std::size_t>(lane)];
    auto* menu = new QMenu(this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    const auto run = data_->run;
    menu->addAction(tr("Hide %1 · %2").arg(l.group, l.title), this, [this, lane, run] {
        if (data_ && data_->run == run) setLaneHidden(lane, true);
    });
    menu->addAction(tr("Show All Lanes"), this, &TimelineView::showAllLanes)
        ->setEnabled(lanes_.rowCount() < lanes_.laneCount());
    menu->popup(globalPos);
}

void TimelineView::selectRange(std::int64_t beginNs, std::int64_t endNs) {
    if (beginNs > endNs) std::swap(beginNs, endNs);
    if (beginNs == endNs) return;
    range_.setRange(TimeRange{beginNs, endNs});
    update();
    emit rangeSelected(beginNs, endNs);
}

void TimelineView::clearRange() {
    if (!range_.range()) return;
    range_.setRange(std::nullopt);
    update();
    emit rangeCleared();
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
    int counters = 0;
    if (data_)
        for (const auto& c : data_->counters)
            counters += c.underGpuLanes ? 0 : 1;
    return kRulerHeight + kTokenHeight + counters * kCounterHeight - scrollY_;
}

int TimelineView::gpuTracksHeight() const {
    int n = 0;
    if (data_)
        for (const auto& c : data_->counters)
            n += c.underGpuLanes ? 1 : 0;
    return n * kCounterHeight;
}

int TimelineView::rowBeforeGpuTracks() const {
    int last = -1;
    if (!data_) return last;
    for (int row = 0; row < lanes_.rowCount(); ++row) {
        const auto kind = data_->lanes[static_cast<std::size_t>(lanes_.laneAtRow(row))].kind;
        if (kind == LaneKind::Kernels || kind == LaneKind::Memcpys) last = row;
    }
    return last;
}

int TimelineView::rowTop(int row) const {
    return lanesTop() + row * kLaneHeight + (row > rowBeforeGpuTracks() ? gpuTracksHeight() : 0);
}

int TimelineView::contentHeight() const {
    return lanesTop() + scrollY_ + lanes_.rowCount() * kLaneHeight + gpuTracksHeight();
}

void TimelineView::scrollTo(int y) {
    scrollY_ = std::clamp(y, 0, std::max(0, contentHeight() - height()));
}

int TimelineView::laneAt(int y) const {
    // Lanes scrolled under the ruler and token row are covered there.
    if (!data_ || y < lanesTop() || y < kRulerHeight + kTokenHeight) return -1;
    int offset = y - lanesTop();
    const int tracksAt = (rowBeforeGpuTracks() + 1) * kLaneHeight;
    if (offset >= tracksAt) {
        if (offset < tracksAt + gpuTracksHeight()) return -1;  // on a GPU metric track
        offset -= gpuTracksHeight();
    }
    return lanes_.laneAtRow(offset / kLaneHeight);
}

std::optional<int> TimelineView::laneTop(int lane) const {
    int row = lanes_.rowOf(lane);
    if (!data_ || row < 0) return std::nullopt;
    return rowTop(row);
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
    // A paged run whose loaded window does not cover the view draws the
    // overviews, and asks for the view's events once it stays put.
    const bool single = showsSingleEvents();
    // Only a view not yet looked at starts the timer: requestDetail repaints,
    // and restarting on every paint would poll the overviews forever.
    if (!single && data_->paged && checkedView_ != std::pair(axis_.originNs, axis_.endNs()))
        detailTimer_->start();
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
    auto paintTrack = [&](const CounterTrack& track, qreal top) {
        QRectF r(left, top, w, kCounterHeight - 4);
        paintCounter(p, track, axis_, r);
        p.setPen(text);
        p.drawText(QRectF(6, top, kHeaderWidth - 10, kCounterHeight - 4), Qt::AlignVCenter,
                   QFontMetrics(small).elidedText(track.title, Qt::ElideRight, kHeaderWidth - 12));
        // The scale inside the track, top left, as Perfetto shows it: the
        // header keeps its width for the title. Rates of a few GB/s need
        // their first decimal; watts and MHz do not.
        // On a translucent plate: a spike under it must not hide the number.
        const QString scale = tr("max %1").arg(track.maxValue, 0, 'f', track.maxValue < 10 ? 1 : 0);
        const QFontMetricsF fm(p.font());
        const QRectF label(left + 2, top, fm.horizontalAdvance(scale) + 4, fm.height());
        QColor plate = pal.color(QPalette::Base);
        plate.setAlpha(200);
        p.fillRect(label, plate);
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(QRectF(left + 4, top, w - 8, kCounterHeight - 4), Qt::AlignLeft | Qt::AlignTop,
                   scale);
    };
    // Counter tracks above the lanes (device samples), then the GPU metric
    // tracks under the last GPU lane.
    for (const auto& track : data_->counters) {
        if (track.underGpuLanes) continue;
        paintTrack(track, y);
        y += kCounterHeight;
    }
    qreal below = lanesTop() + (rowBeforeGpuTracks() + 1) * kLaneHeight;
    for (const auto& track : data_->counters) {
        if (!track.underGpuLanes) continue;
        if (below + kCounterHeight >= kRulerHeight + kTokenHeight && below < height())
            paintTrack(track, below);
        below += kCounterHeight;
    }
    // Lanes, with alternating backgrounds and their group/title on the left.
    // Hidden lanes have no row.
    QString lastGroup;
    for (int row = 0; row < lanes_.rowCount(); ++row) {
        y = rowTop(row);
        if (y + kLaneHeight < kRulerHeight || y > height()) continue;
        const auto i = static_cast<std::size_t>(lanes_.laneAtRow(row));
        const auto& lane = data_->lanes[i];
        QRectF r(left, y, w, kLaneHeight);
        if (row % 2) p.fillRect(QRectF(0, y, width(), kLaneHeight), stripe);
        p.setClipRect(r);
        const bool coarse = lane.overview && !single;
        if (coarse)
            paintCoarseLane(p, lod::buildCoarseDrawList(*lane.overview, axis_), lane.kind, r);
        else
            paintLane(p, lod::buildDrawList(lane.events, axis_), lane, data_->labels, r,
                      &highlight_);
        if (!coarse && static_cast<int>(i) == selection_.lane && selection_.event >= 0) {
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
    // The middle of a lane's row; flows to or from a hidden lane are not drawn.
    auto rowY = [&](int lane) { return rowTop(lanes_.rowOf(lane)) + kLaneHeight / 2.0; };
    // A flow line from the selected kernel's launch call to the kernel.
    if (single && launch_.lane >= 0 && laneVisible(launch_.lane) && laneVisible(selection_.lane)) {
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
    if (single && !launched_.empty() && laneVisible(selection_.lane)) {
        const auto& call = data_->lanes[static_cast<std::size_t>(selection_.lane)].events;
        QPointF from(left + axis_.toPx(call.start(static_cast<std::size_t>(selection_.event))),
                     rowY(selection_.lane));
        p.setClipRect(QRectF(left, kRulerHeight + kTokenHeight, w, height()));
        QColor flowColour(0xd3, 0x2f, 0x2f);
        if (launched_.size() > 1) flowColour.setAlpha(140);
        p.setPen(QPen(flowColour, launched_.size() > 1 ? 1 : 2));
        for (auto [lane, event] : launched_) {
            if (!laneVisible(lane)) continue;
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
    if (!single)
        paintPagingNote(p, QRectF(left, kRulerHeight + kTokenHeight, w,
                                  height() - kRulerHeight - kTokenHeight));
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
    // The selected time range (Shift+drag), its length on the ruler.
    if (auto range = range_.shown())
        paintRangeBand(p, axis_, *range, QRectF(left, kRulerHeight, w, height() - kRulerHeight),
                       QRectF(left, 0, w, kRulerHeight));
    if (selectFromX_) {
        int a = std::min(*selectFromX_, selectToX_), b = std::max(*selectFromX_, selectToX_);
        p.fillRect(QRect(a, 0, b - a, height()), QColor(30, 136, 229, 50));
    }
}

void TimelineView::resizeEvent(QResizeEvent*) {
    const int old = axis_.widthPx;
    const std::int64_t begin = axis_.originNs, end = axis_.endNs();
    axis_.widthPx = std::max(1, width() - kHeaderWidth);
    scrollTo(scrollY_);
    if (old <= 1) return fitAll();
    // The same time span fills the new width (Nsight Systems and Perfetto keep
    // it too): a wider window shows it larger, not an empty margin after it.
    axis_.fit(begin, end);
    update();
}

void TimelineView::wheelEvent(QWheelEvent* e) {
    if (e->modifiers() & Qt::ShiftModifier) {
        scrollTo(scrollY_ - e->angleDelta().y() / 4);
    } else {
        double factor = std::pow(1.0015, e->angleDelta().y());
        axis_.zoom(factor, e->position().x() - kHeaderWidth);
    }
    update();
}

void TimelineView::mousePressEvent(QMouseEvent* e) {
    dragged_ = false;
    const double x = e->position().x();
    if (e->button() == Qt::RightButton && x < kHeaderWidth && laneAt(e->pos().y()) >= 0) {
        showLaneMenu(laneAt(e->pos().y()), e->globalPosition().toPoint());
    } else if (e->button() == Qt::RightButton) {
        selectFromX_ = selectToX_ = static_cast<int>(x);
    } else if (e->button() == Qt::LeftButton && (e->modifiers() & Qt::ShiftModifier) && data_ &&
               x >= kHeaderWidth) {
        range_.beginDrag(axis_.toTime(x - kHeaderWidth));
        update();
    } else {
        dragFrom_ = e->pos();
    }
}

void TimelineView::mouseMoveEvent(QMouseEvent* e) {
    if (range_.dragging()) {
        double x = std::clamp<double>(e->position().x() - kHeaderWidth, 0, axis_.widthPx);
        range_.dragTo(axis_.toTime(x));
        update();
    } else if (dragFrom_) {
        int dx = e->pos().x() - dragFrom_->x();
        int dy = e->pos().y() - dragFrom_->y();
        if (std::abs(dx) + std::abs(dy) > 2) dragged_ = true;
        axis_.pan(dx);
        scrollTo(scrollY_ - dy);
        dragFrom_ = e->pos();
        update();
    } else if (selectFromX_) {
        selectToX_ = static_cast<int>(e->position().x());
        update();
    }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* e) {
    if (range_.dragging()) {
        // Under 3 px it was a Shift+click: the range there was stays.
        if (auto r = range_.finishDrag(static_cast<std::int64_t>(std::ceil(3 * axis_.nsPerPx))))
            emit rangeSelected(r->first, r->second);
        update();
        return;
    }
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
    const double x = e->position().x() - kHeaderWidth;
    int lane = laneAt(e->pos().y());
    const bool coarse =
        lane >= 0 && data_->lanes[static_cast<std::size_t>(lane)].overview && !showsSingleEvents();
    long hit = lane >= 0 && x >= 0 && !coarse
                   ? lod::hitTest(data_->lanes[static_cast<std::size_t>(lane)].events, axis_, x)
                   : -1;
    if (hit >= 0)
        select(lane, hit);
    else if (e->button() == Qt::LeftButton && x >= 0)
        clearRange();  // a plain click on empty space
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
        case Qt::Key_Escape:
            if (range_.dragging())
                range_.cancelDrag();
            else if (range_.range())
                clearRange();
            else {
                QWidget::keyPressEvent(e);
                return;
            }
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
        const auto* overview = lane >= 0 && !showsSingleEvents()
                                   ? data_->lanes[static_cast<std::size_t>(lane)].overview.get()
                                   : nullptr;
        if (overview && x >= 0) {
            for (const auto& item : lod::buildCoarseDrawList(*overview, axis_)) {
                if (x < item.x0 - 1 || x > item.x1 + 1) continue;
                QToolTip::showText(help->globalPos(),
                                   tr("about %1 events, %2% busy\nzoom in to load them")
                                       .arg(QLocale().toString(static_cast<qulonglong>(item.count)))
                                       .arg(item.busy * 100, 0, 'f', 0),
                                   this);
                return true;
            }
        } else if (lane >= 0 && x >= 0) {
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
