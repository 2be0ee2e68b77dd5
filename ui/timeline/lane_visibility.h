// Which lanes of a timeline are drawn, and in which row: lanes the user hid
// (by group and title, so a reload of the same run keeps them hidden) and a
// text filter on the lane's title or group. Plain arithmetic, no widget.
#pragma once

#include <QSet>
#include <QString>
#include <vector>

#include "viewmodels/timeline_data.h"

namespace ws::ui {

class LaneVisibility {
  public:
    // Takes the lanes of `data` (null: none). `keepHidden`: lanes hidden
    // before stay hidden where the new data has a lane of the same group and
    // title (the same run reloaded); otherwise every lane is shown again. The
    // filter text stays either way.
    void setLanes(const TimelineData* data, bool keepHidden);

    void setHidden(int lane, bool hidden);
    bool hidden(int lane) const;  // hidden by the user (not by the filter)
    // Lanes whose title or group contains `text` (any case) stay; empty: all.
    void setFilter(const QString& text);
    const QString& filter() const { return filter_; }
    bool matchesFilter(int lane) const;
    bool visible(int lane) const { return rowOf(lane) >= 0; }  // drawn
    void showAll();                                            // no lane hidden, no filter

    int laneCount() const { return static_cast<int>(rowOf_.size()); }
    int rowCount() const { return static_cast<int>(rows_.size()); }
    int laneAtRow(int row) const;  // -1 outside the rows
    int rowOf(int lane) const;     // -1 when not drawn

  private:
    void rebuild();

    std::vector<QString> keys_;      // per lane: group, title and occurrence
    std::vector<QString> haystack_;  // per lane: what the filter searches
    QSet<QString> hidden_;           // keys of the lanes the user hid
    QString filter_;
    std::vector<int> rows_;   // the drawn lanes, top to bottom
    std::vector<int> rowOf_;  // per lane: its row or -1
};

}  // namespace ws::ui
