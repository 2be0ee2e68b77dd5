#include "timeline/match_order.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <queue>
#include <tuple>

namespace ws::ui {

namespace {

using Key = std::tuple<std::int64_t, int, long>;  // start, lane, event

bool marked(const std::vector<bool>& highlight, const lod::LaneIndex& ev, std::size_t e) {
    auto label = ev.label(e);
    return label < highlight.size() && highlight[label];
}

// The first match at or after index `e` of `ev`, or ev.size().
std::size_t nextMarked(const std::vector<bool>& highlight, const lod::LaneIndex& ev,
                       std::size_t e) {
    while (e < ev.size() && !marked(highlight, ev, e))
        ++e;
    return e;
}

}  // namespace

std::size_t countMatches(const TimelineData& data, const std::vector<bool>& highlight,
                         const LaneVisibility& visibility) {
    std::size_t n = 0;
    if (highlight.empty()) return 0;
    for (int row = 0; row < visibility.rowCount(); ++row) {
        const auto& ev = data.lanes[static_cast<std::size_t>(visibility.laneAtRow(row))].events;
        for (std::size_t e = 0; e < ev.size(); ++e)
            if (marked(highlight, ev, e)) ++n;
    }
    return n;
}

std::vector<LaneEvent> orderedMatches(const TimelineData& data, const std::vector<bool>& highlight,
                                      const LaneVisibility& visibility, std::size_t limit) {
    std::vector<LaneEvent> out;
    if (highlight.empty() || limit == 0) return out;
    std::priority_queue<Key, std::vector<Key>, std::greater<>> heads;  // each lane's next match
    auto push = [&](int lane, std::size_t from) {
        const auto& ev = data.lanes[static_cast<std::size_t>(lane)].events;
        std::size_t e = nextMarked(highlight, ev, from);
        if (e < ev.size()) heads.emplace(ev.start(e), lane, static_cast<long>(e));
    };
    for (int row = 0; row < visibility.rowCount(); ++row)
        push(visibility.laneAtRow(row), 0);
    while (!heads.empty() && out.size() < limit) {
        auto [start, lane, event] = heads.top();
        heads.pop();
        out.emplace_back(lane, event);
        push(lane, static_cast<std::size_t>(event) + 1);
    }
    return out;
}

LaneEvent adjacentMatch(const TimelineData& data, const std::vector<bool>& highlight,
                        const LaneVisibility& visibility, LaneEvent from, bool backwards) {
    if (highlight.empty()) return {-1, -1};
    Key origin = backwards ? Key{std::numeric_limits<std::int64_t>::max(), 0, 0}
                           : Key{std::numeric_limits<std::int64_t>::min(), 0, 0};
    if (from.first >= 0 && from.second >= 0)
        origin = {data.lanes[static_cast<std::size_t>(from.first)].events.start(
                      static_cast<std::size_t>(from.second)),
                  from.first, from.second};
    const std::int64_t t = std::get<0>(origin);
    std::optional<Key> best;
    for (int row = 0; row < visibility.rowCount(); ++row) {
        int lane = visibility.laneAtRow(row);
        const auto& ev = data.lanes[static_cast<std::size_t>(lane)].events;
        // Events sorted by start: scan from where `from` would be, either way.
        if (!backwards) {
            for (std::size_t e = ev.firstStartingFrom(t, 0); e < ev.size(); ++e) {
                Key k{ev.start(e), lane, static_cast<long>(e)};
                if (k <= origin || !marked(highlight, ev, e)) continue;
                if (!best || k < *best) best = k;
                break;
            }
        } else {
            std::size_t end = t == std::numeric_limits<std::int64_t>::max()
                                  ? ev.size()
                                  : ev.firstStartingFrom(t + 1, 0);
            for (std::size_t e = end; e-- > 0;) {
                Key k{ev.start(e), lane, static_cast<long>(e)};
                if (k >= origin || !marked(highlight, ev, e)) continue;
                if (!best || k > *best) best = k;
                break;
            }
        }
    }
    if (!best) return {-1, -1};
    return {std::get<1>(*best), std::get<2>(*best)};
}

}  // namespace ws::ui
