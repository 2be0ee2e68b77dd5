#include "charts/occupancy_chart.h"

#include <algorithm>
#include <cmath>

#include "charts/chart_style.h"

namespace ws::ui {

namespace {
constexpr int kKernels = 6;            // rows
constexpr int kCurvesMinHeight = 560;  // below this the what-if curves are left out

QString kib(int bytes) {
    return bytes == 0 || bytes % 1024 ? QStringLiteral("%1 B").arg(bytes)
                                      : QStringLiteral("%1 KiB").arg(bytes / 1024);
}
}  // namespace

OccupancyChart::OccupancyChart(QWidget* parent) : FittedChart(parent) {
    plotLayout()->insertRow(0);
    note_ = new QCPTextElement(this, QString());
    plotLayout()->addElement(0, 0, note_);
    xAxis->setLabel(tr("theoretical occupancy (% of the SM's warps)"));
    xAxis->setRange(0, 100);
    legend->setVisible(true);
    legend->setIconSize(14, 9);
    placeLegendBelow(this, 2);
    curveRow_ = new QCPLayoutGrid;
    plotLayout()->addElement(3, 0, curveRow_);
    plotLayout()->setRowStretchFactors({0.001, 3.0, 0.001, 1.3});
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
    setToolTip(tr("Click a bar for its what-if curves (shown when the chart is tall enough)"));
    new BeforeDraw(this, [this] { placeLabels(); });
    connect(this, &QCustomPlot::plottableClick, this,
            [this](QCPAbstractPlottable* plottable, int dataIndex, QMouseEvent*) {
                auto* bars = qobject_cast<QCPBars*>(plottable);
                if (!bars || bars->keyAxis() != yAxis || !bars->property("wsRun").isValid()) return;
                std::size_t run = bars->property("wsRun").toULongLong();
                int y = int(std::lround(bars->data()->at(dataIndex)->key));
                auto it = barKernel_.find({int(kernels_.size()) - 1 - y, run});
                if (it != barKernel_.end() && selectKernel(run, it->second)) replot();
            });
}

bool OccupancyChart::selectKernel(std::size_t run, std::size_t kernel) {
    if (run >= runs_.size() || kernel >= runs_[run].occupancy.size()) return false;
    selected_ = &runs_[run].occupancy[kernel];
    drawCurves();
    setNote(note_, noteText());
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
        g->removeFromLegend();
        double xmax = 1;
        for (const auto& p : curves[i]) {
            double x = i == 2 ? p.x / 1024.0 : p.x;
            g->addData(x, 100 * p.occupancy);
            xmax = std::max(xmax, x);
        }
        // The launch as recorded: a dot on its curve.
        auto* dot = addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        dot->removeFromLegend();
        dot->setLineStyle(QCPGraph::lsNone);
        dot->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(213, 94, 0), 8));
        dot->addData(now[i], 100 * k.occupancy.occupancy);
        rect->axis(QCPAxis::atBottom)->setRange(0, xmax * 1.02);
    }
}

QString OccupancyChart::noteText() const {
    if (!bars_) return tr("Occupancy: the selected runs have no kernels on a recorded device");
    QString text = tr("Occupancy of the top kernels %1 (CUDA occupancy calculator rules), a bar "
                      "per run; achieved (dark, inside) where counters were recorded")
                       .arg(windowPhrase(runs_));
    if (curvesShown_ && selected_)
        text += tr(" — what-if curves below: %1").arg(QString::fromStdString(selected_->name));
    return text;
}

void OccupancyChart::showCurves(bool on) {
    if (on == curvesShown_) return;
    curvesShown_ = on;
    if (on) {
        plotLayout()->addElement(3, 0, curveRow_);
        curveRow_->setVisible(true);
        plotLayout()->setRowStretchFactors({0.001, 3.0, 0.001, 1.3});
        styleAxes(this);
    } else {
        curveRow_->setVisible(false);
        plotLayout()->take(curveRow_);
        plotLayout()->simplify();
        plotLayout()->setRowStretchFactors({0.001, 3.0, 0.001});
    }
    setNote(note_, noteText());
}

