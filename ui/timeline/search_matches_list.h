// The events list of a timeline search: a caption ("1,234 matches of
// 'gemv'", or "first 10,000 of 1,234,567 matches of 'gemv'") over a table of
// at most kMaxRows matches, Start (ms from the timeline's beginning),
// Duration, Lane and Name, sortable by any column (by start at first).
// Clicking or activating (Enter, double-click) a row emits matchActivated;
// connect it to TimelineView::selectEvent.
//
// The list is a snapshot: call setMatches again when the view's matches
// change, i.e. on TimelineView::searchMatchesChanged.
//
// A paged run's timeline holds one window of single events, so its matches
// come from a search of the whole run (setRunMatches, with setSearching for
// the progress before); activating one of those emits runMatchActivated
// with its lane and times (connect it to TimelineView::revealEvent).
#pragma once

#include <QWidget>
#include <cstddef>
#include <cstdint>

#include "analysis/event_search.h"

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace ws::ui {

class SearchMatchesModel;
class TimelineView;
struct TimelineData;

class SearchMatchesList : public QWidget {
    Q_OBJECT
  public:
    static constexpr std::size_t kMaxRows = 10'000;

    explicit SearchMatchesList(QWidget* parent = nullptr);

    // The first kMaxRows matches of the view's search, in the lanes it shows.
    void setMatches(const TimelineView& view);
    // A whole-run search of `timeline`'s run for `text`: under way
    // (`fraction` done), then found.
    void setSearching(const QString& text, double fraction);
    void setRunMatches(const TimelineData& timeline, const EventSearch& found, const QString& text);
    // Whether the rows are a whole-run search's (not the view's).
    bool showsRunMatches() const { return runMatches_; }
    void clear();
    QString caption() const;
    QTableView* table() const { return table_; }

  signals:
    void matchActivated(int lane, long event);
    void runMatchActivated(int lane, std::int64_t startNs, std::int64_t endNs);

  private:
    void activate(const QModelIndex& index);

    QLabel* caption_;
    QTableView* table_;
    SearchMatchesModel* model_;
    QSortFilterProxyModel* sorted_;
    bool runMatches_ = false;
    std::int64_t beginNs_ = 0;  // what the rows' starts count from
};

}  // namespace ws::ui
