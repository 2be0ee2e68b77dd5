// The timeline toolbar's "Lanes" menu: a filter field (lanes whose title or
// group contain the text stay), Show All Lanes, and a checkable entry per
// lane under a section per group (TimelineLane::group). It drives the
// TimelineView given to setView directly and follows its changes
// (laneVisibilityChanged), so the view stays the one owner of the state.
#pragma once

#include <QMenu>
#include <QPointer>
#include <vector>

class QLineEdit;

namespace ws::ui {

class TimelineView;
struct TimelineData;

class LaneMenu : public QMenu {
    Q_OBJECT
  public:
    explicit LaneMenu(QWidget* parent = nullptr);

    void setView(TimelineView* view);  // null: no lane entries
    QLineEdit* filterField() const { return filter_; }
    QAction* showAllAction() const { return showAll_; }
    QAction* laneAction(int lane) const;  // checked: shown; null when none

  protected:
    // Toggling a lane keeps the menu open, to hide several in one go.
    void mouseReleaseEvent(QMouseEvent* e) override;

  private:
    void rebuild();  // one entry per lane of the view's data
    void sync();     // check marks, entries the filter leaves, the field's text

    QPointer<TimelineView> view_;
    const TimelineData* builtFor_ = nullptr;
    QLineEdit* filter_;
    QAction* showAll_;
    std::vector<QAction*> lanes_;                     // per lane
    std::vector<std::pair<QAction*, int>> sections_;  // group section, its first lane
};

}  // namespace ws::ui
