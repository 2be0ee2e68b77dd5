#include "charts/token_latency_chart.h"

#include "charts/chart_style.h"

namespace ws::ui {

std::vector<double> meanItlByTokenIndex(const LatencyReport& report) {
    std::vector<double> sum, count;
    for (const auto& r : report.requests) {
        if (r.itlMs.size() > sum.size()) {
            sum.resize(r.itlMs.size());
            count.resize(r.itlMs.size());
        }
        for (std::size_t i = 0; i < r.itlMs.size(); ++i) {
            sum[i] += r.itlMs[i];
            count[i] += 1;
        }
    }
    for (std::size_t i = 0; i < sum.size(); ++i)
        sum[i] /= count[i];
    return sum;
}

TokenLatencyChart::TokenLatencyChart(QWidget* parent) : FittedChart(parent) {
    xAxis->setLabel(tr("output token"));
    yAxis->setLabel(tr("mean inter-token latency (ms)"));
    legend->setVisible(true);
    // Below the axes: inside, it covered the lines' first tokens.
    placeLegendBelow(this, 1);
    plotLayout()->insertRow(0);
    note_ = new QCPTextElement(this, QString());
    plotLayout()->addElement(0, 0, note_);
    plotLayout()->setRowStretchFactor(0, 0.001);
    makeZoomable(axisRect(), Qt::Horizontal | Qt::Vertical);
    styleAxes(this);
}

void TokenLatencyChart::setRuns(const std::vector<RunAnalysis>& runs) {
    styleAxes(this);
    clearGraphs();
    double maxY = 0, maxX = 1;
    int plotted = 0, withoutTokenTimes = 0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (runs[i].latency.requestsWithoutTokenTimes > 0) ++withoutTokenTimes;
        auto itl = meanItlByTokenIndex(runs[i].latency);
        if (itl.empty()) continue;
        ++plotted;
        QVector<double> x, y;
        for (std::size_t t = 0; t < itl.size(); ++t) {
            x << static_cast<double>(t + 1);
            y << itl[t];
            maxY = std::max(maxY, itl[t]);
        }
        maxX = std::max(maxX, static_cast<double>(itl.size()));
        auto* g = addGraph();
        g->setData(x, y, true);
        g->setPen(QPen(runColor(static_cast<int>(i)), 2));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
        g->setName(elideMiddle(QStringLiteral("#%1 %2")
                                   .arg(runs[i].run.id)
                                   .arg(QString::fromStdString(runs[i].run.label)),
                               legend->font(), 300));
    }
    noteText_ = plotted > 0 ? tr("Mean inter-token latency at each output position over a run's "
                                 "requests, one line per run")
                : withoutTokenTimes > 0
                    ? tr("The selected runs keep only each request's first and last token time "
                         "(an import from GuideLLM): no latency by token position")
                    : tr("None of the selected runs has inter-token latencies (runs with token "
                         "timestamps, docs/token-conventions.md)");
    setNote(note_, noteText_);
    xAxis->setRange(0, maxX + 1);
    yAxis->setRange(0, maxY > 0 ? maxY * 1.1 : 1);
    FittedChart::fitTo(size());
    replot();
}

QString TokenLatencyChart::note() const {
    return noteText_;
}

}  // namespace ws::ui
