#include "cli/inject_library.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "model/capture_windows.h"
#include "model/gpu_metrics.h"
#include "model/pc_sampling.h"

namespace ws::cli {

std::string findInjectLibrary() {
    if (const char* env = std::getenv("WARPSCOPE_INJECT_LIBRARY")) return env;
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    auto dir = exe.parent_path();
    for (const auto& candidate :
         {dir / "../lib/warpscope/libwarpscope_inject.so",
          dir / "../core/capture/libwarpscope_inject.so", dir / "libwarpscope_inject.so"}) {
        if (std::filesystem::exists(candidate, ec))
            return std::filesystem::weakly_canonical(candidate, ec).string();
    }
    return {};
}

std::string findBesideSelf(const std::string& name) {
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    auto candidate = exe.parent_path() / name;
    return std::filesystem::exists(candidate, ec) ? candidate.string() : std::string();
}

void applyCaptureChoices(const Args& args, RecordRequest& request) {
    auto& env = request.env;
    auto& properties = request.properties;
    const std::string set = args.valueOr("capture", "default");
    if (set != "default" && set != "lean")
        throw UsageError("--capture must be 'default' or 'lean', not '" + set + "'");
    const bool lean = set == "lean";
    properties.emplace_back("capture.set", set);
    const std::string graphTrace = args.valueOr("graph-trace", "node");
    if (graphTrace != "node" && graphTrace != "graph")
        throw UsageError("--graph-trace must be 'node' or 'graph', not '" + graphTrace + "'");
    env.push_back("WARPSCOPE_GRAPH_TRACE=" + graphTrace);
    properties.emplace_back("capture.graph_trace", graphTrace);
    const bool allApis = args.flag("all-apis");
    if (allApis && lean)
        throw UsageError(
            "--all-apis and --capture lean contradict each other: lean leaves the calls that "
            "only read state out (use the default capture with --all-apis)");
    if (allApis) env.emplace_back("WARPSCOPE_ALL_APIS=1");
    properties.emplace_back("capture.query_calls", allApis ? "traced" : "left out");
    if (lean || args.flag("no-driver-api")) env.emplace_back("WARPSCOPE_DRIVER_API=0");
    if (lean) env.emplace_back("WARPSCOPE_KINDS_OFF=synchronization,overhead");
    const std::string range = args.valueOr("capture-range", "none");
    if (range != "none" && range != capture_window::kProfilerApi)
        throw UsageError("--capture-range must be 'none' or 'cudaProfilerApi', not '" + range +
                         "'");
    if (windowedCapture(args))
        env.push_back(std::string(capture_window::kEnvironment) + "=" + range);
    properties.emplace_back(capture_window::kRangeProperty,
                            windowedCapture(args) ? range : "whole run");
    // Device samples every N ms (power, clocks, memory, energy); 0 turns them
    // off, as lean does unless asked for them.
    if (auto ms = args.value("sample-ms")) {
        request.sampleIntervalMs = static_cast<int>(parseInteger("sample-ms", *ms, 0, 60000));
        properties.emplace_back("capture.sample_ms", std::to_string(request.sampleIntervalMs));
    } else if (lean) {
        request.sampleIntervalMs = 0;
        properties.emplace_back("capture.sample_ms", "0");
    }
}

std::optional<GpuMetricsRequest> gpuMetricsChoice(
    const Args& args, std::vector<std::pair<std::string, std::string>>& properties) {
    const auto set = args.value("gpu-metrics-set");
    const auto hz = args.value("gpu-metrics-hz");
    if (!args.flag(kGpuMetricsFlag) && !set) {
        if (hz) throw UsageError("--gpu-metrics-hz applies to --gpu-metrics");
        return std::nullopt;
    }
    GpuMetricsRequest request;
    if (set) {
        std::stringstream in(*set);
        for (std::string name; std::getline(in, name, ',');) {
            const bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
                return std::islower(static_cast<unsigned char>(c)) ||
                       std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '.';
            });
            if (!plain)
                throw UsageError(
                    "--gpu-metrics-set takes comma-separated CUPTI metric names "
                    "such as dram__bytes_read.sum.per_second, not '" +
                    *set + "'");
            request.metrics.push_back(name);
        }
    }
    const auto rate = hz ? parseInteger("gpu-metrics-hz", *hz, 10,
                                        1'000'000'000 / gpu_metrics::kShortestIntervalNs)
                         : 1'000'000'000 / gpu_metrics::kDefaultIntervalNs;
    request.intervalNs = 1'000'000'000 / rate;
    // Beside the injection library: both are the capture side of this build.
    const auto inject = findInjectLibrary();
    request.modulePath =
        inject.empty()
            ? std::string(gpu_metrics::kModuleName)
            : (std::filesystem::path(inject).parent_path() / gpu_metrics::kModuleName).string();
    properties.emplace_back("capture.gpu_metrics", set ? *set : "default");
    properties.emplace_back("capture.gpu_metrics_hz", std::to_string(rate));
    return request;
}

void pcSamplingChoice(const Args& args, std::vector<std::string>& env,
                      std::vector<std::pair<std::string, std::string>>& properties) {
    const auto period = args.value(kPcSamplingPeriod);
    if (!args.flag(kPcSamplingFlag)) {
        if (period) throw UsageError("--pc-sampling-period applies to --pc-sampling");
        return;
    }
    if (args.flag(kGpuMetricsFlag) || args.value(kGpuMetricsValues[0]))
        throw UsageError(
            "--pc-sampling and --gpu-metrics exclude each other: with both, CUPTI 13.0 crashed "
            "the program inside its PC sampler (seen on an H100); record twice");
    const auto log2 =
        period ? parseInteger(kPcSamplingPeriod, *period, pc_sampling::kShortestPeriodLog2,
                              pc_sampling::kLongestPeriodLog2)
               : pc_sampling::kDefaultPeriodLog2;
    env.push_back(std::string(pc_sampling::kEnvironment) + "=" + std::to_string(log2));
    properties.emplace_back(pc_sampling::kCaptureProperty,
                            "2^" + std::to_string(log2) + " cycles" + (period ? "" : " (default)"));
}

bool windowedCapture(const Args& args) {
    return args.valueOr("capture-range", "none") != "none";
}

}  // namespace ws::cli
