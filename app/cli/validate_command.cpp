#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli/cli_args.h"
#include "cli/commands.h"
#include "config/workload_config.h"

namespace ws::cli {

namespace {

// The configs named: a folder stands for its *.toml files, in name order.
std::vector<std::string> configPaths(const std::vector<std::string>& named) {
    std::vector<std::string> paths;
    for (const auto& path : named) {
        std::error_code ec;
        if (!std::filesystem::is_directory(path, ec)) {
            paths.push_back(path);
            continue;
        }
        std::vector<std::string> inFolder;
        for (const auto& entry : std::filesystem::directory_iterator(path, ec))
            if (entry.path().extension() == ".toml") inFolder.push_back(entry.path().string());
        std::sort(inFolder.begin(), inFolder.end());
        if (inFolder.empty()) paths.push_back(path);  // refused by name: nothing to validate
        paths.insert(paths.end(), inFolder.begin(), inFolder.end());
    }
    return paths;
}

}  // namespace

int cmdValidate(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{}, {}, 1, 64});
    int failures = 0;
    for (const auto& path : configPaths(args.positional())) {
        auto result = loadWorkloadConfig(path);
        if (result.ok()) {
            const auto& c = *result.config;
            std::cout << path << ": ok (" << c.name << ", " << toString(c.kind) << ")\n";
            continue;
        }
        ++failures;
        for (const auto& e : result.errors)
            std::cerr << e.toString() << '\n';
    }
    return failures ? 1 : 0;
}

}  // namespace ws::cli
