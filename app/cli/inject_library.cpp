#include "cli/inject_library.h"

#include <cstdlib>
#include <filesystem>

#include "model/capture_windows.h"

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

void applyCaptureChoices(const Args& args, std::vector<std::string>& env,
                         std::vector<std::pair<std::string, std::string>>& properties) {
    const std::string graphTrace = args.valueOr("graph-trace", "node");
    if (graphTrace != "node" && graphTrace != "graph")
        throw UsageError("--graph-trace must be 'node' or 'graph', not '" + graphTrace + "'");
    env.push_back("WARPSCOPE_GRAPH_TRACE=" + graphTrace);
    properties.emplace_back("capture.graph_trace", graphTrace);
    const bool allApis = args.flag("all-apis");
    if (allApis) env.emplace_back("WARPSCOPE_ALL_APIS=1");
    properties.emplace_back("capture.query_calls", allApis ? "traced" : "left out");
    const std::string range = args.valueOr("capture-range", "none");
    if (range != "none" && range != capture_window::kProfilerApi)
        throw UsageError("--capture-range must be 'none' or 'cudaProfilerApi', not '" + range +
                         "'");
    if (windowedCapture(args))
        env.push_back(std::string(capture_window::kEnvironment) + "=" + range);
    properties.emplace_back(capture_window::kRangeProperty,
                            windowedCapture(args) ? range : "whole run");
}

bool windowedCapture(const Args& args) {
    return args.valueOr("capture-range", "none") != "none";
}

}  // namespace ws::cli
