#include "timeline/lane_visibility.h"

#include <QHash>

namespace ws::ui {

void LaneVisibility::setLanes(const TimelineData* data, bool keepHidden) {
    keys_.clear();
    haystack_.clear();
    if (!keepHidden) hidden_.clear();
    QHash<QString, int> seen;  // two lanes named alike hide one at a time
    if (data) {
        for (const auto& lane : data->lanes) {
            QString key = lane.group + QChar(0x1f) + lane.title;
            int n = seen[key]++;
            keys_.push_back(key + QChar(0x1f) + QString::number(n));
            haystack_.push_back(lane.group + QChar('\n') + lane.title);
        }
    }
    rebuild();
}

void LaneVisibility::setHidden(int lane, bool hide) {
    if (lane < 0 || lane >= static_cast<int>(keys_.size())) return;
    const QString& key = keys_[static_cast<std::size_t>(lane)];
    if (hide)
        hidden_.insert(key);
    else
        hidden_.remove(key);
    rebuild();
}

bool LaneVisibility::hidden(int lane) const {
    return lane >= 0 && lane < static_cast<int>(keys_.size()) &&
           hidden_.contains(keys_[static_cast<std::size_t>(lane)]);
}

void LaneVisibility::setFilter(const QString& text) {
    filter_ = text.trimmed();
    rebuild();
}

bool LaneVisibility::matchesFilter(int lane) const {
    if (lane < 0 || lane >= static_cast<int>(haystack_.size())) return false;
    return filter_.isEmpty() ||
           haystack_[static_cast<std::size_t>(lane)].contains(filter_, Qt::CaseInsensitive);
}

void LaneVisibility::showAll() {
    hidden_.clear();
    filter_.clear();
    rebuild();
}

int LaneVisibility::laneAtRow(int row) const {
    return row >= 0 && row < rowCount() ? rows_[static_cast<std::size_t>(row)] : -1;
}

int LaneVisibility::rowOf(int lane) const {
    return lane >= 0 && lane < laneCount() ? rowOf_[static_cast<std::size_t>(lane)] : -1;
}

void LaneVisibility::rebuild() {
    rows_.clear();
    rowOf_.assign(keys_.size(), -1);
    for (int lane = 0; lane < static_cast<int>(keys_.size()); ++lane) {
        if (hidden(lane) || !matchesFilter(lane)) continue;
        rowOf_[static_cast<std::size_t>(lane)] = static_cast<int>(rows_.size());
        rows_.push_back(lane);
    }
}

}  // namespace ws::ui
