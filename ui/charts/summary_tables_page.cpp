#include "charts/summary_tables_page.h"

#include <algorithm>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "viewmodels/kernel_table_model.h"
#include "viewmodels/summary_tables.h"

namespace ws::ui {

SummaryTablesPage::SummaryTablesPage(QWidget* parent)
    : QWidget(parent),
      choice_(new QComboBox(this)),
      caption_(new QLabel(this)),
      view_(new QTableView(this)),
      proxy_(new QSortFilterProxyModel(this)),
      kernels_(new KernelTableModel(this)),
      summary_(new SummaryTableModel(this)) {
    choice_->addItem(tr("Kernels"), static_cast<int>(Table::Kernels));
    choice_->addItem(tr("NVTX ranges"), static_cast<int>(Table::Ranges));
    choice_->addItem(tr("CUDA API"), static_cast<int>(Table::Api));
    choice_->addItem(tr("Memory copies"), static_cast<int>(Table::Memcpys));
    choice_->addItem(tr("Kernel diff vs baseline"), static_cast<int>(Table::KernelDiff));
    choice_->setToolTip(
        tr("nsys stats' kernel, NVTX, CUDA API and memory-copy summaries of each selected run "
           "over the chosen window, or each kernel of the later runs against the first"));
    connect(choice_, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
    caption_->setWordWrap(true);
    caption_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    // Both models sort by Qt::UserRole + 1.
    static_assert(int(KernelTableModel::SortRole) == int(SummaryTableModel::SortRole));
    proxy_->setSortRole(KernelTableModel::SortRole);
    view_->setModel(proxy_);
    view_->setSortingEnabled(true);
    view_->verticalHeader()->hide();
    view_->verticalHeader()->setDefaultSectionSize(20);
    view_->horizontalHeader()->setStretchLastSection(true);
    view_->setAlternatingRowColors(true);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 0);
    auto* top = new QHBoxLayout;
    top->addWidget(choice_);
    top->addWidget(caption_, 1);
    layout->addLayout(top);
    layout->addWidget(view_, 1);
    refresh();
}

void SummaryTablesPage::setRuns(const std::vector<RunAnalysis>& runs) {
    runs_ = runs;
    kernels_->setRuns(runs);
    refresh();
}

void SummaryTablesPage::showTable(Table table) {
    choice_->setCurrentIndex(choice_->findData(static_cast<int>(table)));
}

SummaryTablesPage::Table SummaryTablesPage::shownTable() const {
    return static_cast<Table>(choice_->currentData().toInt());
}

const QAbstractItemModel& SummaryTablesPage::shownModel() const {
    return *proxy_;
}

QString SummaryTablesPage::caption() const {
    return caption_->text();
}

void SummaryTablesPage::refresh() {
    const Table table = shownTable();
    QStringList windows;
    for (const auto& r : runs_)
        windows << tr("run %1: %2").arg(r.run.id).arg(QString::fromStdString(r.summary.window));
    const QString over = windows.join(QStringLiteral("; "));
    QString empty;  // what the caption says when the table has no rows
    switch (table) {
        case Table::Kernels:
            proxy_->setSourceModel(kernels_);
            break;
        case Table::Ranges:
            summary_->setTable(rangeTable(runs_));
            empty = tr("No NVTX ranges were recorded in this window.");
            break;
        case Table::Api:
            summary_->setTable(apiTable(runs_));
            empty =
                tr("No CUDA API calls were recorded in this window (a run recorded with "
                   "--no-driver-api keeps runtime calls only; imported results have none).");
            break;
        case Table::Memcpys:
            summary_->setTable(memcpyTable(runs_));
            empty = tr("No memory copies in this window.");
            break;
        case Table::KernelDiff:
            summary_->setTable(kernelDiffTable(runs_));
            empty = runs_.size() < 2
                        ? tr("Select two or more runs: each later run's kernels are compared "
                             "with the first (the pinned baseline when there is one).")
                        : tr("The runs have no kernels in this window.");
            break;
    }
    if (table != Table::Kernels) proxy_->setSourceModel(summary_);
    if (runs_.empty())
        caption_->clear();
    else if (proxy_->rowCount() == 0 && !empty.isEmpty())
        caption_->setText(empty);
    else if (table == Table::KernelDiff)
        caption_->setText(tr("Against run %1 — %2").arg(runs_.front().run.id).arg(over));
    else
        caption_->setText(tr("%1 over — %2").arg(choice_->currentText(), over));
    // Largest first, as nsys stats lists them.
    const int sortColumn = table == Table::Kernels      ? int(KernelTableModel::Total)
                           : table == Table::KernelDiff ? 7   // Δ total
                                                        : 2;  // Total
    view_->sortByColumn(sortColumn, Qt::DescendingOrder);
    fitColumns();
}

// Columns as wide as what they hold, the counter columns only when some run
// has counters: kernel names with their template arguments ("gemvMma<1, 2>")
// were cut to a few letters beside three empty columns.
void SummaryTablesPage::fitColumns() {
    for (int column = 0; column < proxy_->columnCount(); ++column)
        view_->setColumnHidden(column, false);
    if (shownTable() == Table::Kernels)
        for (int column : {KernelTableModel::DramGBs, KernelTableModel::Tflops,
                           KernelTableModel::AchievedOccupancy}) {
            bool any = false;
            for (int row = 0; row < kernels_->rowCount() && !any; ++row)
                any = !kernels_->index(row, column).data().toString().isEmpty();
            view_->setColumnHidden(column, !any);
        }
    view_->resizeColumnsToContents();
    const int widest = std::max(160, view_->viewport()->width() / 3);
    for (int column = 0; column < proxy_->columnCount(); ++column)
        if (view_->columnWidth(column) > widest) view_->setColumnWidth(column, widest);
}

}  // namespace ws::ui
