#include "charts/latency_chart.h"

#include <algorithm>

#include "charts/chart_style.h"

namespace ws::ui {

namespace {
void addCdf(QCustomPlot* plot, QCPAxisRect* rect, std::vector<double> values, const QColor& color,
            const QString& name, bool inLegend) {
    std::sort(values.begin(), values.end());
    // An empirical CDF as explicit steps: at each value the fraction rises.
    QVector<double> x, y;
    double below = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
        double above = static_cast<double>(i + 1) / static_cast<double>(values.size());
        x << values[i] << values[i];
        y << below << above;
        below = above;
    }
    auto* g = plot->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    g->setData(x, y, true);
    g->setLineStyle(QCPGraph::lsLine);
    g->setPen(QPen(color, 2));
    g->setName(name);
    if (!inLegend) g->removeFromLegend();
}
}  // namespace

LatencyChart::LatencyChart(QWidget* parent) : QCustomPlot(parent) {
    plotLayout()->clear();
    note_ =
        new QCPTextElement(this, tr("Select runs with token timestamps to compare TTFT and TPOT"));
    plotLayout()->addElement(0, 0, note_);
    ttft_ = new QCPAxisRect(this);
    tpot_ = new QCPAxisRect(this);
    plotLayout()->addElement(1, 0, ttft_);
    plotLayout()->addElement(1, 1, tpot_);
    plotLayout()->setRowStretchFactor(0, 0.01);
    ttft_->axis(QCPAxis::atBottom)->setLabel(tr("TTFT (ms)"));
    tpot_->axis(QCPAxis::atBottom)->setLabel(tr("TPOT (ms)"));
    for (auto* r : {ttft_, tpot_}) {
        r->axis(QCPAxis::atLeft)->setLabel(tr("fraction of requests"));
        r->axis(QCPAxis::atLeft)->setRange(0, 1.02);
    }
    legend = new QCPLegend;
    ttft_->insetLayout()->addElement(legend, Qt::AlignRight | Qt::AlignBottom);
    legend->setVisible(true);
    legend->setBrush(QColor(255, 255, 255, 220));
    styleAxes(this);
}

void LatencyChart::setRuns(const std::vector<RunAnalysis>& runs) {
    clearGraphs();
    series_ = 0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto& r = runs[i];
        if (r.latency.ttftMs.empty()) continue;
        QString name =
            QStringLiteral("#%1 %2").arg(r.run.id).arg(QString::fromStdString(r.run.label));
        addCdf(this, ttft_, r.latency.ttftMs, runColor(static_cast<int>(i)), name, true);
        if (!r.latency.tpotMs.empty())
            addCdf(this, tpot_, r.latency.tpotMs, runColor(static_cast<int>(i)), name, false);
        ++series_;
    }
    note_->setText(series_ ? tr("Cumulative distribution per run: left TTFT, right TPOT")
                           : tr("None of the selected runs has token timestamps "
                                "(docs/token-conventions.md)"));
    for (auto* r : {ttft_, tpot_}) {
        bool found = false;
        QCPRange range;
        for (auto* g : r->graphs()) {
            bool ok = false;
            auto gr = g->getKeyRange(ok);
            if (ok)
                range = found ? QCPRange(std::min(range.lower, gr.lower),
                                         std::max(range.upper, gr.upper))
                              : gr;
            found |= ok;
        }
        if (found) {
            double pad = std::max(range.size() * 0.05, 1e-3);
            r->axis(QCPAxis::atBottom)
                ->setRange(std::max(0.0, range.lower - pad), range.upper + pad);
        }
    }
    replot();
}

}  // namespace ws::ui