void OccupancyChart::fitTo(QSize size) {
    showCurves(size.height() >= kCurvesMinHeight);
    FittedChart::fitTo(size);
    setKernelTicks(std::clamp(int(size.width() * 0.3), 110, 360));
}

void OccupancyChart::setKernelTicks(int pixels) {
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    const int rows = int(kernels_.size());
    for (int r = 0; r < rows; ++r)
        ticker->addTick(rows - 1 - r, elideMiddle(kernels_[r], yAxis->tickLabelFont(), pixels));
    setCategoryTicks(yAxis, ticker);
}

// Each label takes the longest wording that fits right of its bar (or
// inside it), in the bar's own height; none when nothing fits.
void OccupancyChart::placeLabels() {
    const QRect area = axisRect()->rect();
    const ChartColors colors = chartColors();
    bool barsFit = !labels_.empty();
    for (const auto& l : labels_) {
        double slotPx = std::abs(yAxis->coordToPixel(l.key + l.slot) - yAxis->coordToPixel(l.key));
        barsFit = barsFit && slotPx >= QFontMetrics(l.item->font()).height();
    }
    for (auto* list : {&labels_, &rowLabels_}) {
        bool shown = (list == &labels_) == barsFit;
        for (auto& l : *list) {
            l.item->setVisible(false);
            if (!shown) continue;
            QFontMetrics fm(l.item->font());
            double end = xAxis->coordToPixel(l.pct);
            double right = area.right() - end - 8, inside = l.inside ? end - area.left() - 8 : 0;
            for (const auto& text : l.variants) {
                int w = fm.horizontalAdvance(text);
                if (w <= right) {
                    l.item->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
                    l.item->setPadding(QMargins(3, 0, 0, 0));
                    l.item->setColor(colors.text);
                } else if (w <= inside) {
                    l.item->setPositionAlignment(Qt::AlignRight | Qt::AlignVCenter);
                    l.item->setPadding(QMargins(0, 0, 4, 0));
                    l.item->setColor(l.bar.lightness() > 140 ? Qt::black : Qt::white);
                } else {
                    continue;
                }
                l.item->setText(text);
                l.item->setVisible(true);
                break;
            }
        }
    }
}

