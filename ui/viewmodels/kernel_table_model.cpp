#include "viewmodels/kernel_table_model.h"

#include "util/format.h"
#include "viewmodels/table_export.h"

namespace ws::ui {

KernelTableModel::KernelTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void KernelTableModel::setRuns(const std::vector<RunAnalysis>& runs) {
    beginResetModel();
    rows_.clear();
    for (const auto& r : runs)
        for (const auto& k : r.summary.kernels)
            rows_.push_back({r.run.id, k});
    endResetModel();
}

int KernelTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}
int KernelTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KernelTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const auto& row = rows_[static_cast<std::size_t>(index.row())];
    const auto& k = row.stat;
    const auto& t = k.time;
    int column = index.column();
    auto counter = [&](const std::optional<double>& v, double scale) -> QVariant {
        return v ? QVariant(*v * scale) : QVariant();
    };
    // Unformatted values: sorting and export.
    auto raw = [&]() -> QVariant {
        switch (column) {
            case Run:
                return QVariant::fromValue<qlonglong>(row.run);
            case TimePercent:
                return k.timePercent;
            case Total:
                return t.totalNs;
            case Instances:
                return QVariant::fromValue<qlonglong>(t.count);
            case Mean:
                return t.meanNs;
            case Median:
                return t.medianNs;
            case Min:
                return t.minNs;
            case Max:
                return t.maxNs;
            case StdDev:
                return t.stdNs;
            case DramGBs:
                return counter(k.dramGBs, 1);
            case Tflops:
                return counter(k.tflops, 1);
            case AchievedOccupancy:
                return counter(k.achievedOccupancy, 1);
            case Name:
                return QString::fromStdString(k.name);
            case Signature:
                return QString::fromStdString(k.demangled);
        }
        return {};
    };
    if (role == SortRole || role == ExportValueRole) return raw();
    if (role == Qt::ToolTipRole && (column == Name || column == Signature))
        return QString::fromStdString(k.demangled);
    if (role == Qt::TextAlignmentRole && column < Name)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole) return {};
    switch (column) {
        case Run:
        case Instances:
        case Name:
        case Signature:
            return raw();
        case TimePercent:
            return QString::number(k.timePercent, 'f', 1);
        case DramGBs:
            return k.dramGBs ? QString::number(*k.dramGBs, 'f', 0) : QString();
        case Tflops:
            return k.tflops ? QString::number(*k.tflops, 'f', 1) : QString();
        case AchievedOccupancy:
            return k.achievedOccupancy
                       ? QString::number(100 * *k.achievedOccupancy, 'f', 0) + QLatin1Char('%')
                       : QString();
        default:
            return QString::fromStdString(
                formatDuration(static_cast<std::int64_t>(raw().toDouble())));
    }
}

QVariant KernelTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    static const char* names[] = {"Run",     "Time %",        "Total", "Instances", "Mean",
                                  "Median",  "Min",           "Max",   "StdDev",    "DRAM GB/s",
                                  "TFLOP/s", "Achieved occ.", "Name",  "Signature"};
    static const char* keys[] = {"run",     "time_percent",  "total_ns",    "instances",
                                 "mean_ns", "median_ns",     "min_ns",      "max_ns",
                                 "std_ns",  "dram_gb_per_s", "tflop_per_s", "achieved_occupancy",
                                 "name",    "demangled"};
    if (role == ExportKeyRole) return QString::fromLatin1(keys[section]);
    if (role == Qt::DisplayRole) return tr(names[section]);
    return {};
}

}  // namespace ws::ui
