#include "models/kernel_table_model.h"

#include "util/format.h"

namespace ws::ui {

namespace {
QString csvField(QString v) {
    if (!v.contains(',') && !v.contains('"') && !v.contains('\n')) return v;
    return '"' + v.replace('"', QStringLiteral("\"\"")) + '"';
}
}  // namespace

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
    const auto& t = row.stat.time;
    double values[] = {0,        row.stat.timePercent, t.totalNs, static_cast<double>(t.count),
                       t.meanNs, t.medianNs,           t.minNs,   t.maxNs,
                       t.stdNs};
    if (role == SortRole) {
        if (index.column() == Run) return QVariant::fromValue<qlonglong>(row.run);
        if (index.column() == Name) return QString::fromStdString(row.stat.name);
        return values[index.column()];
    }
    if (role == Qt::ToolTipRole && index.column() == Name)
        return QString::fromStdString(row.stat.demangled);
    if (role == Qt::TextAlignmentRole && index.column() != Name)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
        case Run:
            return QVariant::fromValue<qlonglong>(row.run);
        case TimePercent:
            return QString::number(row.stat.timePercent, 'f', 1);
        case Instances:
            return QVariant::fromValue<qlonglong>(t.count);
        case Name:
            return QString::fromStdString(row.stat.name);
        default:
            return QString::fromStdString(
                formatDuration(static_cast<std::int64_t>(values[index.column()])));
    }
}

QVariant KernelTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* names[] = {"Run",    "Time %", "Total", "Instances", "Mean",
                                  "Median", "Min",    "Max",   "StdDev",    "Name"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

QString KernelTableModel::toCsv() const {
    QString out = QStringLiteral(
        "run,time_percent,total_ns,instances,mean_ns,median_ns,min_ns,max_ns,std_ns,name,"
        "demangled\n");
    for (const auto& r : rows_) {
        const auto& t = r.stat.time;
        out += QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9,")
                   .arg(r.run)
                   .arg(r.stat.timePercent, 0, 'f', 3)
                   .arg(t.totalNs, 0, 'f', 0)
                   .arg(t.count)
                   .arg(t.meanNs, 0, 'f', 1)
                   .arg(t.medianNs, 0, 'f', 1)
                   .arg(t.minNs, 0, 'f', 0)
                   .arg(t.maxNs, 0, 'f', 0)
                   .arg(t.stdNs, 0, 'f', 1);
        out += csvField(QString::fromStdString(r.stat.name)) + ',' +
               csvField(QString::fromStdString(r.stat.demangled)) + '\n';
    }
    return out;
}

}  // namespace ws::ui
