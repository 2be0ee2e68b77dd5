#include "timeline/search_matches_list.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSortFilterProxyModel>
#include <QStyle>
#include <QTableView>
#include <QVBoxLayout>

#include "timeline/search_matches_model.h"
#include "timeline/timeline_view.h"
#include "viewmodels/timeline_data.h"

namespace ws::ui {

SearchMatchesList::SearchMatchesList(QWidget* parent)
    : QWidget(parent),
      caption_(new QLabel(this)),
      table_(new QTableView(this)),
      model_(new SearchMatchesModel(this)),
      sorted_(new QSortFilterProxyModel(this)) {
    sorted_->setSourceModel(model_);
    sorted_->setSortRole(SearchMatchesModel::SortRole);
    table_->setModel(sorted_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(SearchMatchesModel::StartColumn, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setWordWrap(false);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 4);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    table_->setColumnWidth(SearchMatchesModel::StartColumn, 90);
    table_->setColumnWidth(SearchMatchesModel::DurationColumn, 80);
    table_->setColumnWidth(SearchMatchesModel::LaneColumn, 160);
    caption_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    caption_->setWordWrap(true);  // the dock is often narrow

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(caption_);
    layout->addWidget(table_, 1);

    // Enter and double-click activate; a single click too, once: where the
    // style activates on a single click, `activated` already covers it.
    connect(table_, &QTableView::activated, this, &SearchMatchesList::activate);
    if (!table_->style()->styleHint(QStyle::SH_ItemView_ActivateItemOnSingleClick, nullptr, table_))
        connect(table_, &QTableView::clicked, this, &SearchMatchesList::activate);
    clear();
}

void SearchMatchesList::clear() {
    runMatches_ = false;
    model_->setRows({});
    caption_->setText(tr("Search the timeline to list its matches here."));
}

QString SearchMatchesList::caption() const {
    return caption_->text();
}

void SearchMatchesList::setMatches(const TimelineView& view) {
    const TimelineData* timeline = view.data();
    if (!timeline || view.searchText().isEmpty()) {
        clear();
        return;
    }
    runMatches_ = false;
    beginNs_ = timeline->beginNs;
    const auto matches = view.searchMatches(kMaxRows);
    std::vector<SearchMatchRow> rows;
    rows.reserve(matches.size());
    for (auto [lane, event] : matches) {
        const auto& l = timeline->lanes[static_cast<std::size_t>(lane)];
        const auto e = static_cast<std::size_t>(event);
        rows.push_back({lane, event, l.events.start(e) - timeline->beginNs,
                        l.events.end(e) - l.events.start(e),
                        l.group + QStringLiteral(" · ") + l.title,
                        QString::fromStdString(timeline->labels[l.events.label(e)])});
    }
    model_->setRows(std::move(rows));
    const std::size_t total = view.searchMatchCount();
    const QLocale locale;
    const QString text = view.searchText();
    if (total == 0)
        caption_->setText(tr("No matches of '%1' in the lanes shown").arg(text));
    else if (total <= kMaxRows)
        caption_->setText(tr("%1 %2 of '%3'")
                              .arg(locale.toString(static_cast<qulonglong>(total)),
                                   total == 1 ? tr("match") : tr("matches"), text));
    else
        caption_->setText(tr("first %1 of %2 matches of '%3'")
                              .arg(locale.toString(static_cast<qulonglong>(matches.size())),
                                   locale.toString(static_cast<qulonglong>(total)), text));
}

void SearchMatchesList::setSearching(const QString& text, double fraction) {
    runMatches_ = true;
    model_->setRows({});
    caption_->setText(tr("Searching the whole run for '%1': %2 %")
                          .arg(text)
                          .arg(static_cast<int>(fraction * 100)));
}

namespace {

// The lane a whole-run match is drawn in; -1 if the timeline has none.
int laneOf(const TimelineData& timeline, const EventMatch& m) {
    const LaneKind kind = m.kind == MatchedKind::Kernel    ? LaneKind::Kernels
                          : m.kind == MatchedKind::ApiCall ? LaneKind::ApiCalls
                                                           : LaneKind::Memcpys;
    for (std::size_t i = 0; i < timeline.lanes.size(); ++i) {
        const auto& l = timeline.lanes[i];
        if (l.kind == kind && l.laneId == m.laneId &&
            (kind == LaneKind::ApiCalls || l.deviceId == m.deviceId))
            return static_cast<int>(i);
    }
    return -1;
}

}  // namespace

void SearchMatchesList::setRunMatches(const TimelineData& timeline, const EventSearch& found,
                                      const QString& text) {
    runMatches_ = true;
    beginNs_ = timeline.beginNs;
    std::vector<SearchMatchRow> rows;
    rows.reserve(found.first.size());
    for (const auto& m : found.first) {
        const int lane = laneOf(timeline, m);
        if (lane < 0) continue;
        const auto& l = timeline.lanes[static_cast<std::size_t>(lane)];
        rows.push_back({lane, -1, m.startNs - beginNs_, m.endNs - m.startNs,
                        l.group + QStringLiteral(" · ") + l.title, QString::fromStdString(m.name)});
    }
    const QLocale locale;
    const auto total = static_cast<qulonglong>(found.total);
    if (total == 0)
        caption_->setText(tr("No matches of '%1' in the whole run").arg(text));
    else if (rows.size() == total)
        caption_->setText(
            tr("%1 %2 of '%3' in the whole run")
                .arg(locale.toString(total), total == 1 ? tr("match") : tr("matches"), text));
    else
        caption_->setText(tr("first %1 of %2 matches of '%3' in the whole run")
                              .arg(locale.toString(static_cast<qulonglong>(rows.size())),
                                   locale.toString(total), text));
    model_->setRows(std::move(rows));
}

void SearchMatchesList::activate(const QModelIndex& index) {
    if (!index.isValid()) return;
    const long event = static_cast<long>(index.data(SearchMatchesModel::EventRole).toLongLong());
    if (event < 0) {  // a whole-run match: maybe not loaded
        const auto row = index.siblingAtColumn(SearchMatchesModel::StartColumn);
        const auto duration = index.siblingAtColumn(SearchMatchesModel::DurationColumn);
        const std::int64_t start = beginNs_ + row.data(SearchMatchesModel::SortRole).toLongLong();
        emit runMatchActivated(index.data(SearchMatchesModel::LaneRole).toInt(), start,
                               start + duration.data(SearchMatchesModel::SortRole).toLongLong());
        return;
    }
    emit matchActivated(index.data(SearchMatchesModel::LaneRole).toInt(),
                        static_cast<long>(index.data(SearchMatchesModel::EventRole).toLongLong()));
}

}  // namespace ws::ui