void OccupancyChart::setRuns(const std::vector<RunAnalysis>& runs) {
    styleAxes(this);
    clearPlottables();
    clearItems();
    labels_.clear();
    rowLabels_.clear();
    barKernel_.clear();
    kernels_.clear();
    bars_ = 0;
    runs_ = runs;
    selected_ = nullptr;
    // The kernels that take the most time in any run, most first.
    std::map<std::string, double> share;
    for (const auto& r : runs)
        for (const auto& o : r.occupancy)
            share[o.name] = std::max(share[o.name], o.timePercent);
    std::vector<std::pair<double, std::string>> order;
    for (const auto& [name, pct] : share)
        order.push_back({-pct, name});
    std::sort(order.begin(), order.end());
    for (std::size_t i = 0; i < order.size() && i < kKernels; ++i)
        kernels_ << QString::fromStdString(order[i].second);
    const int rows = int(kernels_.size());
    const double slot = 0.8 / double(std::max<std::size_t>(runs.size(), 1));
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto& run = runs[i];
        QColor color = runColor(int(i));
        auto* bars = new QCPBars(yAxis, xAxis);
        bars->setProperty("wsRun", qulonglong(i));
        bars->setWidth(slot * 0.9);
        bars->setPen(Qt::NoPen);
        bars->setBrush(color);
        bars->setName(elideMiddle(
            QStringLiteral("#%1 %2").arg(run.run.id).arg(QString::fromStdString(run.run.label)),
            legend->font(), 300));
        QCPBars* achieved = nullptr;
        for (int r = 0; r < rows; ++r) {
            auto it = std::find_if(run.occupancy.begin(), run.occupancy.end(), [&](const auto& o) {
                return kernels_[r].toStdString() == o.name;
            });
            if (it == run.occupancy.end()) continue;
            const auto& o = *it;
            double key = rows - 1 - r + 0.4 - slot * (double(i) + 0.5);
            double pct = 100 * o.occupancy.occupancy;
            bars->addData(key, pct);
            barKernel_[{r, i}] = std::size_t(it - run.occupancy.begin());
            ++bars_;
            if (o.achieved) {
                if (!achieved) {
                    achieved = new QCPBars(yAxis, xAxis);
                    achieved->setWidth(slot * 0.4);
                    achieved->setPen(Qt::NoPen);
                    achieved->setBrush(color.darker(190));
                    achieved->removeFromLegend();
                }
                achieved->addData(key, 100 * *o.achieved);
            }
            auto* label = new QCPItemText(this);
            label->position->setCoords(pct, key);
            label->setFont(QFont(font().family(), 8));
            label->setClipToAxisRect(true);
            QStringList variants;
            if (o.occupancy.problem.empty()) {
                QString limiter = QString::fromLatin1(describe(o.occupancy.limiter));
                QString value = o.achieved ? tr("achieved %1% of %2%")
                                                 .arg(100 * *o.achieved, 0, 'f', 0)
                                                 .arg(pct, 0, 'f', 0)
                                           : tr("%1%").arg(pct, 0, 'f', 0);
                variants << tr("%1 · limited by %2 · %3 threads, %4 regs, %5 smem · %6% of time")
                                .arg(value, limiter)
                                .arg(o.launch.threadsPerBlock)
                                .arg(o.launch.registersPerThread)
                                .arg(kib(o.launch.sharedBytesPerBlock))
                                .arg(o.timePercent, 0, 'f', 1)
                         << tr("%1 · limited by %2").arg(value, limiter)
                         << tr("%1 %2").arg(value, limiter) << value;
            } else {
                variants << QString::fromStdString(o.occupancy.problem) << tr("?");
            }
            labels_.push_back({label, pct, key, slot, color, variants, true});
        }
    }
    // Per kernel: every run's percentage and the limiters.
    for (int r = 0; r < rows; ++r) {
        QStringList pcts, limiters;
        double most = 0;
        for (const auto& run : runs) {
            for (const auto& o : run.occupancy) {
                if (kernels_[r].toStdString() != o.name || !o.occupancy.problem.empty()) continue;
                double pct = 100 * o.occupancy.occupancy;
                pcts << QStringLiteral("%1%").arg(pct, 0, 'f', 0);
                QString limiter = QString::fromLatin1(describe(o.occupancy.limiter));
                if (!limiters.contains(limiter)) limiters << limiter;
                most = std::max(most, pct);
            }
        }
        if (pcts.isEmpty()) continue;
        auto* label = new QCPItemText(this);
        label->position->setCoords(most, rows - 1 - r);
        label->setFont(QFont(font().family(), 8));
        QString limited = limiters.join(QStringLiteral(" / "));
        QStringList variants = {
            tr("%1 · limited by %2").arg(pcts.join(QStringLiteral(" · ")), limited),
            tr("limited by %1").arg(limited), limited};
        rowLabels_.push_back({label, most, double(rows - 1 - r), 0.8, QColor(), variants, false});
    }
    if (!runLegendShown()) legend->clearItems();
    legend->setVisible(bars_ > 0 && legend->itemCount() > 0);
    setKernelTicks(std::clamp(int(width() * 0.3), 110, 360));
    yAxis->setRange(-0.5, std::max(rows, 1) - 0.5);
    // The first run's top kernel until the user clicks another bar.
    for (std::size_t r = 0; r < runs_.size() && !selected_; ++r)
        if (!runs_[r].occupancy.empty()) selectKernel(r, 0);
    setNote(note_, noteText());
    FittedChart::fitTo(size());
    replot();
}

}  // namespace ws::ui
