#include "runs_panel.h"

#include <algorithm>

#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "viewmodels/run_list_model.h"

namespace ws::ui {

RunsPanel::RunsPanel(RunListModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      proxy_(new QSortFilterProxyModel(this)),
      banner_(new QLabel(this)),
      filter_(new QLineEdit(this)),
      view_(new QTableView(this)) {
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(RunListModel::SortRole);
    proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    proxy_->setFilterKeyColumn(-1);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    banner_->setObjectName(QStringLiteral("noticeBanner"));
    banner_->setWordWrap(true);
    banner_->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse);
    banner_->hide();
    connect(banner_, &QLabel::linkActivated, this, &RunsPanel::linkActivated);
    filter_->setPlaceholderText(tr("Filter runs (Ctrl+F)"));
    filter_->setClearButtonEnabled(true);
    connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);

    view_->setModel(proxy_);
    view_->setSortingEnabled(true);
    view_->sortByColumn(RunListModel::Id, Qt::DescendingOrder);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    view_->setAlternatingRowColors(true);
    view_->setShowGrid(false);
    // Variants of one model differ at the end of their labels
    // ("llama-3.2-1b-int8-graphs"): elided at the end they all read alike.
    view_->setTextElideMode(Qt::ElideMiddle);
    view_->verticalHeader()->hide();
    view_->verticalHeader()->setDefaultSectionSize(22);
    view_->horizontalHeader()->setStretchLastSection(false);
    view_->horizontalHeader()->setSectionResizeMode(RunListModel::Label, QHeaderView::Interactive);
    view_->setColumnWidth(RunListModel::Id, 36);
    view_->setColumnWidth(RunListModel::Status, 56);
    view_->setColumnWidth(RunListModel::Workload, 130);
    view_->setColumnWidth(RunListModel::Device, 96);
    view_->setColumnWidth(RunListModel::Started, 132);
    view_->setColumnWidth(RunListModel::Duration, 66);
    connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &RunsPanel::selectionChanged);
    view_->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(view_, &QWidget::customContextMenuRequested, this, &RunsPanel::showContextMenu);

    layout->addWidget(banner_);
    layout->addWidget(filter_);
    layout->addWidget(view_);
}

void RunsPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitLabelColumn();
}

void RunsPanel::fitLabelColumn() {
    constexpr int kLabelMinimum = 210;  // "llama-3.2-1b-optimized-graphs" whole
    int others = 0;
    for (int c = 0; c < view_->model()->columnCount(); ++c)
        if (c != RunListModel::Label && !view_->isColumnHidden(c)) others += view_->columnWidth(c);
    view_->setColumnWidth(RunListModel::Label,
                          std::max(kLabelMinimum, view_->viewport()->width() - others));
}

std::vector<RunId> RunsPanel::selectedRuns() const {
    std::vector<RunId> ids;
    for (const auto& row : view_->selectionModel()->selectedRows())
        ids.push_back(row.data(RunListModel::RunIdRole).toLongLong());
    return ids;
}

std::optional<RunId> RunsPanel::focusedRun() const {
    auto rows = view_->selectionModel()->selectedRows();
    if (rows.isEmpty()) return std::nullopt;
    QModelIndex current = view_->selectionModel()->currentIndex();
    bool currentSelected =
        current.isValid() && view_->selectionModel()->isRowSelected(current.row(), {});
    return (currentSelected ? current : rows.first()).data(RunListModel::RunIdRole).toLongLong();
}

