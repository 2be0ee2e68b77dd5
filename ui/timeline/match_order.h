// A timeline's search matches in time order: events whose label is marked in
// `highlight`, in the lanes drawn, ordered by (start, lane, event) so that
// events starting together in several lanes are each visited once.
#pragma once

#include <utility>
#include <vector>

#include "timeline/lane_visibility.h"
#include "viewmodels/timeline_data.h"

namespace ws::ui {

using LaneEvent = std::pair<int, long>;  // (lane, event); {-1, -1}: none

std::size_t countMatches(const TimelineData& data, const std::vector<bool>& highlight,
                         const LaneVisibility& visibility);

// The first `limit` matches; a merge of the lanes' matches, so the cost is
// the events scanned up to the last one returned, not a sort of them all.
std::vector<LaneEvent> orderedMatches(const TimelineData& data, const std::vector<bool>& highlight,
                                      const LaneVisibility& visibility, std::size_t limit);

// The match after (`backwards`: before) `from`, which need not be a match
// nor drawn; from {-1, -1}: the first (last) match. {-1, -1} when none.
LaneEvent adjacentMatch(const TimelineData& data, const std::vector<bool>& highlight,
                        const LaneVisibility& visibility, LaneEvent from, bool backwards);

}  // namespace ws::ui
