// The events list of a timeline search: a caption ("1,234 matches of
// 'gemv'", or "first 10,000 of 1,234,567 matches of 'gemv'") over a table of
// at most kMaxRows matches, Start (ms from the timeline's beginning),
// Duration, Lane and Name, sortable by any column (by start at first).
// Clicking or activating (Enter, double-click) a row emits matchActivated;
// connect it to TimelineView::selectEvent.
//
// The list is a snapshot: call setMatches again when the view's matches
// change, i.e. on TimelineView::searchMatchesChanged.
#pragma once

#include <QWidget>
#include <cstddef>

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace ws::ui {

class SearchMatchesModel;
class TimelineView;

class SearchMatchesList : public QWidget {
    Q_OBJECT
  public:
    static constexpr std::size_t kMaxRows = 10'000;

    explicit SearchMatchesList(QWidget* parent = nullptr);

    // The first kMaxRows matches of the view's search, in the lanes it shows.
    void setMatches(const TimelineView& view);
    void clear();
    QString caption() const;
    QTableView* table() const { return table_; }

  signals:
    void matchActivated(int lane, long event);

  private:
    void activate(const QModelIndex& index);

    QLabel* caption_;
    QTableView* table_;
    SearchMatchesModel* model_;
    QSortFilterProxyModel* sorted_;
};

}  // namespace ws::ui
