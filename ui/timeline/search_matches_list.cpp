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

void SearchMatchesList::activate(const QModelIndex& index) {
    if (!index.isValid()) return;
    emit matchActivated(index.data(SearchMatchesModel::LaneRole).toInt(),
                        static_cast<long>(index.data(SearchMatchesModel::EventRole).toLongLong()));
}

}  // namespace ws::ui
