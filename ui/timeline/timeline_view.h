// The timeline: lanes per stream (kernels, copies), per thread (NVTX, CUDA
// API), token marks and counter tracks.
//
// Gestures: drag pans (vertically too), the wheel zooms around the cursor and
// Shift+wheel scrolls the lanes; right-drag zooms to the dragged span;
// Shift+left-drag selects a time range (rangeSelected), Esc or a plain click
// on empty space clears it (rangeCleared); right-click on a lane's name hides
// it; double-click and Home fit the run; +/- (W/S) zoom, arrows (A/D) pan;
// F3/Shift+F3 step through search matches; hovering names what is under the
// cursor; a click selects it (eventSelected).
//
// Lanes can be hidden one by one or by a filter text (LaneVisibility); a
// hidden lane is not drawn, takes no height, and its events are no search
// match. Hidden lanes, the range and the selection belong to one run: data of
// another run (TimelineData::run) resets them, the same run reloaded (e.g. a
// refreshed store or the Stack toggle) keeps them. The filter text is kept
// across runs, like the search text.
#pragma once

#include <QTimer>
#include <QWidget>
#include <memory>
#include <optional>

#include "lod/time_axis.h"
#include "timeline/lane_visibility.h"
#include "timeline/range_selection.h"
#include "viewmodels/timeline_data.h"

namespace ws::ui {

struct TimelineSelection {
    int lane = -1;
    long event = -1;
};

class TimelineView : public QWidget {
    Q_OBJECT
  public:
    explicit TimelineView(QWidget* parent = nullptr);

    void setData(std::shared_ptr<const TimelineData> data);
    // The same paged run with the single events of another window: keeps
    // the view, hidden lanes, search and range; the selection follows its
    // event. Ignored for another run.
    void setDetail(std::shared_ptr<const TimelineData> data);
    const TimelineData* data() const { return data_.get(); }
    std::shared_ptr<const TimelineData> sharedData() const { return data_; }
    // Most events a window of single events may hold (a paged run).
    void setDetailBudget(std::size_t events) { detailBudget_ = events; }
    // Whether lanes show single events in the current view (always, unless
    // the run is paged and its loaded window does not cover the view).
    bool showsSingleEvents() const;
    const lod::TimeAxis& axis() const { return axis_; }
    void fitAll();
    void zoomTo(std::int64_t beginNs, std::int64_t endNs);
    // A band over every lane between two times (an ITL shown from the
    // outliers panel); cleared by nullopt or when other data is set.
    void markInterval(std::optional<std::pair<std::int64_t, std::int64_t>> interval);
    std::optional<std::pair<std::int64_t, std::int64_t>> markedInterval() const { return marked_; }
    // Highlights events whose name contains `text`; returns how many match
    // in the lanes shown (searchMatchCount()).
    std::size_t setSearch(const QString& text);
    const QString& searchText() const { return search_; }
    // Matches of the search in the lanes shown; changes with lane visibility.
    std::size_t searchMatchCount() const;
    // The first `limit` matches, (lane, event), in the lanes shown, ordered
    // by start time (then lane, then event).
    std::vector<std::pair<int, long>> searchMatches(std::size_t limit) const;
    // Selects and centres the next (or previous) search match after the
    // selection, in that same order; matches in hidden lanes are skipped.
    bool findNext(bool backwards = false);
    // Selects the event as a click does (eventSelected), centres it and
    // scrolls its lane into view, zooming in when it would be narrower than
    // a few pixels. A lane that is hidden stays hidden.
    void selectEvent(int lane, long event);
    // An event of `lane` known by its times (a whole-run search match of a
    // paged run): selected at once if its window is loaded; else the view
    // zooms to it, loads that window and selects it then.
    void revealEvent(int lane, std::int64_t startNs, std::int64_t endNs);

    // Lane visibility. Each change emits laneVisibilityChanged.
    void setLaneHidden(int lane, bool hidden);
    bool laneHidden(int lane) const;   // hidden by setLaneHidden
    bool laneVisible(int lane) const;  // drawn: not hidden, matches the filter
    // Lanes whose title or group contains `text` (any case) stay; empty: all.
    void setLaneFilter(const QString& text);
    QString laneFilter() const { return lanes_.filter(); }
    void showAllLanes();  // unhides every lane and clears the filter
    int visibleLaneCount() const { return lanes_.rowCount(); }
    const LaneVisibility& laneVisibility() const { return lanes_; }
    // The lane at a widget y (-1: none, or a counter, token or ruler row) and
    // the top y of a lane's row (nullopt: not drawn); both follow scrolling.
    int laneAt(int y) const;
    std::optional<int> laneTop(int lane) const;

