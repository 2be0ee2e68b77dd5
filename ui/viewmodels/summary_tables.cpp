#include "viewmodels/summary_tables.h"

#include <QCoreApplication>

#include "util/format.h"

namespace ws::ui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("SummaryTables", text);
}

SummaryCell number(qlonglong v) {
    return {QVariant(), QVariant::fromValue(v), {}};
}

SummaryCell text(const std::string& s) {
    return {QVariant(), QString::fromStdString(s), {}};
}

SummaryCell duration(double ns) {
    return {QString::fromStdString(formatDuration(static_cast<std::int64_t>(ns))), ns, {}};
}

SummaryCell percent(double p, int digits = 1) {
    return {QStringLiteral("%1 %").arg(p, 0, 'f', digits), p, {}};
}

SummaryCell bytes(std::int64_t b) {
    return {QString::fromStdString(formatBytes(b)), QVariant::fromValue<qlonglong>(b), {}};
}

// The columns every duration table shares, after Run and Time %.
const std::vector<SummaryColumn>& durationColumns() {
    static const std::vector<SummaryColumn> columns = {
        {tr("Total"), QStringLiteral("total_ns")}, {tr("Count"), QStringLiteral("count")},
        {tr("Mean"), QStringLiteral("mean_ns")},   {tr("Median"), QStringLiteral("median_ns")},
        {tr("Min"), QStringLiteral("min_ns")},     {tr("Max"), QStringLiteral("max_ns")},
        {tr("Std dev"), QStringLiteral("std_ns")},
    };
    return columns;
}

void addDurations(std::vector<SummaryCell>& row, const DurationStats& t) {
    row.push_back(duration(t.totalNs));
    row.push_back(number(t.count));
    row.push_back(duration(t.meanNs));
    row.push_back(duration(t.medianNs));
    row.push_back(duration(t.minNs));
    row.push_back(duration(t.maxNs));
    row.push_back(duration(t.stdNs));
}

std::vector<SummaryColumn> lead(const QString& percentTip) {
    std::vector<SummaryColumn> columns = {
        {tr("Run"), QStringLiteral("run")},
        {tr("Time %"), QStringLiteral("time_percent"), true, percentTip},
    };
    columns.insert(columns.end(), durationColumns().begin(), durationColumns().end());
    return columns;
}

}  // namespace

SummaryTable rangeTable(const std::vector<RunAnalysis>& runs) {
    SummaryTable t;
    t.columns =
        lead(tr("Of the time of all ranges of the run in the window (nested ranges "
                "count in each, as in nsys's nvtx_sum)"));
    t.columns.push_back({tr("GPU busy"), QStringLiteral("gpu_busy_percent"), true,
                         tr("Share of the ranges' time the GPU ran a kernel, copy or memset")});
    t.columns.push_back({tr("Kernels"), QStringLiteral("kernel_inclusive_ns"), true,
                         tr("Kernel time launched inside the range, nested ranges included "
                            "(nsys nvtx_kern_sum)")});
    t.columns.push_back({tr("Self kernels"), QStringLiteral("kernel_self_ns"), true,
                         tr("Kernel time for which this is the innermost range (PyTorch's "
                            "self CUDA)")});
    t.columns.push_back({tr("Range"), QStringLiteral("name"), false});
    t.columns.push_back({tr("Domain"), QStringLiteral("domain"), false});
    for (const auto& r : runs) {
        double total = 0;
        for (const auto& range : r.summary.ranges)
            total += range.time.totalNs;
        for (const auto& range : r.summary.ranges) {
            std::vector<SummaryCell> row{number(r.run.id),
                                         percent(total > 0 ? 100 * range.time.totalNs / total : 0)};
            addDurations(row, range.time);
            row.push_back(percent(range.gpuBusyFraction * 100, 0));
            row.push_back(duration(range.inclusiveKernelNs));
            row.push_back(duration(range.selfKernelNs));
            row.push_back(text(range.name));
            row.push_back(text(range.domain));
            t.rows.push_back(std::move(row));
        }
    }
    return t;
}

SummaryTable apiTable(const std::vector<RunAnalysis>& runs) {
    SummaryTable t;
    t.columns = lead(tr("Of all CUDA API time of the run in the window (nsys cuda_api_sum)"));
    t.columns.push_back(
        {tr("Errors"), QStringLiteral("errors"), true, tr("Calls that returned an error code")});
    t.columns.push_back({tr("API"), QStringLiteral("kind"), false});
    t.columns.push_back({tr("Call"), QStringLiteral("name"), false});
    for (const auto& r : runs)
        for (const auto& a : r.summary.apiCalls) {
            std::vector<SummaryCell> row{number(r.run.id), percent(a.timePercent)};
            addDurations(row, a.time);
            row.push_back(number(a.errors));
            row.push_back(text(toString(a.kind)));
            row.push_back(text(a.name));
            t.rows.push_back(std::move(row));
        }
    return t;
}

