#include "viewmodels/run_details_html.h"

#include <QColor>
#include <QLocale>
#include <map>

#include "analysis/capture_cost.h"
#include "analysis/client_measurement.h"
#include "analysis/kernel_occupancy.h"
#include "analysis/kernel_summary.h"
#include "model/counter_metrics.h"
#include "model/gpu_metrics.h"
#include "util/format.h"
#include "viewmodels/kernel_stalls_html.h"
#include "viewmodels/run_list_model.h"

namespace ws::ui {

namespace {

QString esc(const std::string& s) {
    return QString::fromStdString(s).toHtmlEscaped();
}
// A run recorded on a GPU server through `record --host`: the machine's
// name, and how it is reached and which run it is there.
QString hostText(const RunInfo& r, const std::map<std::string, std::string>& properties) {
    auto host = properties.find("remote.host");
    if (host == properties.end()) return esc(r.host);
    auto run = properties.find("remote.run");
    return QStringLiteral("%1 (recorded through ssh to <b>%2</b>%3)")
        .arg(esc(r.host), esc(host->second),
             run == properties.end() ? QString()
                                     : QStringLiteral(", run %1 there").arg(esc(run->second)));
}

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

// A TTFT that timed module loading or JIT is a start-up figure: said in red.
QString coldStartText(const ColdStartCheck& c) {
    if (!c.checked) return QStringLiteral("not checked: %1").arg(esc(c.why));
    if (c.hits.empty()) return QStringLiteral("none in %1 requests").arg(c.requests);
    std::int64_t total = 0;
    for (const auto& h : c.hits)
        total += h.coldNs;
    return QStringLiteral(
               "<b style='color:#d32f2f'>%1 of %2 requests</b>, %3 in all (%4): "
               "their TTFT includes start-up")
        .arg(c.hits.size())
        .arg(c.requests)
        .arg(q(formatDuration(total)), esc(c.hits.front().kinds));
}

class Table {
  public:
    explicit Table(const QString& title) {
        html_ += QStringLiteral("<h3>%1</h3><table cellspacing='0' cellpadding='2'>").arg(title);
    }
    Table& row(const QString& key, const QString& value) {
        if (!value.isEmpty())
            html_ += QStringLiteral(
                         "<tr><td style='color:palette(mid);padding-right:14px'>%1</td>"
                         "<td>%2</td></tr>")
                         .arg(key, value);
        return *this;
    }
    QString html() const { return html_ + QStringLiteral("</table>"); }

