#include "timeline/search_matches_model.h"

#include "util/format.h"

namespace ws::ui {

void SearchMatchesModel::setRows(std::vector<SearchMatchRow> rows) {
    beginResetModel();
    rows_ = std::move(rows);
    endResetModel();
}

int SearchMatchesModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int SearchMatchesModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SearchMatchesModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    const auto& r = rows_[static_cast<std::size_t>(index.row())];
    switch (role) {
        case LaneRole:
            return r.lane;
        case EventRole:
            return QVariant::fromValue<qlonglong>(r.event);
        case Qt::TextAlignmentRole:
            return index.column() <= DurationColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                                    : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
        case Qt::DisplayRole:
        case Qt::ToolTipRole:
        case SortRole:
            break;
        default:
            return {};
    }
    const bool sort = role == SortRole;
    switch (index.column()) {
        case StartColumn:
            return sort ? QVariant::fromValue<qlonglong>(r.startNs)
                        : QVariant(QString::number(static_cast<double>(r.startNs) / 1e6, 'f', 3));
        case DurationColumn:
            return sort ? QVariant::fromValue<qlonglong>(r.durationNs)
                        : QVariant(QString::fromStdString(formatDuration(r.durationNs)));
        case LaneColumn:
            return r.laneName;
        case NameColumn:
            return r.name;
        default:
            return {};
    }
}

QVariant SearchMatchesModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case StartColumn:
            return tr("Start (ms)");
        case DurationColumn:
            return tr("Duration");
        case LaneColumn:
            return tr("Lane");
        case NameColumn:
            return tr("Name");
        default:
            return {};
    }
}

}  // namespace ws::ui