SummaryTable memcpyTable(const std::vector<RunAnalysis>& runs) {
    SummaryTable t;
    t.columns = lead(tr("Of all copy time of the run in the window (nsys cuda_gpu_mem_time_sum)"));
    t.columns.push_back({tr("Bytes"), QStringLiteral("total_bytes")});
    t.columns.push_back({tr("GB/s"), QStringLiteral("gb_per_s"), true,
                         tr("Bytes over the time spent copying (10⁹ bytes/s)")});
    t.columns.push_back({tr("Kind"), QStringLiteral("kind"), false});
    for (const auto& r : runs)
        for (const auto& m : r.summary.memcpys) {
            std::vector<SummaryCell> row{number(r.run.id), percent(m.timePercent)};
            addDurations(row, m.time);
            row.push_back(bytes(m.totalBytes));
            row.push_back({QStringLiteral("%1").arg(m.gbPerS, 0, 'f', 2), m.gbPerS, {}});
            row.push_back(text(toString(m.kind)));
            t.rows.push_back(std::move(row));
        }
    return t;
}

namespace {

SummaryCell change(double base, double candidate, std::optional<double> low,
                   std::optional<double> high) {
    const double delta = candidate - base;
    QString shown = QString::fromStdString(
        (delta >= 0 ? "+" : "−") +
        formatDuration(static_cast<std::int64_t>(delta >= 0 ? delta : -delta)));
    if (base > 0)
        shown += QStringLiteral(" (%1%2 %)")
                     .arg(delta >= 0 ? "+" : "−")
                     .arg(std::abs(100 * delta / base), 0, 'f', 1);
    QString tip;
    if (low && high)
        tip = tr("95% interval of the change: %1 to %2")
                  .arg(QString::number(*low / 1e3, 'f', 2) + QStringLiteral(" µs"),
                       QString::number(*high / 1e3, 'f', 2) + QStringLiteral(" µs"));
    return {shown, delta, tip};
}

SummaryCell verdict(Verdict v) {
    return text(toString(v));
}

}  // namespace

SummaryTable kernelDiffTable(const std::vector<RunAnalysis>& runs) {
    SummaryTable t;
    t.columns = {
        {tr("Baseline"), QStringLiteral("base_run")},
        {tr("Run"), QStringLiteral("run")},
        {tr("Kernel"), QStringLiteral("name"), false},
        {tr("Launches"), QStringLiteral("base_launches"), true, tr("In the baseline")},
        {tr("→ launches"), QStringLiteral("launches"), true, tr("In the run")},
        {tr("Total"), QStringLiteral("base_total_ns"), true, tr("In the baseline")},
        {tr("→ total"), QStringLiteral("total_ns"), true, tr("In the run")},
        {tr("Δ total"), QStringLiteral("total_delta_ns"), true,
         tr("Run minus baseline; hover a cell for its 95% bootstrap interval")},
        {tr("Total verdict"), QStringLiteral("total_verdict"), false},
        {tr("Per launch"), QStringLiteral("base_mean_ns"), true, tr("Mean, in the baseline")},
        {tr("→ per launch"), QStringLiteral("mean_ns"), true, tr("Mean, in the run")},
        {tr("Δ per launch"), QStringLiteral("mean_delta_ns"), true,
         tr("Run minus baseline; hover a cell for its 95% bootstrap interval")},
        {tr("Per-launch verdict"), QStringLiteral("per_launch_verdict"), false},
    };
    for (const auto& r : runs) {
        if (!r.againstFirst) continue;
        for (const auto& k : r.againstFirst->kernels) {
            std::vector<SummaryCell> row{number(r.againstFirst->base), number(r.run.id),
                                         text(k.name)};
            // A kernel one run lacks shows "—" on that side, not 0 ns.
            const bool inBase = k.presence != KernelDelta::Presence::New;
            const bool inRun = k.presence != KernelDelta::Presence::Vanished;
            auto side = [](bool present, SummaryCell cell) {
                if (!present) cell.shown = QStringLiteral("—");
                return cell;
            };
            row.push_back(number(k.baseLaunches));
            row.push_back(number(k.candidateLaunches));
            row.push_back(side(inBase, duration(k.baseTotalNs)));
            row.push_back(side(inRun, duration(k.candidateTotalNs)));
            row.push_back(change(k.baseTotalNs, k.candidateTotalNs, k.totalCiLow, k.totalCiHigh));
            row.push_back(k.presence == KernelDelta::Presence::New ? text("new")
                          : k.presence == KernelDelta::Presence::Vanished
                              ? text("gone")
                              : verdict(k.totalVerdict));
            row.push_back(side(inBase, duration(k.baseMeanNs)));
            row.push_back(side(inRun, duration(k.candidateMeanNs)));
            row.push_back(
                side(inBase && inRun, change(k.baseMeanNs, k.candidateMeanNs, k.ciLow, k.ciHigh)));
            row.push_back(k.presence == KernelDelta::Presence::Both ? verdict(k.perLaunchVerdict)
                                                                    : text("—"));
            t.rows.push_back(std::move(row));
        }
    }
    return t;
}

}  // namespace ws::ui
