#include "charts/comparison_chart.h"

#include <cmath>

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

ComparisonChart::ComparisonChart(QWidget* parent) : FittedChart(parent) {
    plotLayout()->insertRow(0);
    note_ = new QCPTextElement(this, QString());
    plotLayout()->addElement(0, 0, note_);
    xAxis->setLabel(tr("change against the baseline (%), 95% interval; left is faster"));
    legend->setFont(QFont(font().family(), 8));
    placeLegendBelow(this, 2);
    styleAxes(this);
}

void ComparisonChart::setRuns(const std::vector<RunAnalysis>& runs) {
    styleAxes(this);
    const ChartColors colors = chartColors();
    clearPlottables();
    clearItems();
    bars_ = 0;
    std::vector<std::size_t> candidates;
    for (std::size_t i = 1; i < runs.size(); ++i)
        if (runs[i].againstFirst) candidates.push_back(i);
    // A row per metric (the first at the top); within it a bar per candidate,
    // filled with the run's colour, its label coloured by the verdict.
    const int metrics = int(std::size(kMetrics));
    const double slot = 0.8 / double(std::max<std::size_t>(candidates.size(), 1));
    slot_ = slot;
    labels_.clear();
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    double extent = 5;
    for (int r = 0; r < metrics; ++r)
        ticker->addTick(metrics - 1 - r, QString::fromLatin1(kMetrics[r]));
    for (std::size_t c = 0; c < candidates.size(); ++c) {
        const auto& run = runs[candidates[c]];
        QColor color = runColor(int(candidates[c]));
        auto* bar = new QCPBars(yAxis, xAxis);
        bar->setWidth(slot * 0.9);
        bar->setPen(Qt::NoPen);
        bar->setBrush(color);
        bar->setName(elideMiddle(
            QStringLiteral("#%1 %2").arg(run.run.id).arg(QString::fromStdString(run.run.label)),
            legend->font(), 300));
        auto* err = new QCPErrorBars(yAxis, xAxis);
        err->setDataPlottable(bar);
        err->setPen(QPen(colors.ink, 1.2));
        err->removeFromLegend();
        bool anyInterval = false;
        // Bottom row first: error bars pair with the bars' data in key order.
        for (int r = metrics; r-- > 0;) {
            const MetricDelta* d = nullptr;
            for (const auto& m : run.againstFirst->latency)
                if (m.metric == kMetrics[r]) d = &m;
            if (!d || d->base <= 0) continue;
            double key = metrics - 1 - r + 0.4 - slot * (double(c) + 0.5);
            double pct = 100 * d->delta / d->base;
            bar->addData(key, pct);
            extent = std::max(extent, std::abs(pct));
            if (d->ciLow) {
                double lo = 100 * *d->ciLow / d->base, hi = 100 * *d->ciHigh / d->base;
                err->addData(pct - lo, hi - pct);
                extent = std::max({extent, std::abs(lo), std::abs(hi)});
                anyInterval = true;
            } else {
                err->addData(std::nan(""), std::nan(""));  // no interval: nothing drawn
            }
            ++bars_;
            auto* label = new QCPItemText(this);
            labels_.push_back(label);
            label->position->setCoords(0, key);
            label->setPositionAlignment((pct <= 0 ? Qt::AlignLeft : Qt::AlignRight) |
                                        Qt::AlignVCenter);
            label->setPadding(QMargins(4, 0, 4, 0));
            label->setFont(QFont(font().family(), 7));
            label->setColor(d->verdict == Verdict::Faster || d->verdict == Verdict::Slower
                                ? verdictColor(d->verdict)
                                : colors.muted);
            label->setText(QStringLiteral("%1%2%  %3")
                               .arg(pct > 0 ? QStringLiteral("+") : QString())
                               .arg(pct, 0, 'f', 1)
                               .arg(QString::fromLatin1(toString(d->verdict))));
        }
        if (!anyInterval) removePlottable(err);
    }
    if (!runLegendShown()) legend->clearItems();
    legend->setVisible(legend->itemCount() > 0);
    setCategoryTicks(yAxis, ticker);
    yAxis->setRange(-0.6, metrics - 0.4);
    xAxis->setRange(-extent * 1.25, extent * 1.25);
    setNote(
        note_,
        bars_
            ? tr("Against #%1 %2 (the first selected run); 95% bootstrap intervals; label colour: "
                 "verdict")
                  .arg(runs.front().run.id)
                  .arg(QString::fromStdString(runs.front().run.label))
            : tr("Comparison: select a baseline first, then runs with tokens to compare"));
    fitTo(size());
    replot();
}

void ComparisonChart::fitTo(QSize size) {
    FittedChart::fitTo(size);
    // A label needs its bar's height; below that they would overlap.
    layOutAt(size);
    double rowPixels = axisRect()->height() / double(std::size(kMetrics) + 0.2);
    int text = labels_.empty() ? 0 : QFontMetrics(labels_.front()->font()).height();
    labelsShown_ = rowPixels * slot_ >= text;
    for (auto* label : labels_)
        label->setVisible(labelsShown_);
}

}  // namespace ws::ui
