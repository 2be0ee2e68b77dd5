#include "charts/occupancy_chart.h"

#include "charts/chart_style.h"

namespace ws::ui {

namespace {
constexpr int kPerRun = 6;
}

OccupancyChart::OccupancyChart(QWidget* parent) : QCustomPlot(parent) {
    plotLayout()->insertRow(0);
    note_ = new QCPTextElement(this, QString());
    plotLayout()->addElement(0, 0, note_);
    xAxis->setLabel(tr("theoretical occupancy (% of the SM's warps)"));
    xAxis->setRange(0, 175);  // room for the labels right of the bars
    styleAxes(this);
}

void OccupancyChart::setRuns(const std::vector<RunAnalysis>& runs) {
    clearPlottables();
    clearItems();
    bars_ = 0;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    int row = 0;
    // Last run at the top, its kernels in time order downwards.
    for (std::size_t i = runs.size(); i-- > 0;) {
        const auto& run = runs[i];
        int count = std::min<int>(kPerRun, int(run.occupancy.size()));
        if (count == 0) continue;
        auto* bars = new QCPBars(yAxis, xAxis);
        bars->setWidth(0.7);
        bars->setPen(Qt::NoPen);
        bars->setBrush(runColor(int(i)));
        bars->setName(
            QStringLiteral("#%1 %2").arg(run.run.id).arg(QString::fromStdString(run.run.label)));
        // Achieved occupancy (counters) as a narrow dark bar inside the theoretical one.
        QCPBars* achieved = nullptr;
        for (int k = count; k-- > 0;) {
            const auto& o = run.occupancy[k];
            double pct = 100 * o.occupancy.occupancy;
            bars->addData(row, pct);
            if (o.achieved) {
                if (!achieved) {
                    achieved = new QCPBars(yAxis, xAxis);
                    achieved->setWidth(0.3);
                    achieved->setPen(Qt::NoPen);
                    achieved->setBrush(runColor(int(i)).darker(190));
                    achieved->setName(tr("#%1 achieved").arg(run.run.id));
                }
                achieved->addData(row, 100 * *o.achieved);
            }
            ticker->addTick(
                row, QStringLiteral("#%1 %2").arg(run.run.id).arg(QString::fromStdString(o.name)));
            auto* label = new QCPItemText(this);
            label->position->setCoords(pct + 1, row);
            label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
            label->setFont(QFont(font().family(), 8));
            QString text =
                o.occupancy.problem.empty()
                    ? tr("%1%  limited by %2 · %3 threads, %4 regs, %5 B smem · %6% of time")
                          .arg(pct, 0, 'f', 0)
                          .arg(QString::fromLatin1(toString(o.occupancy.limiter)))
                          .arg(o.launch.threadsPerBlock)
                          .arg(o.launch.registersPerThread)
                          .arg(o.launch.sharedBytesPerBlock)
                          .arg(o.timePercent, 0, 'f', 1)
                    : QString::fromStdString(o.occupancy.problem);
            if (o.achieved) text = tr("achieved %1% of ").arg(100 * *o.achieved, 0, 'f', 0) + text;
            label->setText(text);
            ++row;
            ++bars_;
        }
        row += 1;  // a gap between runs
    }
    yAxis->setTicker(ticker);
    yAxis->setRange(-1, std::max(row, 1));
    note_->setText(
        bars_ ? tr("Theoretical occupancy of the top kernels (CUDA occupancy calculator rules); "
                   "achieved (dark) where counters were recorded")
              : tr("Occupancy: the selected runs have no kernels on a recorded device"));
    replot();
}

}  // namespace ws::ui
