#include "charts/kernel_chart.h"

#include <algorithm>
#include <map>

#include "charts/chart_style.h"

namespace ws::ui {

KernelChart::KernelChart(QWidget* parent) : QCustomPlot(parent) {
    xAxis->setLabel(tr("GPU time (ms)"));
    legend->setVisible(true);
    // The legend gets a column of its own between the two charts: over the
    // bars it would hide the longest runs.
    axisRect()->insetLayout()->take(legend);
    axisRect()->insetLayout()->simplify();
    makeZoomable(axisRect(), Qt::Horizontal);
    copies_ = new QCPAxisRect(this);
    plotLayout()->addElement(0, 1, legend);
    plotLayout()->addElement(0, 2, copies_);
    plotLayout()->setColumnStretchFactors({2.4, 0.01, 1.2});
    legend->setMaximumSize(QSize(330, QWIDGETSIZE_MAX));
    // Copies range from a few bytes of token ids to GB of weights: log scale.
    auto* gbs = copies_->axis(QCPAxis::atBottom);
    gbs->setLabel(tr("memory copy bandwidth (GB/s)"));
    gbs->setScaleType(QCPAxis::stLogarithmic);
    gbs->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    gbs->setNumberFormat("gb");
    styleAxes(this);
}

void KernelChart::drawCopies(const std::vector<RunAnalysis>& runs) {
    copyBars_ = 0;
    std::vector<MemcpyKind> kinds;  // the kinds any selected run copied
    for (const auto& r : runs)
        for (const auto& m : r.summary.memcpys)
            if (m.totalBytes > 0 && std::find(kinds.begin(), kinds.end(), m.kind) == kinds.end())
                kinds.push_back(m.kind);
    std::sort(kinds.begin(), kinds.end());
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    const double width = 0.8 / std::max<std::size_t>(runs.size(), 1);
    double maxGBs = 0, minGBs = 1e9;
    for (std::size_t k = 0; k < kinds.size(); ++k)
        ticker->addTick(double(k), QString::fromLatin1(toString(kinds[k])));
    for (std::size_t i = 0; i < runs.size(); ++i) {
        auto* bars = new QCPBars(copies_->axis(QCPAxis::atLeft), copies_->axis(QCPAxis::atBottom));
        bars->removeFromLegend();
        bars->setWidth(width);
        bars->setPen(Qt::NoPen);
        bars->setBrush(runColor(int(i)));
        bars->setBaseValue(1e-4);  // a log axis has no zero
        for (const auto& m : runs[i].summary.memcpys) {
            auto at = std::find(kinds.begin(), kinds.end(), m.kind);
            if (at == kinds.end()) continue;
            // Runs side by side within a kind, the first run on top.
            double key = double(at - kinds.begin()) + 0.4 - width * (double(i) + 0.5);
            bars->addData(key, m.gbPerS);
            auto* label = new QCPItemText(this);
            label->setClipAxisRect(copies_);
            label->position->setAxes(copies_->axis(QCPAxis::atBottom),
                                     copies_->axis(QCPAxis::atLeft));
            label->position->setCoords(m.gbPerS, key);
            label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
            label->setPadding(QMargins(3, 0, 0, 0));
            label->setFont(QFont(font().family(), 7));
            label->setColor(chartColors().text);
            double kib = double(m.totalBytes) / 1024;
            label->setText(tr("#%1 %2 GB/s, %3")
                               .arg(runs[i].run.id)
                               .arg(m.gbPerS, 0, 'g', 3)
                               .arg(m.totalBytes < 1024 ? tr("%1 B").arg(m.totalBytes)
                                    : kib < 1024        ? tr("%1 KiB").arg(kib, 0, 'f', 1)
                                                        : tr("%1 MiB").arg(kib / 1024, 0, 'f', 1)));
            maxGBs = std::max(maxGBs, m.gbPerS);
            if (m.gbPerS > 0) minGBs = std::min(minGBs, m.gbPerS);
            ++copyBars_;
        }
    }
    auto* left = copies_->axis(QCPAxis::atLeft);
    setCategoryTicks(left, ticker);
    left->setRange(-0.6, std::max<double>(double(kinds.size()), 1.0) - 0.4);
    // Room right of the longest bar for its label.
    if (maxGBs > 0)
        copies_->axis(QCPAxis::atBottom)->setRange(minGBs / 3, maxGBs * 300);
    else
        copies_->axis(QCPAxis::atBottom)->setRange(0.1, 1000);
}

void KernelChart::setRuns(const std::vector<RunAnalysis>& runs, int topKernels) {
    styleAxes(this);
    const ChartColors colors = chartColors();
    clearPlottables();
    clearItems();
    QString window = windowPhrase(runs);
    xAxis->setLabel(window.isEmpty() ? tr("GPU time (ms)") : tr("GPU time (ms), %1").arg(window));
    drawCopies(runs);
    names_.clear();
    // The kernels that take most time across the runs; the rest is "other".
    std::map<std::string, double> total;
    for (const auto& r : runs)
        for (const auto& k : r.summary.kernels)
            total[k.name] += k.time.totalNs;
    std::vector<std::pair<double, std::string>> ranked;
    for (const auto& [name, t] : total)
        ranked.emplace_back(t, name);
    std::sort(ranked.rbegin(), ranked.rend());
    if (static_cast<int>(ranked.size()) > topKernels)
        ranked.resize(static_cast<std::size_t>(topKernels));
    // Labels elided in the middle: what tells runs of one model apart
    // (variant, graphs, batch) is at the end of their labels.
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    const QFontMetrics metrics(yAxis->tickLabelFont());
    for (std::size_t i = 0; i < runs.size(); ++i)
        ticker->addTick(static_cast<double>(i + 1),
                        metrics.elidedText(QStringLiteral("#%1 %2")
                                               .arg(runs[i].run.id)
                                               .arg(QString::fromStdString(runs[i].run.label)),
                                           Qt::ElideMiddle, metrics.averageCharWidth() * 34));
    setCategoryTicks(yAxis, ticker);
    yAxis->setRange(0.4, static_cast<double>(runs.size()) + 0.6);
    QCPBars* below = nullptr;
    double maxTotal = 0;
    auto addLayer = [&](const QString& name, const QColor& color, auto timeOf) {
        auto* bars = new QCPBars(yAxis, xAxis);
        bars->setName(name);
        bars->setPen(Qt::NoPen);
        bars->setBrush(color);
        bars->setWidth(0.6);
        QVector<double> keys, values;
        for (std::size_t i = 0; i < runs.size(); ++i) {
            keys << static_cast<double>(i + 1);
            values << timeOf(runs[i]) / 1e6;
        }
        bars->setData(keys, values);
        if (below) bars->moveAbove(below);
        below = bars;
    };
    for (std::size_t k = 0; k < ranked.size(); ++k) {
        const std::string& name = ranked[k].second;
        names_ << QString::fromStdString(name);
        addLayer(QFontMetrics(legend->font())
                     .elidedText(QString::fromStdString(name), Qt::ElideMiddle,
                                 QFontMetrics(legend->font()).averageCharWidth() * 40),
                 QColor::fromHsv(
                     static_cast<int>(k * 360 / std::max<std::size_t>(ranked.size(), 1)), 130, 215),
                 [&](const RunAnalysis& r) {
                     // Several mangled kernels can share a short name: sum them.
                     double sum = 0;
                     for (const auto& s : r.summary.kernels)
                         if (s.name == name) sum += s.time.totalNs;
                     return sum;
                 });
    }
    addLayer(tr("other"), colors.dark ? QColor(0x5a, 0x5e, 0x66) : QColor(0xc8, 0xcc, 0xd0),
             [&](const RunAnalysis& r) {
                 double rest = 0;
                 for (const auto& s : r.summary.kernels) {
                     bool top = std::any_of(ranked.begin(), ranked.end(),
                                            [&](const auto& p) { return p.second == s.name; });
                     if (!top) rest += s.time.totalNs;
                 }
                 return rest;
             });
    for (const auto& r : runs) {
        double t = 0;
        for (const auto& s : r.summary.kernels)
            t += s.time.totalNs;
        maxTotal = std::max(maxTotal, t / 1e6);
    }
    xAxis->setRange(0, maxTotal > 0 ? maxTotal * 1.05 : 1);
    replot();
}

}  // namespace ws::ui
