#include "timeline/timeline_toolbar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QToolButton>

#include "timeline/lane_menu.h"
#include "timeline/timeline_view.h"

namespace ws::ui {

TimelineToolbar::TimelineToolbar(QWidget* parent)
    : QWidget(parent),
      search_(new QLineEdit(this)),
      lanes_(new QToolButton(this)),
      laneMenu_(new LaneMenu(lanes_)),
      stack_(new QToolButton(this)),
      alignAt_(new QLineEdit(QStringLiteral("decode step"), this)),
      info_(new QLabel(this)) {
    search_->setPlaceholderText(tr("Find kernels or ranges by name (Ctrl+K, F3 next)"));
    search_->setClearButtonEnabled(true);
    search_->setMaximumWidth(360);
    auto* prev = new QToolButton(this);
    prev->setText(QStringLiteral("◀"));
    prev->setToolTip(tr("Previous match (Shift+F3)"));
    auto* next = new QToolButton(this);
    next->setText(QStringLiteral("▶"));
    next->setToolTip(tr("Next match (F3)"));
    auto* fit = new QToolButton(this);
    fit->setText(tr("Fit"));
    fit->setToolTip(tr("Show the whole run (Home)"));
    lanes_->setText(tr("Lanes ▾"));
    // The arrow in the text: the style's corner arrow would overlap "3/4".
    lanes_->setStyleSheet(QStringLiteral("QToolButton::menu-indicator { image: none; }"));
    lanes_->setToolTip(tr("Choose the lanes shown: filter by name, hide streams or threads"));
    lanes_->setMenu(laneMenu_);
    lanes_->setPopupMode(QToolButton::InstantPopup);
    stack_->setText(tr("Stack"));
    stack_->setCheckable(true);
    stack_->setToolTip(
        tr("With two runs selected, show the second run's timeline below the "
           "first, aligned at the range named on the right"));
    alignAt_->setToolTip(
        tr("Align the stacked runs at the first NVTX range whose name "
           "contains this (e.g. decode step, prefill)"));
    alignAt_->setMaximumWidth(140);
    info_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // A long selection line takes the room that is left, never the fields'.
    search_->setMinimumWidth(200);
    alignAt_->setMinimumWidth(110);
    info_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);

    auto* bar = new QHBoxLayout(this);
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(search_);
    bar->addWidget(prev);
    bar->addWidget(next);
    bar->addWidget(fit);
    bar->addWidget(lanes_);
    bar->addSpacing(12);
    bar->addWidget(stack_);
    bar->addWidget(alignAt_);
    bar->addSpacing(12);
    bar->addWidget(info_, 1);

    connect(search_, &QLineEdit::textChanged, this, &TimelineToolbar::searchChanged);
    connect(search_, &QLineEdit::returnPressed, this, [this] { emit findNext(false); });
    connect(next, &QToolButton::clicked, this, [this] { emit findNext(false); });
    connect(prev, &QToolButton::clicked, this, [this] { emit findNext(true); });
    connect(fit, &QToolButton::clicked, this, &TimelineToolbar::fitRequested);
    connect(stack_, &QToolButton::toggled, this, &TimelineToolbar::stackChanged);
    connect(alignAt_, &QLineEdit::returnPressed, this, [this] {
        if (stack_->isChecked()) emit stackChanged();
    });
}

QString TimelineToolbar::searchText() const {
    return search_->text();
}
void TimelineToolbar::setSearchText(const QString& text) {
    search_->setText(text);
}
void TimelineToolbar::focusSearch() {
    search_->setFocus();
    search_->selectAll();
}
bool TimelineToolbar::stacked() const {
    return stack_->isChecked();
}
void TimelineToolbar::setStacked(bool on) {
    stack_->setChecked(on);
}
QString TimelineToolbar::alignAt() const {
    return alignAt_->text();
}
void TimelineToolbar::setAlignAt(const QString& rangeName) {
    alignAt_->setText(rangeName);
}
void TimelineToolbar::setInfo(const QString& text) {
    info_->setText(text);
    info_->setToolTip(text);  // whole, where the bar clips it
}
void TimelineToolbar::setTimelineView(TimelineView* view) {
    laneMenu_->setView(view);
    disconnect(lanesShown_);
    auto label = [this, view = QPointer<TimelineView>(view)] {
        const int shown = view ? view->visibleLaneCount() : 0;
        const int all = view ? view->laneVisibility().laneCount() : 0;
        lanes_->setText(shown < all ? tr("Lanes %1/%2 ▾").arg(shown).arg(all) : tr("Lanes ▾"));
    };
    if (view) lanesShown_ = connect(view, &TimelineView::laneVisibilityChanged, this, label);
    label();
}

}  // namespace ws::ui
