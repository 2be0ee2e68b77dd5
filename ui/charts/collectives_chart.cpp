#include "charts/collectives_chart.h"

#include <algorithm>
#include <map>

#include "charts/chart_style.h"
#include "util/format.h"

namespace ws::ui {

namespace {
// More points than this are thinned evenly: a scatter of a million marks
// draws slowly and reads no better.
constexpr std::size_t kMaxPoints = 100'000;
}  // namespace

CollectivesChart::CollectivesChart(QWidget* parent) : QCustomPlot(parent) {
    title_ = new QCPTextElement(this, QString());
    plotLayout()->insertRow(0);
    plotLayout()->addElement(0, 0, title_);
    xAxis->setLabel(tr("time into the run (s)"));
    // Skew: the last rank's kernel start minus the first rank's.
    yAxis->setLabel(tr("arrival skew (µs)"));
    legend->setVisible(true);
    // The legend in its own row under the plot, never over the points.
    auto* legendRow = new QCPLayoutGrid;
    plotLayout()->addElement(2, 0, legendRow);
    legendRow->addElement(0, 0, legend);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setWrap(8);
    plotLayout()->setRowStretchFactors({0.01, 1.0, 0.01});
    makeZoomable(axisRect(), Qt::Horizontal | Qt::Vertical);
    redraw();
}

void CollectivesChart::setReport(RunId run, std::shared_ptr<const CollectiveReport> report,
                                 std::int64_t originNs) {
    run_ = run;
    report_ = std::move(report);
    originNs_ = originNs;
    redraw();
}

void CollectivesChart::redraw() {
    clearGraphs();
    styleAxes(this);
    points_ = 0;
    if (!report_ || report_->instances.empty()) {
        title_->setText(tr("No NCCL collectives matched across ranks in the selected run."));
        replot();
        return;
    }
    const auto& r = *report_;
    QString head = tr("Run %1: %2 collectives over %3 ranks")
                       .arg(run_)
                       .arg(r.instances.size())
                       .arg(r.ranks.size());
    // The busiest sized collective's traffic, as nccl-tests would state it.
    for (const auto& k : r.kinds)
        if (k.busBandwidthGBs > 0) {
            head += tr(" · %1: %2 in %3 sized instances, bus bandwidth %4 GB/s")
                        .arg(QString::fromStdString(k.collective),
                             QString::fromStdString(formatBytes(k.bytes)))
                        .arg(k.sizedInstances)
                        .arg(k.busBandwidthGBs, 0, 'f', 1);
            break;
        }
    if (!r.findings.empty()) head += QStringLiteral("\n") + QString::fromStdString(r.findings[0]);
    title_->setText(head);
    std::map<int, QCPGraph*> byRank;
    int colour = 0;
    for (const auto& rank : r.ranks) {
        auto* g = addGraph();
        g->setName(tr("rank %1 came last").arg(rank.rank));
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, runColor(colour++), 5));
        byRank[rank.rank] = g;
    }
    const std::size_t stride = std::max<std::size_t>(1, r.instances.size() / kMaxPoints + 1);
    double maxSkew = 1;
    for (std::size_t i = 0; i < r.instances.size(); i += stride) {
        const auto& inst = r.instances[i];
        auto g = byRank.find(inst.lastRank);
        if (g == byRank.end()) continue;
        const double us = static_cast<double>(inst.skewNs()) / 1e3;
        g->second->addData(static_cast<double>(inst.firstStartNs - originNs_) / 1e9, us);
        maxSkew = std::max(maxSkew, us);
        ++points_;
    }
    // Ranks that never came last add nothing to read in the legend.
    for (auto& [rank, g] : byRank)
        if (g->dataCount() == 0) removeGraph(g);
    rescaleAxes();
    // Room on both sides, so the first and last points are drawn whole.
    const QCPRange x = xAxis->range();
    const double pad = std::max(x.size() * 0.02, 1e-6);
    xAxis->setRange(x.lower - pad, x.upper + pad);
    yAxis->setRange(0, maxSkew * 1.1);
    replot();
}

}  // namespace ws::ui
