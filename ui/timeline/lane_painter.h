// Paints a lane's draw list, the time ruler and counter tracks. Shared by
// the timeline widget and BM_TimelineFrame.
#pragma once

#include <QColor>
#include <QPainter>
#include <QRectF>
#include <string>
#include <vector>

#include "lod/lane_index.h"
#include "viewmodels/timeline_data.h"

namespace ws::ui {

QColor colorForLabel(std::uint32_t label, LaneKind kind);

// `highlight` marks events whose label is in it (search results) in yellow.
void paintLane(QPainter& p, const std::vector<lod::DrawItem>& items, const TimelineLane& lane,
               const std::vector<std::string>& labels, const QRectF& rect,
               const std::vector<bool>* highlight = nullptr);
// Overview marks (buildCoarseDrawList): the lane kind's colour, height by
// busy share, hatched so they do not read as single events.
void paintCoarseLane(QPainter& p, const std::vector<lod::DrawItem>& items, LaneKind kind,
                     const QRectF& rect);
void paintRuler(QPainter& p, const lod::TimeAxis& axis, std::int64_t zeroNs, const QRectF& rect,
                const QColor& background, const QColor& text);
void paintCounter(QPainter& p, const CounterTrack& track, const lod::TimeAxis& axis,
                  const QRectF& rect);

// "12.5 ms" style label for a time offset.
QString timeLabel(std::int64_t ns, std::int64_t step);

}  // namespace ws::ui