  private:
    QString html_;
};

QString count(std::int64_t n) {
    return QLocale().toString(static_cast<qlonglong>(n));
}

// Nsight Compute's launch statistics beside the limiter: the grid in waves
// of resident blocks, and how long its last, partial wave leaves SM slots
// idle. Empty (no row) without the device's SM count or a launch that runs.
QString wavesText(const KernelRecord& k, const std::optional<DeviceInfo>& device,
                  const Occupancy& o) {
    bool gridKnown = k.gridX > 0 && k.gridY > 0 && k.gridZ > 0;
    auto w = launchWaves(gridKnown ? std::int64_t(k.gridX) * k.gridY * k.gridZ : 0,
                         o.activeBlocksPerSm, device ? device->smCount : 0);
    if (!w) return {};
    QString waves = QStringLiteral("%1 (%2 blocks, %3 a wave on %4 SMs)")
                        .arg(w->wavesPerSm, 0, 'f', 2)
                        .arg(count(w->gridBlocks), count(w->blocksPerWave))
                        .arg(device->smCount);
    if (!w->hasTail()) return waves + QStringLiteral(", no partial wave");
    if (w->fullWaves == 0)
        return waves + QStringLiteral("; one partial wave, %1% full, for all of the kernel's time")
                           .arg(w->partialWaveFill * 100, 0, 'f', 1);
    return waves + QStringLiteral(
                       "; tail: a last wave of %1 blocks, %2% full, up to %3% of the "
                       "kernel's time")
                       .arg(count(w->partialWaveBlocks))
                       .arg(w->partialWaveFill * 100, 0, 'f', 1)
                       .arg(w->tailDurationShare * 100, 0, 'f', 1);
}

}  // namespace

QString runDetailsHtml(const RunDetails& d) {
    const RunInfo& r = d.run;
    QString status =
        QStringLiteral("<b style='color:%1'>%2</b>")
            .arg(statusColor(r.status).name(), QString::fromLatin1(toString(r.status)));
    if (r.exitCode) status += QStringLiteral(" — exit code %1").arg(*r.exitCode);
    if (r.signal) status += QStringLiteral(" — signal %1").arg(*r.signal);

    QString html = QStringLiteral("<h2>Run %1%2</h2>")
                       .arg(r.id)
                       .arg(r.label.empty() ? QString() : QStringLiteral(": ") + esc(r.label));
    if (r.droppedRecords > 0)
        html += QStringLiteral(
                    "<p style='color:#d32f2f'><b>%1 records were dropped by CUPTI</b>: "
                    "the timeline of this run is incomplete.</p>")
                    .arg(count(r.droppedRecords));
    if (auto cost = captureCostLine(d.properties))
        html += QStringLiteral("<p>%1.</p>").arg(QString::fromStdString(*cost).toHtmlEscaped());
    if (auto range = captureRangeLine(d.properties, r.durationNs()))
        html += QStringLiteral("<p>Capture range: %1.</p>")
                    .arg(QString::fromStdString(*range).toHtmlEscaped());
    if (auto client = clientMeasurementLine(d.properties))
        html += QStringLiteral("<p>%1.</p>").arg(QString::fromStdString(*client).toHtmlEscaped());

    Table run(QStringLiteral("Run"));
    run.row(QStringLiteral("Status"), status)
        .row(QStringLiteral("Workload"),
             r.workload.empty() ? QString() : esc(r.workload) + " (" + esc(r.workloadKind) + ")")
        .row(QStringLiteral("Variant"), esc(r.variant))
        .row(QStringLiteral("Tags"), esc(r.tags))
        .row(QStringLiteral("Started"), q(formatTimestamp(r.startedAtNs)))
        .row(QStringLiteral("Duration"),
             r.endedAtNs ? q(formatDuration(r.durationNs())) : QStringLiteral("still running"))
        .row(QStringLiteral("Command"), QStringLiteral("<code>%1</code>").arg(esc(r.command)))
        .row(QStringLiteral("Host"), hostText(r, d.properties))
        .row(QStringLiteral("Recorded by"), esc("Warpscope " + r.warpscopeVersion));
    html += run.html();

    if (d.device) {
        const DeviceInfo& v = *d.device;
        Table dev(QStringLiteral("Device"));
        dev.row(QStringLiteral("GPU"), esc(v.name))
            .row(QStringLiteral("Compute capability"),
                 QStringLiteral("%1.%2").arg(v.ccMajor).arg(v.ccMinor))
            .row(QStringLiteral("SMs"), QString::number(v.smCount))
            .row(
                QStringLiteral("Memory"),
                q(formatBytes(v.memoryBytes)) +
                    (v.memoryBusWidthBits ? QStringLiteral(", %1-bit bus").arg(v.memoryBusWidthBits)
                                          : QString()))
            .row(QStringLiteral("L2 cache"), v.l2Bytes ? q(formatBytes(v.l2Bytes)) : QString())
            .row(QStringLiteral("Clocks"), v.smClockKhz ? QStringLiteral("SM %1 MHz, memory %2 MHz")
                                                              .arg(v.smClockKhz / 1000)
                                                              .arg(v.memoryClockKhz / 1000)
                                                        : QString())
            .row(QStringLiteral("Driver / CUDA"), esc(v.driverVersion) + " / " + esc(v.cudaVersion))
            .row(QStringLiteral("Per SM"),
                 QStringLiteral("%1 registers, %2 shared memory, %3 warps, %4 blocks")
                     .arg(v.regsPerSm)
                     .arg(q(formatBytes(v.smemPerSm)))
                     .arg(v.maxWarpsPerSm)
                     .arg(v.maxBlocksPerSm))
            .row(QStringLiteral("UUID"), esc(v.uuid));
        html += dev.html();
    }

    const RunAggregates& a = d.aggregates;
    Table rec(QStringLiteral("Recorded"));
    rec.row(QStringLiteral("Kernels"), QStringLiteral("%1 on %2 streams, %3 GPU time")
                                           .arg(count(a.kernelCount))
                                           .arg(a.streamCount)
                                           .arg(q(formatDuration(a.kernelTimeNs))))
        .row(QStringLiteral("Memory copies"),
             QStringLiteral("%1, %2").arg(count(a.memcpyCount), q(formatBytes(a.memcpyBytes))))
        .row(QStringLiteral("Memsets"), count(a.memsetCount))
        .row(QStringLiteral("API calls"), count(a.apiCallCount))
        .row(QStringLiteral("NVTX ranges"), count(a.rangeCount))
        .row(QStringLiteral("Requests / tokens"),
             QStringLiteral("%1 / %2").arg(count(a.requestCount), count(a.tokenCount)))
        .row(QStringLiteral("Cold starts in TTFT"), coldStartText(d.coldStart))
        .row(QStringLiteral("Device samples"), count(a.sampleCount))
        .row(QStringLiteral("GPU time span"),
             a.firstNs ? q(formatDuration(*a.lastNs - *a.firstNs)) : QString());
    html += rec.html();

    if (!d.quality.empty()) {
        Table qt(QStringLiteral("Quality checks"));
        for (const auto& c : d.quality)
            qt.row(
                esc(c.check),
                QStringLiteral("<b style='color:%1'>%2</b> vs %3: token agreement %4%, max logit "
                               "error %5 (tolerance %6)")
                    .arg(c.passed ? statusColor(RunStatus::Ok).name()
                                  : statusColor(RunStatus::Failed).name(),
                         c.passed ? QStringLiteral("pass") : QStringLiteral("FAIL"),
                         esc(c.referenceVariant))
                    .arg(c.tokenAgreement * 100, 0, 'f', 1)
                    .arg(c.maxLogitError, 0, 'g', 3)
                    .arg(c.tolerance, 0, 'g', 3));
        html += qt.html();
    }
    if (!d.properties.empty()) {
        Table props(QStringLiteral("Properties"));
        for (const auto& [k, v] : d.properties)
            props.row(esc(k), esc(v));
        html += props.html();
    }
    return html;
}

QString kernelDetailsHtml(const KernelDetails& d) {
    const KernelRecord& k = d.kernel;
    QString demangled = QString::fromStdString(demangle(k.name));
    QString html =
        QStringLiteral("<h2>%1</h2><p><code>%2</code></p>")
            .arg(QString::fromStdString(shortKernelName(demangle(k.name))).toHtmlEscaped(),
                 demangled.toHtmlEscaped());
    Table launch(QStringLiteral("Launch"));
    launch.row(QStringLiteral("Duration"), q(formatDuration(k.durationNs())))
        .row(QStringLiteral("Grid"),
             QStringLiteral("%1 × %2 × %3").arg(k.gridX).arg(k.gridY).arg(k.gridZ))
        .row(QStringLiteral("Block"), QStringLiteral("%1 × %2 × %3 (%4 threads)")
                                          .arg(k.blockX)
                                          .arg(k.blockY)
                                          .arg(k.blockZ)
                                          .arg(k.threadsPerBlock()))
        .row(QStringLiteral("Cluster"),
             k.clusterX
                 ? QStringLiteral("%1 × %2 × %3").arg(k.clusterX).arg(k.clusterY).arg(k.clusterZ)
                 : QString())
        .row(QStringLiteral("Registers"), QStringLiteral("%1 per thread").arg(k.registersPerThread))
        .row(QStringLiteral("Shared memory"),
             QStringLiteral("%1 static + %2 dynamic")
                 .arg(q(formatBytes(k.staticSharedBytes)), q(formatBytes(k.dynamicSharedBytes))))
        .row(QStringLiteral("Local memory"),
             k.localBytesPerThread ? QStringLiteral("%1 per thread").arg(k.localBytesPerThread)
                                   : QString())
        .row(QStringLiteral("Stream"), QString::number(k.streamId))
        .row(QStringLiteral("Correlation id"), QString::number(k.correlationId))
        .row(QStringLiteral("CUDA graph"),
             k.graphId ? QStringLiteral("graph %1, node %2").arg(k.graphId).arg(k.graphNodeId)
                       : QString());
    if (d.launch)
        launch.row(QStringLiteral("Launched by"),
                   QStringLiteral("%1 on thread %2, %3 before the kernel started")
                       .arg(QString::fromStdString(d.launch->name).toHtmlEscaped())
                       .arg(d.launch->threadId)
                       .arg(q(formatDuration(k.startNs - d.launch->startNs))));
    if (d.captured)
        launch.row(QStringLiteral("Captured in"),
                   QStringLiteral("%1 (thread %2, when the graph was captured)")
                       .arg(d.captured->rangePath.empty()
                                ? QStringLiteral("no NVTX range")
                                : QString::fromStdString(d.captured->rangePath).toHtmlEscaped())
                       .arg(d.captured->threadId));
    html += launch.html();
    if (d.occupancy) {
        const Occupancy& o = *d.occupancy;
        Table occ(QStringLiteral("Theoretical occupancy"));
        occ.row(QStringLiteral("Occupancy"),
                QStringLiteral("<b>%1%</b> (%2 of %3 warps, %4 blocks per SM)")
                    .arg(o.occupancy * 100, 0, 'f', 1)
                    .arg(o.activeWarpsPerSm)
                    .arg(o.maxWarpsPerSm)
                    .arg(o.activeBlocksPerSm))
            .row(QStringLiteral("Limited by"), QString::fromLatin1(describe(o.limiter)))
            .row(QStringLiteral("Waves per SM"), wavesText(d.kernel, d.device, o))
            .row(QStringLiteral("Block limits"),
                 QStringLiteral("warps %1, registers %2, shared memory %3, blocks %4")
                     .arg(o.blockLimitWarps)
                     .arg(o.blockLimitRegisters > 100000 ? QStringLiteral("–")
                                                         : QString::number(o.blockLimitRegisters))
                     .arg(o.blockLimitSharedMemory > 100000
                              ? QStringLiteral("–")
                              : QString::number(o.blockLimitSharedMemory))
                     .arg(o.blockLimitBlocks));
        html += occ.html();
    }
    if (!d.gpuMetrics.empty()) {
        Table t(QStringLiteral("GPU metrics (sampled)"));
        auto inUnits = [](const GpuMetricStats& s, double v) {
            const auto name = gpu_metrics::describe(s.metric);
            return QStringLiteral("%1 %2")
                .arg(v * name.scale, 0, 'f', 1)
                .arg(QString::fromUtf8(name.unit.data(), qsizetype(name.unit.size())));
        };
        for (const auto& s : d.gpuMetrics) {
            const auto name = gpu_metrics::describe(s.metric);
            QString value = inUnits(s, s.mean);
            if (d.gpuMetricsAllLaunches)
                for (const auto& all : d.gpuMetricsAllLaunches->stats)
                    if (all.metric == s.metric)
                        value += QStringLiteral(" · all %1 launches %2")
                                     .arg(d.gpuMetricsAllLaunches->count)
                                     .arg(inUnits(all, all.mean));
            t.row(QString::fromUtf8(name.label.data(), qsizetype(name.label.size())), value);
        }
        html += t.html();
        const double share = d.gpuMetrics.front().spanShare;
        if (share < 0.9)
            html += QStringLiteral(
                        "<p>This launch filled %1% of the samples that overlap it: "
                        "the figures mix in what ran around it.</p>")
                        .arg(100 * share, 0, 'f', 0);
    }
    if (d.stalls)
        html += kernelStallsHtml(*d.stalls, d.stallPeriodLog2, d.stallCost);
    else if (d.pcSampled && d.stallBufferFull)
        html += QStringLiteral(
            "<h3>Where its warps stall (PC sampling)</h3><p>No PC samples landed in this "
            "kernel, possibly because CUPTI's hardware buffer filled during the run and CUPTI "
            "stopped sampling there (record with a larger <code>--pc-sampling-period</code>).</p>");
    else if (d.pcSampled)
        html += QStringLiteral(
            "<h3>Where its warps stall (PC sampling)</h3><p>No PC samples landed in this "
            "kernel: it ran too briefly for the sampling period (record with a smaller "
            "<code>--pc-sampling-period</code>).</p>");
    if (auto c = counters::fromMetrics(d.metrics)) {
        double ns = static_cast<double>(d.kernel.durationNs());
        Table t(QStringLiteral("Hardware counters (kernel replay)"));
        t.row(QStringLiteral("FLOPs"), QStringLiteral("%1 G (FP32 %2 G, FP16 %3 G, tensor %4 G)")
                                           .arg(c->flops() / 1e9, 0, 'f', 3)
                                           .arg(c->fp32Flops / 1e9, 0, 'f', 3)
                                           .arg(c->fp16Flops / 1e9, 0, 'f', 3)
                                           .arg(c->tensorFlops / 1e9, 0, 'f', 3))
            .row(QStringLiteral("DRAM"), QStringLiteral("%1 MB, %2 GB/s")
                                             .arg(c->dramBytes / 1e6, 0, 'f', 2)
                                             .arg(ns > 0 ? c->dramBytes / ns : 0, 0, 'f', 0))
            .row(QStringLiteral("Achieved"),
                 QStringLiteral("%1 TFLOP/s, %2 FLOP/byte")
                     .arg(ns > 0 ? c->flops() / ns * 1e-3 : 0, 0, 'f', 2)
                     .arg(c->dramBytes > 0 ? c->flops() / c->dramBytes : 0, 0, 'f', 1))
            .row(QStringLiteral("Achieved occupancy"),
                 c->achievedOccupancy
                     ? QStringLiteral("%1%").arg(100 * *c->achievedOccupancy, 0, 'f', 1)
                     : QString());
        html += t.html();
    }
    return html;
}

}  // namespace ws::ui
