#include "charts/kernel_chart.h"

#include <map>

#include "charts/chart_style.h"

namespace ws::ui {

KernelChart::KernelChart(QWidget* parent) : QCustomPlot(parent) {
    xAxis->setLabel(tr("GPU time (ms)"));
    legend->setVisible(true);
    axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignRight | Qt::AlignBottom);
    makeZoomable(axisRect(), Qt::Horizontal);
    styleAxes(this);
}

void KernelChart::setRuns(const std::vector<RunAnalysis>& runs, int topKernels) {
    styleAxes(this);
    const ChartColors colors = chartColors();
    clearPlottables();
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
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (std::size_t i = 0; i < runs.size(); ++i)
        ticker->addTick(static_cast<double>(i + 1),
                        QStringLiteral("#%1 %2")
                            .arg(runs[i].run.id)
                            .arg(QString::fromStdString(runs[i].run.label).left(28)));
    yAxis->setTicker(ticker);
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
        addLayer(QString::fromStdString(name).left(40),
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
