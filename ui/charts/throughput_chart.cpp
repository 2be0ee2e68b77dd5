#include "charts/throughput_chart.h"

#include <set>

#include "charts/chart_style.h"

namespace ws::ui {

ThroughputChart::ThroughputChart(QWidget* parent) : QCustomPlot(parent) {
    plotLayout()->insertRow(0);
    note_ = new QCPTextElement(this, QString());
    plotLayout()->addElement(0, 0, note_);
    xAxis->setLabel(tr("batch (peak requests in flight)"));
    yAxis->setLabel(tr("output tokens / s"));
    legend->setVisible(true);
    axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignLeft | Qt::AlignTop);
    makeZoomable(axisRect(), Qt::Horizontal | Qt::Vertical);
    styleAxes(this);
}

void ThroughputChart::setRuns(const std::vector<RunAnalysis>& runs) {
    styleAxes(this);
    clearGraphs();
    points_ = 0;
    std::set<int> batches;
    double maxX = 1, maxY = 0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto& l = runs[i].latency;
        if (l.requests.empty() || l.outputThroughput <= 0) continue;
        auto* g = addGraph();
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssDisc, runColor(static_cast<int>(i)), 11));
        g->addData(l.maxConcurrency, l.outputThroughput);
        g->setName(QStringLiteral("#%1 %2")
                       .arg(runs[i].run.id)
                       .arg(QString::fromStdString(runs[i].run.label)));
        batches.insert(l.maxConcurrency);
        maxX = std::max(maxX, static_cast<double>(l.maxConcurrency));
        maxY = std::max(maxY, l.outputThroughput);
        ++points_;
    }
    note_->setText(batches.size() >= 2
                       ? tr("Output throughput by batch")
                       : tr("Select runs of different batch sizes to see how throughput scales"));
    xAxis->setRange(0, maxX * 1.15 + 1);
    yAxis->setRange(0, maxY > 0 ? maxY * 1.15 : 1);
    replot();
}

}  // namespace ws::ui
