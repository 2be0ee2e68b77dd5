#include <iostream>

#include "cli/cli_args.h"
#include "cli/commands.h"
#include "config/workload_config.h"

namespace ws::cli {

int cmdValidate(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{}, {}, 1, 64});
    int failures = 0;
    for (const auto& path : args.positional()) {
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
