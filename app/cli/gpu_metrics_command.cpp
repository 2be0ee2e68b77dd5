// gpu-metrics RUN: the GPU performance-monitor samples of a run recorded with
// --gpu-metrics, summarised over the whole run, per kernel or per NVTX range
// (mean, p50, p99, max in the units a user reads).
#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis/gpu_metric_summary.h"
#include "analysis/kernel_summary.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/open_store.h"
#include "cli/text_table.h"
#include "model/gpu_metrics.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "util/format.h"

namespace ws::cli {

namespace {

using json = nlohmann::ordered_json;

std::string inUnits(const GpuMetricStats& s, double value) {
    const auto name = gpu_metrics::describe(s.metric);
    return formatFixed(value * name.scale, name.unit == "%" ? 1 : 1);
}

std::string groupTitle(const GpuMetricGroup& g, GpuMetricGrouping by) {
    if (by == GpuMetricGrouping::Run) return "whole run";
    std::string where = g.deviceIndex ? "GPU " + std::to_string(*g.deviceIndex) + ", " : "";
    const auto name =
        by == GpuMetricGrouping::Kernel ? shortKernelName(demangle(g.name), true) : g.name;
    return name + " (" + where + std::to_string(g.count) +
           (by == GpuMetricGrouping::Kernel ? " launches, " : " ranges, ") +
           formatDuration(g.totalNs) + ")";
}

json reportJson(RunId id, const GpuMetricReport& r, GpuMetricGrouping by) {
    json groups = json::array();
    for (const auto& g : r.groups) {
        json stats = json::array();
        for (const auto& s : g.stats) {
            const auto name = gpu_metrics::describe(s.metric);
            stats.push_back({{"device", s.deviceIndex},
                             {"metric", s.metric},
                             {"label", name.label},
                             {"unit", name.unit},
                             {"scale", name.scale},
                             {"samples", s.samples},
                             {"overlap_ns", s.overlapNs},
                             {"span_share", s.spanShare},
                             {"mean", s.mean},
                             {"p50", s.p50},
                             {"p99", s.p99},
                             {"max", s.max}});
        }
        json group = {{"name", g.name}};
        if (by == GpuMetricGrouping::Kernel) group["demangled"] = demangle(g.name);
        group["count"] = g.count;
        group["total_ns"] = g.totalNs;
        if (g.deviceIndex) group["device"] = *g.deviceIndex;
        group["metrics"] = std::move(stats);
        groups.push_back(std::move(group));
    }
    json series = json::array();
    for (const auto& s : r.series)
        series.push_back(
            {{"device", s.deviceIndex}, {"metric", s.metric}, {"samples", s.samples.size()}});
    const char* byName = by == GpuMetricGrouping::Run      ? "run"
                         : by == GpuMetricGrouping::Kernel ? "kernel"
                                                           : "range";
    return {{"run", id},
            {"by", byName},
            {"sample_period_ns", r.samplePeriodNs},
            {"series", std::move(series)},
            {"groups", std::move(groups)}};
}

}  // namespace

int cmdGpuMetrics(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{"json"}, {"db", "by", "top"}, 1, 1});
    auto id = parseRunId(args.positional()[0]);
    const std::string byText = args.valueOr("by", "run");
    GpuMetricGrouping by = GpuMetricGrouping::Run;
    if (byText == "kernel")
        by = GpuMetricGrouping::Kernel;
    else if (byText == "range")
        by = GpuMetricGrouping::Range;
    else if (byText != "run")
        throw UsageError("--by must be 'run', 'kernel' or 'range', not '" + byText + "'");
    const auto top =
        static_cast<std::size_t>(parseInteger("top", args.valueOr("top", "10"), 1, 100000));
    auto opened = openStore(args);
    Store& store = *opened;
    requireRun(store, id);
    const auto report = gpuMetricReport(store, id, by, top);
    if (args.flag("json")) {
        std::cout << reportJson(id, report, by)
                         .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
                  << '\n';
        return 0;
    }
    if (report.series.empty()) {
        std::cout << "run " << id
                  << " has no GPU metric samples (record it with --gpu-metrics; its log says why "
                     "when sampling could not start)\n";
        return 0;
    }
    std::size_t samples = 0;
    for (const auto& s : report.series)
        samples = std::max(samples, s.samples.size());
    std::cout << "run " << id << ": " << report.series.size() << " metric series, " << samples
              << " samples each at most, one every " << formatDuration(report.samplePeriodNs)
              << "\n";
    for (const auto& g : report.groups) {
        std::cout << '\n' << groupTitle(g, by) << '\n';
        TextTable table({"GPU", "mean", "p50", "p99", "max", "in span", "metric"});
        for (const auto& s : g.stats)
            table.add({std::to_string(s.deviceIndex), inUnits(s, s.mean), inUnits(s, s.p50),
                       inUnits(s, s.p99), inUnits(s, s.max),
                       formatFixed(100 * s.spanShare, 0) + "%", gpu_metrics::title(s.metric)});
        table.print(std::cout);
    }
    if (by != GpuMetricGrouping::Run)
        std::cout << "\n'in span': the share of the overlapping samples' time that lay inside "
                     "the kernel or range; below 100 % the values mix in what ran around it.\n";
    return 0;
}

}  // namespace ws::cli
