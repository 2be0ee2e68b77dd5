#include "viewmodels/summary_table_model.h"

#include "viewmodels/table_export.h"

namespace ws::ui {

SummaryTableModel::SummaryTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void SummaryTableModel::setTable(SummaryTable table) {
    beginResetModel();
    table_ = std::move(table);
    endResetModel();
}

int SummaryTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(table_.rows.size());
}

int SummaryTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(table_.columns.size());
}

QVariant SummaryTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
    const auto& row = table_.rows[static_cast<std::size_t>(index.row())];
    if (static_cast<std::size_t>(index.column()) >= row.size()) return {};
    const SummaryCell& cell = row[static_cast<std::size_t>(index.column())];
    switch (role) {
        case Qt::DisplayRole:
            return cell.shown.isNull() ? cell.value : cell.shown;
        case SortRole:
        case ExportValueRole:
            return cell.value.isNull() ? cell.shown : cell.value;
        case Qt::ToolTipRole:
            return cell.tip.isEmpty() ? QVariant() : QVariant(cell.tip);
        case Qt::TextAlignmentRole:
            if (table_.columns[static_cast<std::size_t>(index.column())].numeric)
                return QVariant(Qt::AlignRight | Qt::AlignVCenter);
            return {};
    }
    return {};
}

QVariant SummaryTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount()) return {};
    const auto& column = table_.columns[static_cast<std::size_t>(section)];
    if (role == Qt::DisplayRole) return column.header;
    if (role == ExportKeyRole) return column.key;
    if (role == Qt::ToolTipRole && !column.tip.isEmpty()) return column.tip;
    return {};
}

}  // namespace ws::ui
