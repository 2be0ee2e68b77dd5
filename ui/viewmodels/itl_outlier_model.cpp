#include "viewmodels/itl_outlier_model.h"

namespace ws::ui {

namespace {

double share(double part, const ItlSplit& whole) {
    return whole.totalNs() > 0 ? 100 * part / whole.totalNs() : 0;
}

QString percent(double v) {
    return QStringLiteral("%1 %").arg(v, 0, 'f', 0);
}

}  // namespace

QString describeSplit(const ItlSplit& s) {
    return QStringLiteral("prefill %1, kernels %2, launch gap %3, host gap %4")
        .arg(percent(share(s.prefillNs, s)), percent(share(s.kernelNs, s)),
             percent(share(s.launchGapNs, s)), percent(share(s.hostGapNs, s)));
}

ItlOutlierModel::ItlOutlierModel(QObject* parent) : QAbstractTableModel(parent) {}

void ItlOutlierModel::setReport(const ItlOutlierReport& report) {
    beginResetModel();
    report_ = report;
    endResetModel();
}

int ItlOutlierModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(report_.outliers.size());
}

int ItlOutlierModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ItlOutlierModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const auto& o = report_.outliers[static_cast<std::size_t>(index.row())];
    double value = 0;
    switch (index.column()) {
        case Request:
            value = static_cast<double>(o.requestId);
            break;
        case Token:
            value = o.tokenIndex;
            break;
        case ItlMs:
            value = o.ms();
            break;
        case VsMedian:
            value = report_.p50Ms > 0 ? o.ms() / report_.p50Ms : 0;
            break;
        case Steps:
            value = o.steps;
            break;
        case PrefillTokens:
            value = o.prefillTokens;
            break;
        case Batch:
            value = o.maxRunning;
            break;
        case Prefill:
            value = share(o.split.prefillNs, o.split);
            break;
        case Kernels:
            value = share(o.split.kernelNs, o.split);
            break;
        case LaunchGap:
            value = share(o.split.launchGapNs, o.split);
            break;
        case HostGap:
            value = share(o.split.hostGapNs, o.split);
            break;
        default:
            return {};
    }
    if (role == SortRole) return value;
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole)
        return QStringLiteral(
                   "Request %1, token %2: %3 ms (%4). Double-click: show it on the "
                   "timeline")
            .arg(o.requestId)
            .arg(o.tokenIndex)
            .arg(o.ms(), 0, 'f', 3)
            .arg(describeSplit(o.split));
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
        case ItlMs:
            return QString::number(value, 'f', 3);
        case VsMedian:
            return QStringLiteral("%1×").arg(value, 0, 'f', 1);
        case Prefill:
        case Kernels:
        case LaunchGap:
        case HostGap:
            return percent(value);
        default:
            return QString::number(static_cast<long long>(value));
    }
}

QVariant ItlOutlierModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
            case VsMedian:
                return tr("This ITL against the run's median ITL");
            case Steps:
                return tr("Engine steps the ITL overlaps");
            case PrefillTokens:
                return tr("Prompt tokens those steps prefilled");
            case Batch:
                return tr("The most requests one of those steps ran");
            case Prefill:
                return tr("Share of the ITL inside steps that ran prefill");
            case Kernels:
                return tr("GPU busy inside decode-only steps");
            case LaunchGap:
                return tr("GPU idle inside decode-only steps (the host launching)");
            case HostGap:
                return tr("Outside any engine step: scheduling, output, delivery to the client");
            default:
                return {};
        }
    }
    if (role != Qt::DisplayRole) return {};
    static const char* names[] = {"Request", "Token",       "ITL ms",  "× p50",
                                  "Steps",   "Prefill tok", "Batch",   "Prefill",
                                  "Kernels", "Launch gap",  "Host gap"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace ws::ui
