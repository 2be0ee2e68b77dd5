// The coarsest level of detail of a lane: spans that each stand for many
// events (a store chunk: first start, last end, how many events, how busy),
// with no event of their own. A timeline too large to hold draws these for
// the whole run and reads single events only for a window it zooms into.
#pragma once

#include <cstdint>
#include <vector>

#include "lod/lane_index.h"
#include "lod/time_axis.h"

namespace ws::lod {

class CoarseLane {
  public:
    // Spans may come in any order and overlap; finish() sorts them.
    void add(std::int64_t startNs, std::int64_t endNs, std::int64_t events, std::int64_t busyNs);
    void finish();
    // Spans shifted by `ns` (stacked timelines).
    CoarseLane shifted(std::int64_t ns) const;

    std::size_t size() const { return start_.size(); }
    std::int64_t start(std::size_t i) const { return start_[i]; }
    std::int64_t end(std::size_t i) const { return end_[i]; }
    std::int64_t events() const { return eventPrefix_.back(); }
    std::int64_t beginNs() const { return start_.empty() ? 0 : start_.front(); }
    std::int64_t endNs() const { return maxEnd_; }
    // Events of the spans overlapping [t0, t1): an upper bound of the events
    // there, exact when the window's edges fall between spans.
    std::int64_t eventsIn(std::int64_t t0, std::int64_t t1) const;
    std::int64_t eventsOf(std::size_t from, std::size_t to) const {
        return eventPrefix_[to] - eventPrefix_[from];
    }
    std::int64_t busyOf(std::size_t from, std::size_t to) const {
        return busyPrefix_[to] - busyPrefix_[from];
    }
    // Index of the first span ending after `t` (spans before it cannot reach t).
    std::size_t firstEndingAfter(std::int64_t t) const;
    std::size_t bytesResident() const;

  private:
    std::vector<std::int64_t> start_, end_;
    std::vector<std::int64_t> eventPrefix_{0}, busyPrefix_{0};
    std::int64_t maxSpan_ = 0, maxEnd_ = 0;
    struct Pending {
        std::int64_t start, end, events, busy;
    };
    std::vector<Pending> pending_;
};

// Marks for a view: neighbouring spans closer than `minPx` merge into one.
// Every item is folded: `first` is a span index, `count` the events it
// stands for, `busy` the fraction of its width they fill.
std::vector<DrawItem> buildCoarseDrawList(const CoarseLane& lane, const TimeAxis& axis,
                                          float minPx = 3.0f);

}  // namespace ws::lod