void RunsPanel::selectRuns(const std::vector<RunId>& ids) {
    QItemSelection selection;
    QModelIndex first;
    for (auto id : ids) {
        int row = model_->rowOfRun(id);
        if (row < 0) continue;
        QModelIndex index = proxy_->mapFromSource(model_->index(row, 0));
        if (!first.isValid()) first = index;
        selection.select(index, index);
    }
    if (!first.isValid()) return;
    view_->selectionModel()->select(
        selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    view_->selectionModel()->setCurrentIndex(first, QItemSelectionModel::NoUpdate);
    view_->scrollTo(first);
}

void RunsPanel::selectFirstRow() {
    view_->selectRow(0);
}

void RunsPanel::focusFilter() {
    filter_->setFocus();
    filter_->selectAll();
}

void RunsPanel::setBannerStyle(bool error) {
    banner_->setStyleSheet(
        error ? QStringLiteral("QLabel { background: #fdecea; color: #8a1c1c; border: 1px solid "
                               "#f5c2c0; border-radius: 4px; padding: 6px; }")
              : QStringLiteral("QLabel { background: #e8f1fb; color: #0b3d6e; border: 1px solid "
                               "#b6d4f2; border-radius: 4px; padding: 6px; }"));
}

void RunsPanel::showError(const QString& message) {
    setBannerStyle(true);
    banner_->setTextFormat(Qt::PlainText);
    banner_->setText(message);
    banner_->show();
}

void RunsPanel::showHint(const QString& richText) {
    setBannerStyle(false);
    banner_->setTextFormat(Qt::RichText);
    banner_->setText(richText);
    banner_->show();
}

void RunsPanel::clearNotice() {
    banner_->clear();
    banner_->hide();
}

QString RunsPanel::noticeText() const {
    return banner_->text();
}

bool RunsPanel::noticeShown() const {
    return banner_->isVisible() || !banner_->text().isEmpty();
}

void RunsPanel::showContextMenu(const QPoint& at) {
    QModelIndex index = view_->indexAt(at);
    if (!index.isValid()) return;
    const RunId id = index.data(RunListModel::RunIdRole).toLongLong();
    // The menu acts on the selection when the clicked run is part of it, as
    // file managers do; otherwise on the clicked run alone.
    std::vector<RunId> targets = selectedRuns();
    if (std::find(targets.begin(), targets.end(), id) == targets.end()) targets = {id};

    QMenu menu(this);
    if (model_->baseline() == id)
        menu.addAction(tr("Clear Baseline"), this,
                       [this] { emit baselineRequested(std::nullopt); });
    else
        menu.addAction(tr("Use Run %1 as Baseline").arg(id), this,
                       [this, id] { emit baselineRequested(id); });
    menu.addSeparator();
    menu.addAction(tr("Rename Run %1…").arg(id), this, [this, id] { askRename(id); });
    menu.addAction(tr("Edit Tags of Run %1…").arg(id), this, [this, id] { askTags(id); });
    menu.addAction(tr("Export Report of Run %1…").arg(id), this,
                   [this, id] { emit reportRequested(id); });
    menu.addSeparator();
    menu.addAction(targets.size() == 1
                       ? tr("Delete Run %1…").arg(id)
                       : tr("Delete %n Runs…", nullptr, static_cast<int>(targets.size())),
                   this, [this, targets] { askDelete(targets); });
    menu.exec(view_->viewport()->mapToGlobal(at));
}

void RunsPanel::askRename(RunId id) {
    const RunInfo* run = model_->runAt(model_->rowOfRun(id));
    if (!run) return;
    bool ok = false;
    QString label =
        QInputDialog::getText(this, tr("Rename Run %1").arg(id), tr("Label:"), QLineEdit::Normal,
                              QString::fromStdString(run->label), &ok)
            .trimmed();
    if (ok && !label.isEmpty() && label.toStdString() != run->label)
        emit renameRequested(id, label);
}

void RunsPanel::askTags(RunId id) {
    const RunInfo* run = model_->runAt(model_->rowOfRun(id));
    if (!run) return;
    bool ok = false;
    QString tags =
        QInputDialog::getText(this, tr("Tags of Run %1").arg(id), tr("Tags, separated by commas:"),
                              QLineEdit::Normal, QString::fromStdString(run->tags), &ok);
    if (ok && tags.toStdString() != run->tags) emit tagsRequested(id, tags);
}

void RunsPanel::askDelete(const std::vector<RunId>& ids) {
    QStringList names;
    for (RunId id : ids)
        names << QString::number(id);
    auto answer = QMessageBox::question(
        this, tr("Delete Runs"),
        tr("Delete run(s) %1 and everything they recorded from this store? This cannot be "
           "undone.")
            .arg(names.join(QStringLiteral(", "))),
        QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel);
    if (answer == QMessageBox::Yes) emit deleteRequested(ids);
}

}  // namespace ws::ui
