#include "lod/coarse_lane.h"

#include <algorithm>
#include <limits>

namespace ws::lod {

void CoarseLane::add(std::int64_t startNs, std::int64_t endNs, std::int64_t events,
                     std::int64_t busyNs) {
    pending_.push_back({startNs, std::max(startNs, endNs), std::max<std::int64_t>(events, 0),
                        std::max<std::int64_t>(busyNs, 0)});
}

void CoarseLane::finish() {
    for (std::size_t i = 0; i < start_.size(); ++i)
        pending_.push_back({start_[i], end_[i], eventsOf(i, i + 1), busyOf(i, i + 1)});
    std::stable_sort(pending_.begin(), pending_.end(),
                     [](const Pending& a, const Pending& b) { return a.start < b.start; });
    start_.clear();
    end_.clear();
    eventPrefix_.assign(1, 0);
    busyPrefix_.assign(1, 0);
    maxSpan_ = 0;
    maxEnd_ = pending_.empty() ? 0 : std::numeric_limits<std::int64_t>::min();
    for (const auto& p : pending_) {
        start_.push_back(p.start);
        end_.push_back(p.end);
        eventPrefix_.push_back(eventPrefix_.back() + p.events);
        busyPrefix_.push_back(busyPrefix_.back() + p.busy);
        maxSpan_ = std::max(maxSpan_, p.end - p.start);
        maxEnd_ = std::max(maxEnd_, p.end);
    }
    pending_.clear();
    pending_.shrink_to_fit();
}

CoarseLane CoarseLane::shifted(std::int64_t ns) const {
    CoarseLane out = *this;
    for (auto& s : out.start_)
        s += ns;
    for (auto& e : out.end_)
        e += ns;
    if (!out.start_.empty()) out.maxEnd_ += ns;
    return out;
}

std::size_t CoarseLane::firstEndingAfter(std::int64_t t) const {
    // Only spans starting within the longest span before t can reach it.
    auto i = static_cast<std::size_t>(std::lower_bound(start_.begin(), start_.end(), t - maxSpan_) -
                                      start_.begin());
    while (i < start_.size() && end_[i] <= t && start_[i] < t)
        ++i;
    return i;
}

std::int64_t CoarseLane::eventsIn(std::int64_t t0, std::int64_t t1) const {
    std::size_t from = firstEndingAfter(t0);
    auto to = static_cast<std::size_t>(std::lower_bound(start_.begin(), start_.end(), t1) -
                                       start_.begin());
    return to > from ? eventsOf(from, to) : 0;
}

std::size_t CoarseLane::bytesResident() const {
    return (start_.capacity() + end_.capacity() + eventPrefix_.capacity() +
            busyPrefix_.capacity()) *
           sizeof(std::int64_t);
}

std::vector<DrawItem> buildCoarseDrawList(const CoarseLane& lane, const TimeAxis& axis,
                                          float minPx) {
    std::vector<DrawItem> out;
    const std::int64_t t1 = axis.endNs();
    std::size_t i = lane.firstEndingAfter(axis.originNs);
    while (i < lane.size() && lane.start(i) < t1) {
        auto x0 = static_cast<float>(axis.toPx(lane.start(i)));
        float x1 = std::max(static_cast<float>(axis.toPx(lane.end(i))), x0 + minPx);
        std::size_t j = i + 1;
        // Spans starting within minPx of the mark's right edge join it.
        while (j < lane.size() && lane.start(j) < t1 &&
               static_cast<float>(axis.toPx(lane.start(j))) <= x1 + minPx) {
            x1 = std::max({x1, static_cast<float>(axis.toPx(lane.end(j))),
                           static_cast<float>(axis.toPx(lane.start(j))) + minPx});
            ++j;
        }
        double spanNs = std::max(1.0, static_cast<double>(x1 - x0) * axis.nsPerPx);
        auto busy =
            static_cast<float>(std::min(1.0, static_cast<double>(lane.busyOf(i, j)) / spanNs));
        auto events = std::clamp<std::int64_t>(lane.eventsOf(i, j), 2,
                                               std::numeric_limits<std::uint32_t>::max());
        out.push_back({x0, x1, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(events),
                       std::min(busy, 0.999f)});
        i = j;
    }
    return out;
}

}  // namespace ws::lod
