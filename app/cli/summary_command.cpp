// warpscope-cli summary: kernels, memory copies and NVTX ranges of a run, as
// `nsys stats` tabulates them.
#include <algorithm>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis/analysis_window.h"
#include "analysis/gpu_metric_summary.h"
#include "analysis/kernel_classes.h"
#include "analysis/kernel_summary.h"
#include "analysis/process_summary.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/open_store.h"
#include "cli/text_table.h"
#include "cli/window_arg.h"
#include "model/gpu_metrics.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "util/format.h"

namespace ws::cli {

namespace {
nlohmann::ordered_json durationJson(const DurationStats& d) {
    nlohmann::ordered_json j = {{"instances", d.count}, {"total_ns", d.totalNs},
                                {"mean_ns", d.meanNs},  {"median_ns", d.medianNs},
                                {"min_ns", d.minNs},    {"max_ns", d.maxNs},
                                {"std_ns", d.stdNs}};
    // Rows with over 262,144 distinct durations: median within 0.025 %.
    if (!d.medianExact) j["median_exact"] = false;
    return j;
}

std::string ns(double v) {
    return formatDuration(static_cast<std::int64_t>(v));
}
}  // namespace

int cmdSummary(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{"json"}, {"db", "top", "window"}, 1, 1});
    auto id = parseRunId(args.positional()[0]);
    std::size_t top = 20;
    if (auto t = args.value("top"))
        top = static_cast<std::size_t>(parseInteger("top", *t, 1, 100000));
    auto opened = openStore(args);
    Store& store = *opened;
    requireRun(store, id);
    auto choice = parseWindowArg(args, WindowChoice::Kind::WholeRun);
    ResolvedWindow window;
    try {
        window = resolveWindow(store, id, choice);
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--window: ") + e.what());
    }
    auto s = summarizeRun(store, id, window.span, window.label);
    auto processes = summarizeProcesses(store, id, window.span, &s);
    // GPU metrics (record --gpu-metrics) over the window: the whole-run view
    // of `gpu-metrics RUN`.
    const auto gpuMetrics =
        summarizeGpuMetrics(gpuMetricsOf(store, id, window.span.beginNs, window.span.endNs),
                            {{window.span.beginNs, window.span.endNs}});
    if (args.flag("json")) {
        // Every row unless --top was given (machine output keeps the whole
        // table by default); the totals say how many there were.
        const std::size_t rows = args.value("top") ? top : SIZE_MAX;
        auto firstRows = [rows](const auto& all) {
            return std::vector(
                all.begin(), all.begin() + static_cast<std::ptrdiff_t>(std::min(rows, all.size())));
        };
        nlohmann::ordered_json j;
        j["kernels_total"] = s.kernels.size();
        j["ranges_total"] = s.ranges.size();
        j["api_calls_total"] = s.apiCalls.size();
        j["window"] = toSpec(choice);
        j["window_label"] = s.window;
        j["gpu_span_ns"] = s.gpuSpanNs;
        j["gpu_busy_ns"] = s.gpuBusyNs;
        j["gpu_busy_fraction"] = s.gpuBusyFraction;
        j["kernels"] = nlohmann::ordered_json::array();
        for (const auto& k : firstRows(s.kernels)) {
            auto row = durationJson(k.time);
            row["time_percent"] = k.timePercent;
            row["name"] = k.name;
            row["demangled"] = k.demangled;
            row["class"] = toString(classifyKernel(k.demangled.empty() ? k.name : k.demangled));
            if (k.dramGBs) row["dram_gb_per_s"] = *k.dramGBs;
            if (k.tflops) row["tflop_per_s"] = *k.tflops;
            if (k.achievedOccupancy) row["achieved_occupancy"] = *k.achievedOccupancy;
            j["kernels"].push_back(row);
        }
        j["memcpys"] = nlohmann::ordered_json::array();
        for (const auto& m : s.memcpys) {
            auto row = durationJson(m.time);
            row["kind"] = toString(m.kind);
            row["total_bytes"] = m.totalBytes;
            row["gb_per_s"] = m.gbPerS;
            j["memcpys"].push_back(row);
        }
        j["ranges"] = nlohmann::ordered_json::array();
        for (const auto& r : firstRows(s.ranges)) {
            auto row = durationJson(r.time);
            row["name"] = r.name;
            row["domain"] = r.domain;
            row["gpu_busy_fraction"] = r.gpuBusyFraction;
            row["kernel_inclusive_ns"] = r.inclusiveKernelNs;
            row["kernel_self_ns"] = r.selfKernelNs;
            row["kernel_inclusive_count"] = r.inclusiveKernels;
            j["ranges"].push_back(row);
        }
        j["api_calls"] = nlohmann::ordered_json::array();
        for (const auto& a : firstRows(s.apiCalls)) {
            auto row = durationJson(a.time);
            row["time_percent"] = a.timePercent;
            row["name"] = a.name;
            row["kind"] = toString(a.kind);
            row["errors"] = a.errors;
            j["api_calls"].push_back(row);
        }
        j["graph_replay"] = {
            {"kernels", s.graphs.kernels},          {"kernel_ns", s.graphs.kernelNs},
            {"traced_to_capture", s.graphs.traced}, {"traced_ns", s.graphs.tracedNs},
            {"in_capture_range", s.graphs.inRange}, {"in_capture_range_ns", s.graphs.inRangeNs}};
        j["processes"] = nlohmann::ordered_json::array();
        for (const auto& p : processes)
            j["processes"].push_back({{"pid", p.process.pid},
                                      {"parent", p.process.parent},
                                      {"command", p.process.command},
                                      {"end", p.process.end},
                                      {"kernels", p.kernels},
                                      {"kernel_ns", p.kernelNs},
                                      {"kernel_share", p.kernelShare},
                                      {"memcpys", p.memcpys},
                                      {"memcpy_bytes", p.memcpyBytes}});
        j["gpu_metrics"] = nlohmann::ordered_json::array();
        for (const auto& m : gpuMetrics)
            j["gpu_metrics"].push_back({{"device", m.deviceIndex},
                                        {"metric", m.metric},
                                        {"label", gpu_metrics::describe(m.metric).label},
                                        {"unit", gpu_metrics::describe(m.metric).unit},
                                        {"scale", gpu_metrics::describe(m.metric).scale},
                                        {"mean", m.mean},
                                        {"p99", m.p99}});
        std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        return 0;
    }
    std::cout << "Window: " << s.window << "\nGPU busy " << std::fixed << std::setprecision(1)
              << s.gpuBusyFraction * 100 << "% of " << formatDuration(s.gpuSpanNs)
              << "\n\nKernels\n";
    // Counter columns only for runs recorded with --metrics.
    bool counters = std::any_of(s.kernels.begin(), s.kernels.end(),
                                [](const KernelStat& k) { return k.dramGBs.has_value(); });
    auto pct = [](double v) { return formatFixed(v, 1); };
    {
        std::vector<std::string> header{"time%",  "total", "count", "mean",
                                        "median", "min",   "max",   "std"};
        if (counters) header.insert(header.end(), {"DRAM GB/s", "TFLOP/s", "occ."});
        header.push_back("name");
        TextTable table(header);
        auto cell = [](const std::optional<double>& v, double scale, int digits, const char* unit) {
            return v ? formatFixed(*v * scale, digits) + unit : std::string("—");
        };
        for (std::size_t i = 0; i < s.kernels.size() && i < top; ++i) {
            const auto& k = s.kernels[i];
            std::vector<std::string> row{
                pct(k.timePercent), ns(k.time.totalNs),  std::to_string(k.time.count),
                ns(k.time.meanNs),  ns(k.time.medianNs), ns(k.time.minNs),
                ns(k.time.maxNs),   ns(k.time.stdNs)};
            if (counters)
                row.insert(row.end(), {cell(k.dramGBs, 1, 0, ""), cell(k.tflops, 1, 1, ""),
                                       cell(k.achievedOccupancy, 100, 0, "%")});
            row.push_back(k.name);
            table.add(std::move(row));
        }
        table.print(std::cout);
    }
    if (!s.memcpys.empty()) {
        std::cout << "\nMemory copies\n";
        TextTable table({"time%", "total", "count", "bytes", "GB/s", "kind"});
        for (const auto& m : s.memcpys)
            table.add({pct(m.timePercent), ns(m.time.totalNs), std::to_string(m.time.count),
                       formatBytes(m.totalBytes), formatFixed(m.gbPerS, 2), toString(m.kind)});
        table.print(std::cout);
    }
    if (!s.apiCalls.empty()) {
        std::cout << "\nCUDA API\n";
        TextTable table({"time%", "total", "count", "mean", "median", "max", "errors", "name"});
        for (std::size_t i = 0; i < s.apiCalls.size() && i < top; ++i) {
            const auto& a = s.apiCalls[i];
            table.add({pct(a.timePercent), ns(a.time.totalNs), std::to_string(a.time.count),
                       ns(a.time.meanNs), ns(a.time.medianNs), ns(a.time.maxNs),
                       std::to_string(a.errors), a.name});
        }
        table.print(std::cout);
    }
    if (processes.size() >= 2) {
        std::cout << "\nProcesses\n";
        TextTable table(
            {"pid", "parent", "kernels", "total", "time%", "copies", "ended", "command"});
        for (const auto& p : processes)
            table.add(
                {p.process.pid ? std::to_string(p.process.pid) : "?",
                 p.process.parent ? std::to_string(p.process.parent) : "",
                 std::to_string(p.kernels), ns(p.kernelNs), pct(p.kernelShare * 100),
                 std::to_string(p.memcpys), p.process.end.empty() ? "-" : p.process.end,
                 p.process.pid ? p.process.command : std::string("(streams of no known process)")});
        table.print(std::cout);
    }
    if (s.graphs.kernels > 0) {
        auto share = [&](double ns) {
            return formatFixed(s.graphs.kernelNs > 0 ? 100.0 * ns / s.graphs.kernelNs : 0, 1) + "%";
        };
        std::cout << "\nCUDA graphs: " << s.graphs.kernels << " kernels replayed ("
                  << ns(s.graphs.kernelNs) << "); " << s.graphs.traced
                  << " traced to where their graph was captured (" << share(s.graphs.tracedNs)
                  << " of that time), " << s.graphs.inRange << " inside an NVTX range then ("
                  << share(s.graphs.inRangeNs)
                  << "); the ranges below count them where they were captured\n";
    }
    if (!gpuMetrics.empty()) {
        std::cout << "\nGPU metrics over the window (gpu-metrics RUN --by kernel: per kernel)\n";
        TextTable table({"GPU", "mean", "p99", "metric"});
        for (const auto& m : gpuMetrics) {
            const auto name = gpu_metrics::describe(m.metric);
            const std::string unit = name.unit.empty() ? "" : " " + std::string(name.unit);
            table.add({std::to_string(m.deviceIndex), formatFixed(m.mean * name.scale, 1) + unit,
                       formatFixed(m.p99 * name.scale, 1) + unit, std::string(name.label)});
        }
        table.print(std::cout);
    }
    if (!s.ranges.empty()) {
        std::cout << "\nNVTX ranges\n";
        TextTable table({"total", "count", "mean", "GPU busy", "kernels", "self",
                         "name    (kernels: launched inside, nested ranges included; self: "
                         "innermost range only)"});
        for (std::size_t i = 0; i < s.ranges.size() && i < top; ++i) {
            const auto& r = s.ranges[i];
            table.add({ns(r.time.totalNs), std::to_string(r.time.count), ns(r.time.meanNs),
                       pct(r.gpuBusyFraction * 100) + "%", ns(r.inclusiveKernelNs),
                       ns(r.selfKernelNs),
                       r.name + (r.domain.empty() ? "" : "  [" + r.domain + "]")});
        }
        table.print(std::cout);
    }
    return 0;
}

}  // namespace ws::cli
