// The timeline: lanes per stream (kernels, copies), per thread (NVTX, CUDA
// API), token marks and counter tracks. Drag pans, the wheel zooms around the
// cursor, right-drag zooms to a selection, Home fits, +/- and arrows zoom and
// pan; hovering names what is under the cursor; a click selects it.
#pragma once

#include <QWidget>
#include <memory>
#include <optional>

#include "lod/time_axis.h"
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
    const TimelineData* data() const { return data_.get(); }
    const lod::TimeAxis& axis() const { return axis_; }
    void fitAll();
    void zoomTo(std::int64_t beginNs, std::int64_t endNs);
    // A band over every lane between two times (an ITL shown from the
    // outliers panel); cleared by nullopt or when other data is set.
    void markInterval(std::optional<std::pair<std::int64_t, std::int64_t>> interval);
    std::optional<std::pair<std::int64_t, std::int64_t>> markedInterval() const { return marked_; }
    // Highlights events whose name contains `text`; returns how many match.
    std::size_t setSearch(const QString& text);
    // Selects and centres the next (or previous) search match after the selection.
    bool findNext(bool backwards = false);
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
    int laneAt(int y) const;
    void select(int lane, long event);

    std::shared_ptr<const TimelineData> data_;
    lod::TimeAxis axis_;
    int scrollY_ = 0;
    std::optional<QPoint> dragFrom_;
    std::optional<int> selectFromX_;
    int selectToX_ = 0;
    bool dragged_ = false;
    std::vector<bool> highlight_;
    TimelineSelection selection_;
    std::optional<std::pair<std::int64_t, std::int64_t>> marked_;
    TimelineSelection launch_;                    // the API call that launched the selected kernel
    std::vector<std::pair<int, long>> launched_;  // the kernels the selected call launched
};

}  // namespace ws::ui
