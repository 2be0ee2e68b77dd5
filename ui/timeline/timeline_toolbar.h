// The bar above the timeline: find kernels or ranges by name and step through
// the matches, fit the run, choose the lanes shown (the Lanes menu), stack
// two selected runs aligned at a range name, and a line describing the
// selected event.
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QToolButton;

namespace ws::ui {

class LaneMenu;
class TimelineView;

class TimelineToolbar : public QWidget {
    Q_OBJECT
  public:
    explicit TimelineToolbar(QWidget* parent = nullptr);

    QString searchText() const;
    void setSearchText(const QString& text);
    void focusSearch();  // focus and select the search field (Ctrl+K)
    bool stacked() const;
    void setStacked(bool on);  // emits stackChanged when it changes
    QString alignAt() const;
    void setAlignAt(const QString& rangeName);
    // The line beside the buttons: the selected event, a match count, a note.
    void setInfo(const QString& text);
    // The view the Lanes menu hides and shows lanes of (directly, through
    // TimelineView::setLaneHidden, setLaneFilter and showAllLanes); the
    // button says how many lanes show when some are hidden. Null: none.
    void setTimelineView(TimelineView* view);
    LaneMenu* laneMenu() const { return laneMenu_; }

  signals:
    void searchChanged(const QString& text);
    void findNext(bool backwards);
    void fitRequested();
    // Stack toggled, or the alignment range confirmed while stacked.
    void stackChanged();

  private:
    QLineEdit* search_;
    QToolButton* lanes_;
    LaneMenu* laneMenu_;
    QToolButton* stack_;
    QLineEdit* alignAt_;
    QLabel* info_;
    QMetaObject::Connection lanesShown_;
};

}  // namespace ws::ui
