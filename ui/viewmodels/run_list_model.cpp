#include "viewmodels/run_list_model.h"

#include "viewmodels/table_export.h"

#include <QColor>
#include <QDateTime>
#include <QFont>

#include "util/format.h"

namespace ws::ui {

QColor statusColor(RunStatus status) {
    switch (status) {
        case RunStatus::Ok:
            return QColor(0x2e, 0x9d, 0x4f);
        case RunStatus::Failed:
            return QColor(0xd3, 0x2f, 0x2f);
        case RunStatus::Killed:
            return QColor(0xef, 0x8a, 0x17);
        case RunStatus::Running:
            return QColor(0x1e, 0x88, 0xe5);
    }
    return {};
}

RunListModel::RunListModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunListModel::setRuns(std::vector<RunInfo> runs) {
    beginResetModel();
    runs_ = std::move(runs);
    endResetModel();
}

const RunInfo* RunListModel::runAt(int row) const {
    if (row < 0 || row >= static_cast<int>(runs_.size())) return nullptr;
    return &runs_[static_cast<std::size_t>(row)];
}

int RunListModel::rowOfRun(RunId id) const {
    for (std::size_t i = 0; i < runs_.size(); ++i)
        if (runs_[i].id == id) return static_cast<int>(i);
    return -1;
}

int RunListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(runs_.size());
}

int RunListModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.parent().isValid()) return {};
    const RunInfo* run = runAt(index.row());
    if (!run) return {};
    switch (role) {
        case RunIdRole:
            return QVariant::fromValue<qlonglong>(run->id);
        case StatusRole:
            return static_cast<int>(run->status);
        case WorkloadRole:
            return QString::fromStdString(run->workload);
        case ExportValueRole:
        case SortRole:
            switch (index.column()) {
                case Id:
                    return QVariant::fromValue<qlonglong>(run->id);
                case Started:
                    return QVariant::fromValue<qlonglong>(run->startedAtNs);
                case Duration:
                    return QVariant::fromValue<qlonglong>(run->durationNs());
                case Tags:
                    return QString::fromStdString(run->tags);
                default:
                    return data(index, Qt::DisplayRole);
            }
        case Qt::DisplayRole:
            switch (index.column()) {
                case Id:
                    return QVariant::fromValue<qlonglong>(run->id);
                case Status:
                    return QString::fromLatin1(toString(run->status));
                case Label:
                    return baseline_ == run->id
                               ? tr("%1 (baseline)").arg(QString::fromStdString(run->label))
                               : QString::fromStdString(run->label);
                case Workload:
                    return QString::fromStdString(run->workload);
                case Device:
                    return QString::fromStdString(run->device);
                case Started:
                    return QString::fromStdString(formatTimestamp(run->startedAtNs));
                case Duration:
                    return run->endedAtNs
                               ? QString::fromStdString(formatDuration(run->durationNs()))
                               : QStringLiteral("—");
                case Tags:
                    return QString::fromStdString(run->tags).replace(',', QStringLiteral(", "));
            }
            return {};
        case Qt::ForegroundRole:
            if (index.column() == Status) return statusColor(run->status);
            return {};
        case Qt::FontRole:
            if (baseline_ == run->id) {
                QFont bold;
                bold.setBold(true);
                return bold;
            }
            return {};
        case Qt::ToolTipRole:
            if (index.column() == Status && run->droppedRecords > 0)
                return QStringLiteral("%1 records dropped by CUPTI").arg(run->droppedRecords);
            if (index.column() == Label && !run->tags.empty())
                return tr("%1\ntags: %2")
                    .arg(QString::fromStdString(run->label), QString::fromStdString(run->tags));
            if (index.column() == Status && run->exitCode)
                return QStringLiteral("exit code %1").arg(*run->exitCode);
            if (index.column() == Status && run->signal)
                return QStringLiteral("signal %1").arg(*run->signal);
            return {};
        case Qt::TextAlignmentRole:
            if (index.column() == Id || index.column() == Duration)
                return QVariant(Qt::AlignRight | Qt::AlignVCenter);
            return {};
    }
    return {};
}

void RunListModel::setBaseline(std::optional<RunId> run) {
    if (run && rowOfRun(*run) < 0) run.reset();
    if (run == baseline_) return;
    baseline_ = run;
    if (!runs_.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

QVariant RunListModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation == Qt::Horizontal && role == ExportKeyRole) {
        static const char* keys[] = {"id",     "status",        "label",       "workload",
                                     "device", "started_at_ns", "duration_ns", "tags"};
        return section >= 0 && section < ColumnCount ? QString::fromLatin1(keys[section])
                                                     : QVariant();
    }
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case Id:
            return tr("ID");
        case Status:
            return tr("Status");
        case Label:
            return tr("Label");
        case Workload:
            return tr("Workload");
        case Device:
            return tr("Device");
        case Started:
            return tr("Started");
        case Duration:
            return tr("Duration");
        case Tags:
            return tr("Tags");
    }
    return {};
}

}  // namespace ws::ui
