#include "analysis/gpu_metric_summary.h"

#include <algorithm>
#include <map>
#include <utility>

#include "model/gpu_metrics.h"
#include "store/run_queries.h"

namespace ws {

namespace {

std::vector<TimeSpan> unionOf(std::vector<TimeSpan> spans) {
    std::sort(spans.begin(), spans.end(),
              [](const TimeSpan& a, const TimeSpan& b) { return a.beginNs < b.beginNs; });
    std::vector<TimeSpan> out;
    for (const auto& s : spans) {
        if (s.endNs <= s.beginNs) continue;
        if (!out.empty() && s.beginNs <= out.back().endNs)
            out.back().endNs = std::max(out.back().endNs, s.endNs);
        else
            out.push_back(s);
    }
    return out;
}

// The value below which `q` of the weight lies.
double weightedQuantile(std::vector<std::pair<double, double>>& valueWeight, double total,
                        double q) {
    double seen = 0;
    for (const auto& [value, weight] : valueWeight) {
        seen += weight;
        if (seen >= q * total) return value;
    }
    return valueWeight.empty() ? 0 : valueWeight.back().first;
}

GpuMetricStats statsOf(const GpuMetricSeries& s, const std::vector<TimeSpan>& spans) {
    GpuMetricStats out;
    out.deviceIndex = s.deviceIndex;
    out.metric = s.metric;
    std::vector<std::pair<double, double>> valueWeight;
    double weighted = 0;
    std::int64_t sampledNs = 0;
    std::size_t first = 0;  // samples are by start; spans too, disjoint
    for (const auto& sample : s.samples) {
        while (first < spans.size() && spans[first].endNs <= sample.startNs)
            ++first;
        std::int64_t overlap = 0;
        for (std::size_t i = first; i < spans.size() && spans[i].beginNs < sample.endNs; ++i)
            overlap +=
                std::min(sample.endNs, spans[i].endNs) - std::max(sample.startNs, spans[i].beginNs);
        if (overlap <= 0) continue;
        ++out.samples;
        out.overlapNs += overlap;
        sampledNs += sample.endNs - sample.startNs;
        weighted += sample.value * static_cast<double>(overlap);
        valueWeight.emplace_back(sample.value, static_cast<double>(overlap));
        out.max = out.samples == 1 ? sample.value : std::max(out.max, sample.value);
    }
    if (out.overlapNs <= 0) return out;
    const auto total = static_cast<double>(out.overlapNs);
    out.mean = weighted / total;
    out.spanShare = total / static_cast<double>(sampledNs);
    std::sort(valueWeight.begin(), valueWeight.end());
    out.p50 = weightedQuantile(valueWeight, total, 0.50);
    out.p99 = weightedQuantile(valueWeight, total, 0.99);
    return out;
}

std::int64_t totalOf(const std::vector<TimeSpan>& disjoint) {
    std::int64_t t = 0;
    for (const auto& s : disjoint)
        t += s.endNs - s.beginNs;
    return t;
}

std::int64_t medianPeriod(const std::vector<GpuMetricSeries>& series) {
    if (series.empty() || series.front().samples.empty()) return 0;
    std::vector<std::int64_t> lengths;
    for (const auto& s : series.front().samples)
        lengths.push_back(s.endNs - s.startNs);
    std::nth_element(lengths.begin(), lengths.begin() + lengths.size() / 2, lengths.end());
    return lengths[lengths.size() / 2];
}

// One group's figures, or nothing when no sample overlaps its spans.
std::optional<GpuMetricGroup> groupOf(std::string name, std::optional<std::uint32_t> device,
                                      std::int64_t count, std::vector<TimeSpan> spans,
                                      const std::vector<GpuMetricSeries>& series) {
    GpuMetricGroup g;
    g.name = std::move(name);
    g.deviceIndex = device;
    g.count = count;
    auto disjoint = unionOf(std::move(spans));
    g.totalNs = totalOf(disjoint);
    g.stats = summarizeGpuMetrics(series, std::move(disjoint), device);
    if (g.stats.empty()) return std::nullopt;
    return g;
}

}  // namespace

std::vector<GpuMetricStats> summarizeGpuMetrics(const std::vector<GpuMetricSeries>& series,
                                                std::vector<TimeSpan> spans,
                                                std::optional<std::uint32_t> device) {
    const auto disjoint = unionOf(std::move(spans));
    std::vector<GpuMetricStats> out;
    for (const auto& s : series) {
        if (device && s.deviceIndex != *device) continue;
        auto stats = statsOf(s, disjoint);
        if (stats.samples > 0) out.push_back(std::move(stats));
    }
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return std::pair(a.deviceIndex, gpu_metrics::displayRank(a.metric)) <
               std::pair(b.deviceIndex, gpu_metrics::displayRank(b.metric));
    });
    return out;
}

GpuMetricReport gpuMetricReport(Store& store, std::int64_t run, GpuMetricGrouping by,
                                std::size_t top) {
    return gpuMetricReport(store, run, by, top, gpuMetricsOf(store, run));
}

GpuMetricReport gpuMetricReport(Store& store, std::int64_t run, GpuMetricGrouping by,
                                std::size_t top, std::vector<GpuMetricSeries> series) {
    GpuMetricReport report;
    report.series = std::move(series);
    if (report.series.empty()) return report;
    report.samplePeriodNs = medianPeriod(report.series);

    struct Key {
        std::string name;
        std::optional<std::uint32_t> device;
        auto operator<=>(const Key&) const = default;
    };
    std::map<Key, std::vector<TimeSpan>> spans;
    std::map<Key, std::int64_t> counts;
    if (by == GpuMetricGrouping::Run) {
        std::int64_t begin = report.series.front().samples.front().startNs, end = begin;
        for (const auto& s : report.series)
            if (!s.samples.empty()) {
                begin = std::min(begin, s.samples.front().startNs);
                end = std::max(end, s.samples.back().endNs);
            }
        spans[{"run", std::nullopt}].push_back({begin, end});
        counts[{"run", std::nullopt}] = 1;
    } else if (by == GpuMetricGrouping::Kernel) {
        forEachKernel(store, run, {}, std::nullopt, [&](const KernelRecord& k) {
            Key key{k.name, k.deviceId};
            spans[key].push_back({k.startNs, k.endNs});
            ++counts[key];
        });
    } else {
        forEachRange(store, run, {}, std::nullopt, [&](const RangeRecord& r) {
            Key key{r.name, std::nullopt};
            spans[key].push_back({r.startNs, r.endNs});
            ++counts[key];
        });
    }
    for (auto& [key, list] : spans)
        if (auto g = groupOf(key.name, key.device, counts[key], std::move(list), report.series))
            report.groups.push_back(std::move(*g));
    std::stable_sort(report.groups.begin(), report.groups.end(),
                     [](const auto& a, const auto& b) { return a.totalNs > b.totalNs; });
    if (report.groups.size() > top) report.groups.resize(top);
    return report;
}

std::optional<GpuMetricGroup> gpuMetricsOfKernel(Store& store, std::int64_t run,
                                                 const std::string& name, std::uint32_t device) {
    auto series = gpuMetricsOf(store, run);
    if (series.empty()) return std::nullopt;
    std::vector<TimeSpan> spans;
    forEachKernel(store, run, {}, std::nullopt, [&](const KernelRecord& k) {
        if (k.deviceId == device && k.name == name) spans.push_back({k.startNs, k.endNs});
    });
    const auto count = static_cast<std::int64_t>(spans.size());
    return groupOf(name, device, count, std::move(spans), series);
}

}  // namespace ws
