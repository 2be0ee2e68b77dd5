#include "timeline/lane_menu.h"

#include <QHBoxLayout>
#include <QLineEdit>
#include <QLocale>
#include <QMouseEvent>
#include <QTimer>
#include <QWidgetAction>

#include "timeline/timeline_view.h"

namespace ws::ui {

LaneMenu::LaneMenu(QWidget* parent) : QMenu(parent), filter_(new QLineEdit) {
    auto* box = new QWidget;
    auto* layout = new QHBoxLayout(box);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->addWidget(filter_);
    filter_->setPlaceholderText(tr("Filter lanes (title or group)"));
    filter_->setClearButtonEnabled(true);
    filter_->setMinimumWidth(220);
    auto* field = new QWidgetAction(this);
    field->setDefaultWidget(box);
    addAction(field);
    showAll_ = addAction(tr("Show All Lanes"));
    connect(showAll_, &QAction::triggered, this, [this] {
        if (view_) view_->showAllLanes();
    });
    connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
        if (view_) view_->setLaneFilter(text);
    });
    connect(this, &QMenu::aboutToShow, this, [this] {
        rebuild();
        QTimer::singleShot(0, filter_, [this] { filter_->setFocus(); });
    });
}

void LaneMenu::setView(TimelineView* view) {
    if (view_) disconnect(view_, nullptr, this, nullptr);
    view_ = view;
    if (view_)
        connect(view_, &TimelineView::laneVisibilityChanged, this, [this] {
            // New data: new entries, unless the menu is open (it rebuilds on show).
            if (view_->data() != builtFor_ && !isVisible())
                rebuild();
            else
                sync();
        });
    rebuild();
}

QAction* LaneMenu::laneAction(int lane) const {
    return lane >= 0 && lane < static_cast<int>(lanes_.size())
               ? lanes_[static_cast<std::size_t>(lane)]
               : nullptr;
}

void LaneMenu::mouseReleaseEvent(QMouseEvent* e) {
    QAction* a = actionAt(e->pos());
    if (a && a->isCheckable() && a->isEnabled()) {
        a->trigger();
        return;
    }
    QMenu::mouseReleaseEvent(e);
}

void LaneMenu::rebuild() {
    for (auto* a : lanes_)
        delete a;
    for (auto [a, first] : sections_)
        delete a;
    lanes_.clear();
    sections_.clear();
    builtFor_ = view_ ? view_->data() : nullptr;
    if (!builtFor_) {
        sync();
        return;
    }
    const auto& timeline = *builtFor_;
    QString group;
    for (int i = 0; i < static_cast<int>(timeline.lanes.size()); ++i) {
        const auto& lane = timeline.lanes[static_cast<std::size_t>(i)];
        if (i == 0 || lane.group != group) {
            group = lane.group;
            sections_.emplace_back(addSection(group), i);
        }
        auto* a =
            addAction(QStringLiteral("%1  (%2)")
                          .arg(lane.title,
                               QLocale().toString(static_cast<qulonglong>(laneEventCount(lane)))));
        a->setCheckable(true);
        a->setToolTip(lane.group + QStringLiteral(" · ") + lane.title);
        connect(a, &QAction::triggered, this, [this, i](bool checked) {
            if (view_) view_->setLaneHidden(i, !checked);
        });
        lanes_.push_back(a);
    }
    sync();
}

void LaneMenu::sync() {
    if (!view_ || view_->data() != builtFor_) return;
    const auto& visibility = view_->laneVisibility();
    if (filter_->text().trimmed() != visibility.filter()) {
        QSignalBlocker block(filter_);
        filter_->setText(visibility.filter());
    }
    for (int i = 0; i < static_cast<int>(lanes_.size()); ++i) {
        auto* a = lanes_[static_cast<std::size_t>(i)];
        QSignalBlocker block(a);
        a->setChecked(!visibility.hidden(i));
        a->setVisible(visibility.matchesFilter(i));  // the filter narrows the list too
    }
    // A group's section shows while one of its lanes does.
    for (std::size_t s = 0; s < sections_.size(); ++s) {
        int end =
            s + 1 < sections_.size() ? sections_[s + 1].second : static_cast<int>(lanes_.size());
        bool any = false;
        for (int i = sections_[s].second; i < end && !any; ++i)
            any = lanes_[static_cast<std::size_t>(i)]->isVisible();
        sections_[s].first->setVisible(any);
    }
    showAll_->setEnabled(visibility.rowCount() < visibility.laneCount());
}

}  // namespace ws::ui
