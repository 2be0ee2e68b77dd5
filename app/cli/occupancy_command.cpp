// warpscope-cli occupancy: the theoretical occupancy of a launch configuration
// and, given the grid and the GPU's SM count, its waves and tail effect.
#include <charconv>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis/kernel_occupancy.h"
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
// The largest grid CUDA launches: (2^31 - 1) x 65535 x 65535 blocks.
constexpr long long kMaxGridBlocks = 2147483647LL * 65535 * 65535;
}  // namespace

int cmdOccupancy(const std::vector<std::string>& argv) {
    auto args = Args::parse(
        argv, {{"json"}, {"cc", "threads", "regs", "smem", "carveout", "grid", "sms"}, 0, 0});
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
                         "8.7, 8.9, 9.0, 10.0, 12.0)");
    LaunchResources launch;
    launch.threadsPerBlock = intOption(args, "threads", 1, 1 << 20, true);
    launch.registersPerThread = intOption(args, "regs", 0, 1024, true);
    launch.sharedBytesPerBlock = intOption(args, "smem", 0, 1 << 30, false);
    launch.carveoutPercent = intOption(args, "carveout", -1, 100, false, -1);
    // Waves need the SM count, which the compute capability does not fix (an
    // H100 SXM has 132, an H100 PCIe 114): both or neither.
    if (args.value("grid").has_value() != args.value("sms").has_value())
        throw UsageError(
            "--grid BLOCKS and --sms N go together: waves per SM are the grid over resident "
            "blocks per SM x SMs (132 on an H100 SXM or H200, 148 on a B200, 170 on an RTX 5090)");
    long long gridBlocks = 0;
    int smCount = 0;
    if (auto grid = args.value("grid")) {
        gridBlocks = parseInteger("grid", *grid, 1, kMaxGridBlocks);
        smCount = intOption(args, "sms", 1, 1 << 16, true);
    }
    auto o = theoreticalOccupancy(*sm, launch);
    auto waves = launchWaves(gridBlocks, o.activeBlocksPerSm, smCount);
    if (args.flag("json")) {
        nlohmann::ordered_json j = {{"active_blocks_per_sm", o.activeBlocksPerSm},
                                    {"active_warps_per_sm", o.activeWarpsPerSm},
                                    {"occupancy", o.occupancy},
                                    {"limiter", toString(o.limiter)}};
        // Beside the limiter, as Nsight Compute's launch statistics: with
        // --grid and --sms only.
        if (waves) {
            j["waves_per_sm"] = waves->wavesPerSm;
            j["blocks_per_wave"] = waves->blocksPerWave;
            j["full_waves"] = waves->fullWaves;
            j["tail_wave_blocks"] = waves->partialWaveBlocks;
            j["tail_wave_fill"] = waves->partialWaveFill;
            j["tail_duration_share"] = waves->tailDurationShare;
        }
        j["max_warps_per_sm"] = o.maxWarpsPerSm;
        j["block_limit_warps"] = o.blockLimitWarps;
        j["block_limit_registers"] = o.blockLimitRegisters;
        j["block_limit_shared_memory"] = o.blockLimitSharedMemory;
        j["block_limit_blocks"] = o.blockLimitBlocks;
        j["registers_per_block"] = o.registersPerBlock;
        j["shared_memory_per_block"] = o.sharedBytesPerBlock;
        j["shared_memory_config_per_sm"] = o.smemConfigPerSm;
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
              << '\n';
    if (waves) {
        std::cout << "waves per SM " << std::setprecision(2) << waves->wavesPerSm << " ("
                  << waves->gridBlocks << " blocks, " << waves->blocksPerWave << " a wave on "
                  << smCount << " SMs): " << std::setprecision(1);
        if (!waves->hasTail())
            std::cout << waves->fullWaves << " full waves, no partial wave\n";
        else if (waves->fullWaves == 0)
            std::cout << "one partial wave, " << waves->partialWaveFill * 100
                      << "% full, for all of the kernel's time\n";
        else
            // The partial wave takes a whole wave's time with idle SM slots.
            std::cout << waves->fullWaves << " full waves and a partial wave of "
                      << waves->partialWaveBlocks << " blocks, " << waves->partialWaveFill * 100
                      << "% full: up to " << waves->tailDurationShare * 100
                      << "% of the kernel's time, blocks taking equally long\n";
    }
    std::cout << "block limits: warps " << limit(o.blockLimitWarps) << ", registers "
              << limit(o.blockLimitRegisters) << ", shared memory "
              << limit(o.blockLimitSharedMemory) << ", blocks " << limit(o.blockLimitBlocks)
              << '\n';
    return 0;
}

}  // namespace ws::cli
