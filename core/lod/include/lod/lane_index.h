// Level of detail for one timeline lane (a stream's kernels, a thread's NVTX
// ranges): events in columns sorted by start, and a draw list for a time
// window at a pixel width. Everything narrower than a few pixels is folded
// into aggregate marks (count, busy fraction), found by binary search, so a
// frame costs about O(pixels × log events), never one item per event.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lod/time_axis.h"

namespace ws::lod {

class LaneIndex {
  public:
    // Events must be added in start order.
    void add(std::int64_t startNs, std::int64_t endNs, std::uint32_t label);
    void reserve(std::size_t n);
    std::size_t size() const { return start_.size(); }
    std::int64_t start(std::size_t i) const { return start_[i]; }
    std::int64_t end(std::size_t i) const { return start_[i] + duration_[i]; }
    std::uint32_t label(std::size_t i) const { return label_[i]; }
    std::int64_t maxDuration() const { return maxDuration_; }
    std::size_t bytesResident() const;

    // Index of the first event ending after `t`.
    std::size_t firstEndingAfter(std::int64_t t) const;
    // Index of the first event at or after `from` that starts at or after `t`.
    std::size_t firstStartingFrom(std::int64_t t, std::size_t from) const;
    // Busy time of events [from, to).
    std::int64_t busyNs(std::size_t from, std::size_t to) const {
        return prefix_[to] - prefix_[from];
    }

  private:
    std::vector<std::int64_t> start_;
    std::vector<std::uint32_t> duration_;  // saturates at ~4.3 s; see add()
    std::vector<std::uint32_t> label_;
    std::vector<std::int64_t> prefix_{0};  // running sum of durations
    std::int64_t maxDuration_ = 0;
};

struct DrawItem {
    float x0 = 0, x1 = 0;     // pixels
    std::uint32_t first = 0;  // first event index
    std::uint32_t count = 1;  // events it stands for (1 = a single event)
    float busy = 1;           // fraction of [x0, x1] the events fill
    bool folded() const { return count > 1 || busy < 1; }
};

std::vector<DrawItem> buildDrawList(const LaneIndex& lane, const TimeAxis& axis,
                                    float minPx = 3.0f);

// The event under pixel x (± slackPx), or -1.
long hitTest(const LaneIndex& lane, const TimeAxis& axis, double x, double slackPx = 2.0);

}  // namespace ws::lod
