#include "lod/lane_index.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ws::lod {

std::int64_t rulerStep(double nsPerPx, double minPx) {
    double want = nsPerPx * minPx;
    std::int64_t step = 1;
    while (true) {
        for (int m : {1, 2, 5})
            if (static_cast<double>(step * m) >= want) return step * m;
        if (step > std::numeric_limits<std::int64_t>::max() / 100) return step;
        step *= 10;
    }
}

void LaneIndex::reserve(std::size_t n) {
    start_.reserve(n);
    duration_.reserve(n);
    label_.reserve(n);
    prefix_.reserve(n + 1);
}

void LaneIndex::add(std::int64_t startNs, std::int64_t endNs, std::uint32_t label) {
    std::int64_t d =
        std::clamp<std::int64_t>(endNs - startNs, 0, std::numeric_limits<std::uint32_t>::max());
    start_.push_back(startNs);
    duration_.push_back(static_cast<std::uint32_t>(d));
    label_.push_back(label);
    prefix_.push_back(prefix_.back() + d);
    maxDuration_ = std::max(maxDuration_, d);
}

std::size_t LaneIndex::bytesResident() const {
    return start_.capacity() * sizeof(std::int64_t) + duration_.capacity() * sizeof(std::uint32_t) +
           label_.capacity() * sizeof(std::uint32_t) + prefix_.capacity() * sizeof(std::int64_t);
}

std::size_t LaneIndex::firstEndingAfter(std::int64_t t) const {
    // Only events starting within maxDuration before t can still be running.
    auto from = std::lower_bound(start_.begin(), start_.end(), t - maxDuration_) - start_.begin();
    auto i = static_cast<std::size_t>(from);
    while (i < start_.size() && end(i) <= t && start_[i] < t)
        ++i;
    return i;
}

std::size_t LaneIndex::firstStartingFrom(std::int64_t t, std::size_t from) const {
    from = std::min(from, start_.size());
    return static_cast<std::size_t>(
        std::lower_bound(start_.begin() + static_cast<std::ptrdiff_t>(from), start_.end(), t) -
        start_.begin());
}

std::vector<DrawItem> buildDrawList(const LaneIndex& lane, const TimeAxis& axis, float minPx) {
    std::vector<DrawItem> out;
    const std::size_t n = lane.size();
    const std::int64_t t1 = axis.endNs();
    std::size_t i = lane.firstEndingAfter(axis.originNs);
    while (i < n && lane.start(i) < t1) {
        auto x0 = static_cast<float>(axis.toPx(lane.start(i)));
        auto x1 = static_cast<float>(axis.toPx(lane.end(i)));
        if (x1 - x0 >= minPx) {
            out.push_back({x0, x1, static_cast<std::uint32_t>(i), 1, 1});
            ++i;
            continue;
        }
        // Fold: every event starting before the fold's right edge joins it
        // (found by binary search); the fold grows while the next event is
        // narrow and starts within minPx of its edge.
        float foldEnd = std::max(x1, x0 + minPx);
        std::size_t j = i + 1;
        for (;;) {
            std::size_t k = lane.firstStartingFrom(axis.toTime(foldEnd), j);
            if (k > j) {
                // Events on one lane do not overlap, so only the last one
                // taken can reach far right; a wide one ends the fold.
                auto lastStart = static_cast<float>(axis.toPx(lane.start(k - 1)));
                auto lastEnd = static_cast<float>(axis.toPx(lane.end(k - 1)));
                if (lastEnd - lastStart >= minPx) {
                    k -= 1;
                    if (k > j)
                        foldEnd = std::max(foldEnd, static_cast<float>(axis.toPx(lane.end(k - 1))));
                    j = k;
                    break;
                }
                foldEnd = std::max(foldEnd, lastEnd);
                j = k;
            }
            if (j >= n || lane.start(j) >= t1) break;
            auto nx0 = static_cast<float>(axis.toPx(lane.start(j)));
            auto nx1 = static_cast<float>(axis.toPx(lane.end(j)));
            if (nx1 - nx0 >= minPx || nx0 > foldEnd + minPx) break;
            foldEnd = std::max({foldEnd, nx1, nx0 + minPx});
            ++j;
        }
        double spanNs = std::max(1.0, (foldEnd - x0) * axis.nsPerPx);
        auto busy =
            static_cast<float>(std::min(1.0, static_cast<double>(lane.busyNs(i, j)) / spanNs));
        out.push_back(
            {x0, foldEnd, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j - i), busy});
        i = j;
    }
    return out;
}

long hitTest(const LaneIndex& lane, const TimeAxis& axis, double x, double slackPx) {
    std::int64_t t0 = axis.toTime(x - slackPx), t1 = axis.toTime(x + slackPx);
    std::size_t i = lane.firstEndingAfter(t0);
    long best = -1;
    double bestDist = slackPx + 1;
    for (; i < lane.size() && lane.start(i) < t1; ++i) {
        double a = axis.toPx(lane.start(i)), b = axis.toPx(lane.end(i));
        double dist = x < a ? a - x : (x > b ? x - b : 0);
        if (dist < bestDist) {
            bestDist = dist;
            best = static_cast<long>(i);
        }
    }
    return bestDist <= slackPx ? best : -1;
}

}  // namespace ws::lod
