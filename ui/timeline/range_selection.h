// A time range chosen on the timeline with Shift+drag: the drag in progress,
// the range kept once the drag ends, and their painting (a translucent band
// over the lanes, its length printed on the ruler). Times are the timeline's
// own nanoseconds, those of TimelineData's events.
#pragma once

#include <QPainter>
#include <QRectF>
#include <cstdint>
#include <optional>
#include <utility>

#include "lod/time_axis.h"

namespace ws::ui {

using TimeRange = std::pair<std::int64_t, std::int64_t>;  // begin < end

class RangeSelection {
  public:
    void beginDrag(std::int64_t t) { drag_ = TimeRange{t, t}; }
    void dragTo(std::int64_t t) {
        if (drag_) drag_->second = t;
    }
    bool dragging() const { return drag_.has_value(); }
    void cancelDrag() { drag_.reset(); }
    // Ends the drag. A drag at least `minNs` long becomes the range and is
    // returned; a shorter one leaves the range as it was and returns nullopt.
    std::optional<TimeRange> finishDrag(std::int64_t minNs);

    const std::optional<TimeRange>& range() const { return range_; }
    void setRange(std::optional<TimeRange> range) { range_ = range; }
    // What to paint: the drag while there is one, else the range.
    std::optional<TimeRange> shown() const;

  private:
    std::optional<TimeRange> drag_;  // anchor, current (either order)
    std::optional<TimeRange> range_;
};

// The band of `range` over `lanes` and a label with its length on `ruler`;
// both rectangles in widget pixels, the axis' pixel 0 at lanes.left().
void paintRangeBand(QPainter& p, const lod::TimeAxis& axis, const TimeRange& range,
                    const QRectF& lanes, const QRectF& ruler);

// "1.234 ms", "12.35 ms": a range's length, four significant digits (whole
// nanoseconds below a microsecond).
QString rangeLengthLabel(std::int64_t ns);

}  // namespace ws::ui
