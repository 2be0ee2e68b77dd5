#include "charts/comparison_chart.h"

#include "charts/chart_style.h"

namespace ws::ui {

namespace {

QColor verdictColor(Verdict v) {
    switch (v) {
        case Verdict::Faster:
            return QColor(0x2e, 0x8b, 0x57);
        case Verdict::Slower:
            return QColor(0xc0, 0x39, 0x2b);
        default:
            return QColor(0x9a, 0x9a, 0x9a);
    }
}

const char* kMetrics[] = {"mean_ttft_ms", "p99_ttft_ms", "mean_tpot_ms",
                          "p99_tpot_ms",  "mean_itl_ms", "mean_e2el_ms"};

}  // namespace

ComparisonChart::ComparisonChart(QWidget* parent) : QCustomPlot(parent) {
    plotLayout()->insertRow(0);
    note_ = new QCPTextElement(this, QString());
    plotLayout()->addElement(0, 0, note_);
    xAxis->setLabel(tr("change against the baseline (%), 95% interval; left is faster"));
    styleAxes(this);
}

void ComparisonChart::setRuns(const std::vector<RunAnalysis>& runs) {
    styleAxes(this);
    const ChartColors colors = chartColors();
    clearPlottables();
    clearItems();
    bars_ = 0;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    double row = 0, extent = 5;
    for (std::size_t i = runs.size(); i-- > 1;) {
        const auto& run = runs[i];
        if (!run.againstFirst) continue;
        for (const char* metric : kMetrics) {
            const MetricDelta* d = nullptr;
            for (const auto& m : run.againstFirst->latency)
                if (m.metric == metric) d = &m;
            if (!d || d->base <= 0) continue;
            double pct = 100 * d->delta / d->base;
            auto* bar = new QCPBars(yAxis, xAxis);
            bar->setWidth(0.7);
            bar->setPen(QPen(runColor(int(i)), 2));
            bar->setBrush(verdictColor(d->verdict));
            bar->addData(row, pct);
            bar->removeFromLegend();
            extent = std::max(extent, std::abs(pct));
            if (d->ciLow) {
                auto* err = new QCPErrorBars(yAxis, xAxis);
                err->setDataPlottable(bar);
                double lo = 100 * *d->ciLow / d->base, hi = 100 * *d->ciHigh / d->base;
                err->addData(pct - lo, hi - pct);
                err->setPen(QPen(colors.ink, 1.2));
                err->removeFromLegend();
                extent = std::max({extent, std::abs(lo), std::abs(hi)});
            }
            auto* label = new QCPItemText(this);
            label->position->setCoords(0, row);
            label->setPositionAlignment((pct <= 0 ? Qt::AlignLeft : Qt::AlignRight) |
                                        Qt::AlignVCenter);
            label->setPadding(QMargins(4, 0, 4, 0));
            label->setFont(QFont(font().family(), 8));
            label->setColor(colors.text);
            label->setText(QStringLiteral("%1%2%  %3")
                               .arg(pct > 0 ? QStringLiteral("+") : QString())
                               .arg(pct, 0, 'f', 1)
                               .arg(QString::fromLatin1(toString(d->verdict))));
            ticker->addTick(
                row, QStringLiteral("#%1 %2").arg(run.run.id).arg(QString::fromLatin1(metric)));
            row += 1;
            ++bars_;
        }
        row += 1;
    }
    yAxis->setTicker(ticker);
    yAxis->setRange(-1, std::max(row, 1.0));
    xAxis->setRange(-extent * 1.25, extent * 1.25);
    note_->setText(
        bars_ ? tr("Against #%1 %2 (the first selected run)")
                    .arg(runs.front().run.id)
                    .arg(QString::fromStdString(runs.front().run.label))
              : tr("Comparison: select a baseline first, then runs with tokens to compare"));
    replot();
}

}  // namespace ws::ui
