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
    xAxis->setLabel(tr("occupancy (% of the SM's warps)"));
    xAxis->setRange(0, 175);  // room for the labels right of the bars
    curveRow_ = new QCPLayoutGrid;
    plotLayout()->addElement(2, 0, curveRow_);
    plotLayout()->setRowStretchFactors({0.01, 3.0, 1.3});
    const QString labels[] = {tr("threads per block"), tr("registers per thread"),
                              tr("shared memory per block (KiB)")};
    for (int i = 0; i < 3; ++i) {
        curveRects_[i] = new QCPAxisRect(this);
        curveRow_->addElement(0, i, curveRects_[i]);
        curveRects_[i]->axis(QCPAxis::atBottom)->setLabel(labels[i]);
        curveRects_[i]->axis(QCPAxis::atLeft)->setRange(0, 105);
        curveRects_[i]->axis(QCPAxis::atLeft)->setLabel(i == 0 ? tr("occupancy %") : QString());
    }
    styleAxes(this);
    connect(this, &QCustomPlot::plottableClick, this,
            [this](QCPAbstractPlottable* plottable, int dataIndex, QMouseEvent*) {
                auto* bars = qobject_cast<QCPBars*>(plottable);
                if (!bars || bars->keyAxis() != yAxis) return;
                auto it = rowKernel_.find(static_cast<int>(bars->data()->at(dataIndex)->key));
                if (it != rowKernel_.end() && selectKernel(it->second.first, it->second.second))
                    replot();
            });
}

bool OccupancyChart::selectKernel(std::size_t run, std::size_t kernel) {
    if (run >= runs_.size() || kernel >= runs_[run].occupancy.size()) return false;
    selected_ = &runs_[run].occupancy[kernel];
    drawCurves();
    return true;
}

int OccupancyChart::curvePoints() const {
    int n = 0;
    for (auto* rect : curveRects_)
        for (auto* g : rect->graphs())
            n += g->dataCount();
    return n;
}

void OccupancyChart::drawCurves() {
    for (auto* rect : curveRects_)
        for (auto* g : rect->graphs())
            removeGraph(g);
    if (!selected_ || !selected_->occupancy.problem.empty() ||
        selected_->launch.threadsPerBlock <= 0)
        return;
    const auto& k = *selected_;
    std::vector<CurvePoint> curves[] = {occupancyVsBlockSize(k.sm, k.launch),
                                        occupancyVsRegisters(k.sm, k.launch),
                                        occupancyVsSharedMemory(k.sm, k.launch)};
    const double now[] = {double(k.launch.threadsPerBlock), double(k.launch.registersPerThread),
                          k.launch.sharedBytesPerBlock / 1024.0};
    for (int i = 0; i < 3; ++i) {
        auto* rect = curveRects_[i];
        auto* g = addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        g->setPen(QPen(chartColors().ink, 1.5));
        g->setLineStyle(QCPGraph::lsStepLeft);
        double xmax = 1;
        for (const auto& p : curves[i]) {
            double x = i == 2 ? p.x / 1024.0 : p.x;
            g->addData(x, 100 * p.occupancy);
            xmax = std::max(xmax, x);
        }
        // The launch as recorded: a dot on its curve.
        auto* dot = addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        dot->setLineStyle(QCPGraph::lsNone);
        dot->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(213, 94, 0), 8));
        dot->addData(now[i], 100 * k.occupancy.occupancy);
        rect->axis(QCPAxis::atBottom)->setRange(0, xmax * 1.02);
    }
    curveRects_[1]->axis(QCPAxis::atTop)->setVisible(false);
    note_->setText(
        note_->text().section(QLatin1String(" — what-if"), 0, 0) +
        tr(" — what-if curves below: %1 (click another bar)").arg(QString::fromStdString(k.name)));
}

void OccupancyChart::setRuns(const std::vector<RunAnalysis>& runs) {
    styleAxes(this);
    const ChartColors colors = chartColors();
    clearPlottables();
    clearItems();
    bars_ = 0;
    runs_ = runs;
    rowKernel_.clear();
    selected_ = nullptr;
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
            label->setColor(colors.text);
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
            rowKernel_[row] = {i, std::size_t(k)};
            ++row;
            ++bars_;
        }
        row += 1;  // a gap between runs
    }
    setCategoryTicks(yAxis, ticker);
    yAxis->setRange(-1, std::max(row, 1));
    note_->setText(
        bars_ ? tr("Theoretical occupancy of the top kernels %1 (CUDA occupancy calculator "
                   "rules); achieved (dark) where counters were recorded")
                    .arg(windowPhrase(runs))
              : tr("Occupancy: the selected runs have no kernels on a recorded device"));
    // The first run's top kernel until the user clicks another bar.
    for (std::size_t r = 0; r < runs_.size() && !selected_; ++r)
        if (!runs_[r].occupancy.empty()) selectKernel(r, 0);
    replot();
}

}  // namespace ws::ui