    // The time range (Shift+drag), nullopt when none. selectRange emits
    // rangeSelected, clearRange emits rangeCleared if there was one.
    std::optional<std::pair<std::int64_t, std::int64_t>> selectedRange() const {
        return range_.range();
    }
    void selectRange(std::int64_t beginNs, std::int64_t endNs);
    void clearRange();
    TimelineSelection selection() const { return selection_; }
    TimelineSelection launchOfSelection() const { return launch_; }
    // An API call selected: the kernels it launched (a graph launch: all of them).
    const std::vector<std::pair<int, long>>& launchedBySelection() const { return launched_; }
    QString describe(int lane, long event) const;

    static constexpr int kHeaderWidth = 190;
    static constexpr int kRulerHeight = 26;
    static constexpr int kLaneHeight = 20;
    static constexpr int kCounterHeight = 34;
    static constexpr int kTokenHeight = 14;

  signals:
    void eventSelected(int lane, long event, const QString& description);
    // A lane hidden or shown, the filter changed, or new data reset them.
    void laneVisibilityChanged();
    // What searchMatches() returns may have changed: a new search, new
    // data, or lanes hidden or shown (refresh a SearchMatchesList on it).
    void searchMatchesChanged();
    // A time range selected with Shift+drag (or selectRange), begin < end, in
    // the ns of TimelineData's events.
    void rangeSelected(std::int64_t beginNs, std::int64_t endNs);
    // The range is gone: Esc, a plain click on empty space, clearRange, or
    // another run's data.
    void rangeCleared();
    // A paged run's view settled on a part holding at most the budget's
    // events: load [beginNs, endNs) and hand it to setDetail.
    void detailWanted(std::int64_t beginNs, std::int64_t endNs);

  protected:
    void paintEvent(QPaintEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    void wheelEvent(QWheelEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;
    void mouseDoubleClickEvent(QMouseEvent*) override;
    void keyPressEvent(QKeyEvent*) override;
    bool event(QEvent*) override;

  private:
    int lanesTop() const;
    int contentHeight() const;
    // Tracks drawn under the GPU lanes (CounterTrack::underGpuLanes): the row
    // they follow (the last kernel or copy lane's; -1: before every lane),
    // their height, and where a lane row starts with them in place.
    int rowBeforeGpuTracks() const;
    int gpuTracksHeight() const;
    int rowTop(int row) const;
    void scrollTo(int y);  // clamped to the content
    void select(int lane, long event);
    // The index of `lane`'s loaded event starting at `startNs`, if loaded.
    std::optional<long> loadedEvent(int lane, std::int64_t startNs) const;
    void scrollLaneIntoView(int lane);
    void centreOn(int lane, long event, bool zoomIn);
    void visibilityChanged();
    void showLaneMenu(int lane, const QPoint& globalPos);
    void requestDetail();  // the detail timer fired
    void paintPagingNote(QPainter& p, const QRectF& area);

    std::shared_ptr<const TimelineData> data_;
    lod::TimeAxis axis_;
    int scrollY_ = 0;
    std::optional<QPoint> dragFrom_;
    std::optional<int> selectFromX_;
    int selectToX_ = 0;
    bool dragged_ = false;
    std::vector<bool> highlight_;
    QString search_;
    LaneVisibility lanes_;
    RangeSelection range_;
    TimelineSelection selection_;
    std::optional<std::pair<int, std::int64_t>> pendingReveal_;  // lane, start
    std::optional<std::pair<std::int64_t, std::int64_t>> marked_;
    TimelineSelection launch_;                    // the API call that launched the selected kernel
    std::vector<std::pair<int, long>> launched_;  // the kernels the selected call launched
    // Paging: a view that stays put for a moment asks for its events once.
    QTimer* detailTimer_ = nullptr;
    std::size_t detailBudget_ = TimelineLoadOptions{}.residentEvents;
    std::optional<std::pair<std::int64_t, std::int64_t>> requested_;
    std::size_t eventsInView_ = 0;  // the overviews' count when too many to load
    std::optional<std::pair<std::int64_t, std::int64_t>> checkedView_;  // last view asked about
};

}  // namespace ws::ui
