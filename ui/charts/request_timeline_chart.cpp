#include "charts/request_timeline_chart.h"

#include <algorithm>
#include <cmath>

#include "analysis/statistics.h"
#include "charts/chart_style.h"

namespace ws::ui {

namespace {

const char* const kSeverityNames[] = {"ITL below 2× the median", "ITL ≥ 2× the median",
                                      "ITL ≥ p99 (an outlier)"};

}  // namespace

RequestTimelineChart::RequestTimelineChart(QWidget* parent) : FittedChart(parent) {
    xAxis->setLabel(tr("time since the first request arrived (ms)"));
    yAxis->setLabel(tr("request (by arrival)"));
    yAxis->setRangeReversed(true);  // the first request on top, as vLLM draws it
    legend->setVisible(true);
    placeLegendBelow(this, 1);
    makeZoomable(axisRect(), Qt::Horizontal | Qt::Vertical);
    styleAxes(this);
    connect(this, &QCustomPlot::plottableClick, this,
            [this](QCPAbstractPlottable* p, int index, QMouseEvent*) { onClick(p, index); });
}

int RequestTimelineChart::tickCount(int severity) const {
    return ticks_[severity] ? ticks_[severity]->dataCount() : 0;
}

void RequestTimelineChart::setRuns(const std::vector<RunAnalysis>& runs) {
    styleAxes(this);
    clearPlottables();
    for (auto*& t : ticks_)
        t = nullptr;
    rows_.clear();
    run_ = 0;
    const RunAnalysis* shown = nullptr;
    for (const auto& r : runs)
        if (!r.latency.requests.empty()) {
            shown = &r;
            break;
        }
    if (!shown) {
        replot();
        return;
    }
    run_ = shown->run.id;
    std::vector<const RequestLatency*> requests;
    for (const auto& q : shown->latency.requests)
        requests.push_back(&q);
    std::sort(
        requests.begin(), requests.end(),
        [](const RequestLatency* a, const RequestLatency* b) { return a->startNs < b->startNs; });
    originNs_ = requests.front()->startNs;
    std::vector<double> itls = shown->latency.itlMs;
    std::sort(itls.begin(), itls.end());
    const double median = itls.empty() ? 0 : stats::percentileSorted(itls, 50);
    const double p99 = itls.empty() ? 0 : stats::percentileSorted(itls, 99);

    const ChartColors colors = chartColors();
    auto* waits = new QCPCurve(xAxis, yAxis);
    waits->setName(tr("arrival to first token (TTFT)"));
    waits->setPen(QPen(colors.muted, 1.5));
    QVector<double> wx, wy;
    const QColor tickColors[] = {runColor(0), QColor(0xef, 0x6c, 0x00), QColor(0xd3, 0x2f, 0x2f)};
    // Tens of thousands of ticks: small ones, the outliers larger and on top.
    const double tickSizes[] = {2.5, 3.5, 6};
    QVector<double> tx[3], ty[3];
    double maxX = 1;
    auto ms = [&](std::int64_t ns) { return static_cast<double>(ns - originNs_) / 1e6; };
    for (std::size_t row = 0; row < requests.size(); ++row) {
        const auto& q = *requests[row];
        Row r{q.requestId, {q.firstTokenNs}};
        double t = static_cast<double>(q.firstTokenNs);
        for (double itl : q.itlMs) {
            t += itl * 1e6;
            r.tokenNs.push_back(static_cast<std::int64_t>(std::llround(t)));
        }
        const double y = static_cast<double>(row);
        wx << ms(q.startNs) << ms(q.firstTokenNs) << qQNaN();
        wy << y << y << qQNaN();
        tx[0] << ms(q.firstTokenNs);
        ty[0] << y;
        for (std::size_t i = 0; i < q.itlMs.size(); ++i) {
            const int severity = q.itlMs[i] >= p99 && p99 > 0             ? 2
                                 : q.itlMs[i] >= 2 * median && median > 0 ? 1
                                                                          : 0;
            tx[severity] << ms(r.tokenNs[i + 1]);
            ty[severity] << y;
        }
        maxX = std::max(maxX, ms(r.tokenNs.back()));
        rows_.push_back(std::move(r));
    }
    waits->setData(wx, wy);
    for (int s = 0; s < 3; ++s) {
        auto* g = addGraph();
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, tickColors[s], tickSizes[s]));
        g->setData(tx[s], ty[s]);
        g->setName(tr(kSeverityNames[s]));
        ticks_[s] = g;
    }
    xAxis->setRange(0, maxX * 1.02);
    yAxis->setRange(-1, static_cast<double>(requests.size()));
    FittedChart::fitTo(size());
    replot();
}

void RequestTimelineChart::clickToken(int row, int token) {
    if (row < 0 || row >= static_cast<int>(rows_.size())) return;
    const auto& r = rows_[static_cast<std::size_t>(row)];
    if (token < 1 || token >= static_cast<int>(r.tokenNs.size())) return;
    emit intervalClicked(run_, r.tokenNs[static_cast<std::size_t>(token - 1)],
                         r.tokenNs[static_cast<std::size_t>(token)]);
}

void RequestTimelineChart::onClick(QCPAbstractPlottable* plottable, int dataIndex) {
    auto* graph = qobject_cast<QCPGraph*>(plottable);
    if (!graph || dataIndex < 0 || dataIndex >= graph->dataCount()) return;
    // The tick's row and time name the token: the one drawn nearest that time.
    const auto point = graph->data()->at(dataIndex);
    const int row = static_cast<int>(std::lround(point->value));
    if (row < 0 || row >= static_cast<int>(rows_.size())) return;
    const auto& tokens = rows_[static_cast<std::size_t>(row)].tokenNs;
    const auto at = static_cast<std::int64_t>(point->key * 1e6) + originNs_;
    auto it = std::lower_bound(tokens.begin(), tokens.end(), at);
    int token = static_cast<int>(it - tokens.begin());
    if (it != tokens.begin() &&
        (it == tokens.end() || std::llabs(*(it - 1) - at) < std::llabs(*it - at)))
        --token;
    clickToken(row, std::max(token, 1));
}

}  // namespace ws::ui
