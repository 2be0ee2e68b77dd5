// warpscope-cli occupancy: the theoretical occupancy of a launch configuration.
#include <charconv>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis/occupancy.h"
#include "cli/cli_args.h"
#include "cli/commands.h"

namespace ws::cli {

namespace {
int intOption(const Args& args, const std::string& name, int min, int max, bool required,
              int fallback = 0) {
    auto v = args.value(name);
    if (!v) {
        if (required) throw UsageError("--" + name + " is required");
        return fallback;
    }
    return static_cast<int>(parseInteger(name, *v, min, max));
}
}  // namespace

int cmdOccupancy(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{"json"}, {"cc", "threads", "regs", "smem", "carveout"}, 0, 0});
    auto cc = args.valueOr("cc", "9.0");
    auto dot = cc.find('.');
    std::optional<SmLimits> sm;
    if (dot != std::string::npos) {
        // Both parts whole numbers: "9.0x" or "9.-1" is not a capability.
        int major = 0, minor = 0;
        auto a = std::from_chars(cc.data(), cc.data() + dot, major);
        auto b = std::from_chars(cc.data() + dot + 1, cc.data() + cc.size(), minor);
        if (a.ec == std::errc() && a.ptr == cc.data() + dot && b.ec == std::errc() &&
            b.ptr == cc.data() + cc.size() && dot > 0 && dot + 1 < cc.size())
            sm = limitsForComputeCapability(major, minor);
    }
    if (!sm)
        throw UsageError("--cc " + cc +
                         ": not a supported compute capability (7.0, 7.2, 7.5, 8.0, 8.6, "
                         "8.7, 8.9, 9.0)");
    LaunchResources launch;
    launch.threadsPerBlock = intOption(args, "threads", 1, 1 << 20, true);
    launch.registersPerThread = intOption(args, "regs", 0, 1024, true);
    launch.sharedBytesPerBlock = intOption(args, "smem", 0, 1 << 30, false);
    launch.carveoutPercent = intOption(args, "carveout", -1, 100, false, -1);
    auto o = theoreticalOccupancy(*sm, launch);
    if (args.flag("json")) {
        nlohmann::ordered_json j = {{"active_blocks_per_sm", o.activeBlocksPerSm},
                                    {"active_warps_per_sm", o.activeWarpsPerSm},
                                    {"occupancy", o.occupancy},
                                    {"limiter", toString(o.limiter)},
                                    {"max_warps_per_sm", o.maxWarpsPerSm},
                                    {"block_limit_warps", o.blockLimitWarps},
                                    {"block_limit_registers", o.blockLimitRegisters},
                                    {"block_limit_shared_memory", o.blockLimitSharedMemory},
                                    {"block_limit_blocks", o.blockLimitBlocks},
                                    {"registers_per_block", o.registersPerBlock},
                                    {"shared_memory_per_block", o.sharedBytesPerBlock},
                                    {"shared_memory_config_per_sm", o.smemConfigPerSm}};
        if (!o.problem.empty()) j["problem"] = o.problem;
        std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        return o.problem.empty() ? 0 : 1;
    }
    // A configuration that cannot launch is an error, not "limited by invalid".
    if (!o.problem.empty()) {
        std::cerr << "warpscope-cli occupancy: this launch cannot run on compute capability " << cc
                  << ": " << o.problem << '\n';
        return 1;
    }
    auto limit = [](int v) { return v > 1'000'000 ? std::string("-") : std::to_string(v); };
    std::cout << "compute capability " << cc << ", " << launch.threadsPerBlock << " threads, "
              << launch.registersPerThread << " registers/thread, " << launch.sharedBytesPerBlock
              << " B shared/block\n"
              << "occupancy " << std::fixed << std::setprecision(1) << o.occupancy * 100 << "% ("
              << o.activeWarpsPerSm << " of " << o.maxWarpsPerSm << " warps, "
              << o.activeBlocksPerSm << " blocks per SM), limited by " << describe(o.limiter)
              << '\n'
              << "block limits: warps " << limit(o.blockLimitWarps) << ", registers "
              << limit(o.blockLimitRegisters) << ", shared memory "
              << limit(o.blockLimitSharedMemory) << ", blocks " << limit(o.blockLimitBlocks)
              << '\n';
    return 0;
}

}  // namespace ws::cli
