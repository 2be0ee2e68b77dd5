#include "cli/inject_library.h"

#include <cstdlib>
#include <filesystem>

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

void applyQueryCallChoice(bool allApis, std::vector<std::string>& env,
                          std::vector<std::pair<std::string, std::string>>& properties) {
    if (allApis) env.emplace_back("WARPSCOPE_ALL_APIS=1");
    properties.emplace_back("capture.query_calls", allApis ? "traced" : "left out");
}

}  // namespace ws::cli
