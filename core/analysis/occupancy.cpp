#include "analysis/occupancy.h"

#include <algorithm>
#include <climits>

namespace ws {

namespace {

int divUp(int x, int y) {
    return (x + y - 1) / y;
}
int roundUp(int x, int y) {
    return divUp(x, y) * y;
}

// Shared-memory configurations an SM can run with, in KiB.
std::vector<int> smemConfigsKiB(const SmLimits& sm) {
    switch (sm.ccMajor * 10 + sm.ccMinor) {
        case 70:
        case 72:
            return {0, 8, 16, 32, 64, 96};
        case 75:
            return {32, 64};
        case 80:
        case 87:
            return {0, 8, 16, 32, 64, 100, 132, 164};
        case 86:
        case 89:
            return {0, 8, 16, 32, 64, 100};
        // cudaOccAlignUpShmemSizeVoltaPlus in CUDA 13.0's cuda_occupancy.h:
        // 12.0 and 12.1 configure as 8.6 and 8.9; 10.0, 10.1, 10.3 and 11.0
        // as 9.0.
        case 120:
        case 121:
            return {0, 8, 16, 32, 64, 100};
        default:  // 9.0, 10.0
            return {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
    }
}

// The smallest configuration holding `bytes`, or -1 when none does.
int alignUpToConfig(const SmLimits& sm, int bytes) {
    for (int kib : smemConfigsKiB(sm))
        if (bytes <= kib * 1024) return kib * 1024;
    return -1;
}

}  // namespace

const char* describe(OccupancyLimiter limiter) {
    switch (limiter) {
        case OccupancyLimiter::Warps:
            return "warps per SM";
        case OccupancyLimiter::Registers:
            return "registers";
        case OccupancyLimiter::SharedMemory:
            return "shared memory";
        case OccupancyLimiter::Blocks:
            return "blocks per SM";
        case OccupancyLimiter::Invalid:
            return "an invalid launch";
    }
    return "an invalid launch";
}

const char* toString(OccupancyLimiter limiter) {
    switch (limiter) {
        case OccupancyLimiter::Warps:
            return "warps";
        case OccupancyLimiter::Registers:
            return "registers";
        case OccupancyLimiter::SharedMemory:
            return "shared_memory";
        case OccupancyLimiter::Blocks:
            return "blocks";
        case OccupancyLimiter::Invalid:
            return "invalid";
    }
    return "invalid";
}

std::optional<SmLimits> limitsForComputeCapability(int major, int minor) {
    SmLimits s;
    s.ccMajor = major;
    s.ccMinor = minor;
    switch (major * 10 + minor) {
        case 70:
        case 72:  // V100, Xavier
            s.maxThreadsPerSm = 2048, s.maxBlocksPerSm = 32, s.smemPerSm = 98304,
            s.smemPerBlockOptin = 98304, s.reservedSmemPerBlock = 0;
            return s;
        case 75:  // T4, RTX 20
            s.maxThreadsPerSm = 1024, s.maxBlocksPerSm = 16, s.smemPerSm = 65536,
            s.smemPerBlockOptin = 65536, s.reservedSmemPerBlock = 0;
            return s;
        case 80:  // A100
        case 87:  // Orin
            s.maxThreadsPerSm = 2048, s.maxBlocksPerSm = 32, s.smemPerSm = 167936,
            s.smemPerBlockOptin = 166912;
            if (minor == 7) s.maxThreadsPerSm = 1536, s.maxBlocksPerSm = 16;
            return s;
        case 86:  // RTX 30, A10, A40
            s.maxThreadsPerSm = 1536, s.maxBlocksPerSm = 16, s.smemPerSm = 102400,
            s.smemPerBlockOptin = 101376;
            return s;
        case 89:  // L4, L40S, RTX 40
            s.maxThreadsPerSm = 1536, s.maxBlocksPerSm = 24, s.smemPerSm = 102400,
            s.smemPerBlockOptin = 101376;
            return s;
        case 90:  // H100, H200
            return s;
        // Blackwell. Sources, each figure checked against at least two:
        // - NVIDIA's Blackwell Tuning Guide (docs.nvidia.com/cuda/blackwell-
        //   tuning-guide, "Occupancy"): 64 resident warps per SM for 10.0 and
        //   48 for 12.0, 64 K 32-bit registers per SM, 228 KB shared memory
        //   per SM for 10.0, at most 227 KB (10.0) and 99 KB (12.0) per block.
        // - CCCL's arch traits (libcudacxx cuda/__device/arch_traits.h), which
        //   follow the Programming Guide's "Technical Specifications per
        //   Compute Capability" table: sm_100 228 KB, sm_120 100 KB shared
        //   memory per SM, 1 KB reserved per block, opt-in = per SM - 1 KB.
        // - cuda_occupancy.h of CUDA 13.0 (cudaOccMaxBlocksPerMultiprocessor):
        //   32 resident blocks per SM for 10.0, 24 for 12.x. The tuning guide
        //   says 32 for 12.0, but CCCL corrected its sm_120 traits from 32 to
        //   24 after the guide's table (NVIDIA/cccl PR 6185): 24 it is.
        // - An RTX 5090 (12.0) reports 1536 threads and 102400 B per SM,
        //   101376 B per block opted in.
        case 100:  // B200, GB200 (sm_100): per SM as 9.0, the defaults
            return s;
        case 120:  // RTX 50, RTX PRO 6000 Blackwell (sm_120)
            s.maxThreadsPerSm = 1536, s.maxBlocksPerSm = 24, s.smemPerSm = 102400,
            s.smemPerBlockOptin = 101376;
            return s;
        default:
            return std::nullopt;
    }
}

SmLimits limitsOf(const DeviceInfo& d) {
    SmLimits s = limitsForComputeCapability(d.ccMajor, d.ccMinor).value_or(SmLimits{});
    s.ccMajor = d.ccMajor;
    s.ccMinor = d.ccMinor;
    if (d.warpSize) s.warpSize = d.warpSize;
    if (d.maxWarpsPerSm) s.maxThreadsPerSm = d.maxWarpsPerSm * s.warpSize;
    if (d.maxThreadsPerBlock) s.maxThreadsPerBlock = d.maxThreadsPerBlock;
    if (d.maxBlocksPerSm) s.maxBlocksPerSm = d.maxBlocksPerSm;
    if (d.regsPerSm) s.regsPerSm = d.regsPerSm;
    if (d.regsPerBlock) s.regsPerBlock = d.regsPerBlock;
    if (d.smemPerSm) s.smemPerSm = d.smemPerSm;
    if (d.smemPerBlock) s.smemPerBlock = d.smemPerBlock;
    if (d.smemPerBlockOptin) s.smemPerBlockOptin = d.smemPerBlockOptin;
    if (d.ccMajor >= 8) s.reservedSmemPerBlock = d.reservedSmemPerBlock;
    return s;
}

Occupancy theoreticalOccupancy(const SmLimits& sm, const LaunchResources& launch) {
    Occupancy o;
    o.maxWarpsPerSm = sm.maxThreadsPerSm / sm.warpSize;
    if (launch.threadsPerBlock <= 0 || launch.threadsPerBlock > sm.maxThreadsPerBlock) {
        o.problem = "block size outside 1.." + std::to_string(sm.maxThreadsPerBlock);
        return o;
    }
    const int warpsPerBlock = divUp(launch.threadsPerBlock, sm.warpSize);

    // Warps and blocks.
    o.blockLimitWarps = o.maxWarpsPerSm / warpsPerBlock;
    o.blockLimitBlocks = sm.maxBlocksPerSm;

    // Registers: per warp in units of 256, spread over 4 sub-partitions.
    constexpr int kRegUnit = 256, kSubPartitions = 4, kMaxRegsPerThread = 256;
    int regsPerWarp = roundUp(launch.registersPerThread * sm.warpSize, kRegUnit);
    o.registersPerBlock = regsPerWarp * warpsPerBlock;
    int regsAssumed = regsPerWarp * roundUp(warpsPerBlock, kSubPartitions);
    if (launch.registersPerThread > kMaxRegsPerThread || sm.regsPerBlock < o.registersPerBlock ||
        sm.regsPerBlock < regsAssumed) {
        o.blockLimitRegisters = 0;
        o.problem = "too many registers per block";
    } else if (regsPerWarp == 0) {
        o.blockLimitRegisters = INT_MAX;
    } else {
        int warpsPerSubPartition = sm.regsPerSm / kSubPartitions / regsPerWarp;
        o.blockLimitRegisters = warpsPerSubPartition * kSubPartitions / warpsPerBlock;
    }

    // Shared memory: the reserved part counts, allocation is granular, and
    // the SM's configuration follows the carveout but grows to fit one block.
    const int granularity = sm.ccMajor >= 8 ? 128 : 256;
    int perBlock = launch.sharedBytesPerBlock + sm.reservedSmemPerBlock;
    o.sharedBytesPerBlock = roundUp(perBlock, granularity);
    // A block over the default per-block limit must have opted in to more.
    int blockLimit = (perBlock > sm.smemPerBlock ? sm.smemPerBlockOptin : sm.smemPerBlock) +
                     (sm.ccMajor >= 8 ? sm.reservedSmemPerBlock : 0);
    int preference =
        launch.carveoutPercent < 0
            ? sm.smemPerSm
            : static_cast<int>(static_cast<long long>(launch.carveoutPercent) * sm.smemPerSm / 100);
    preference = alignUpToConfig(sm, preference);
    if (o.sharedBytesPerBlock > blockLimit || preference < 0) {
        o.blockLimitSharedMemory = 0;
        if (o.problem.empty()) o.problem = "too much shared memory per block";
    } else {
        o.smemConfigPerSm = preference >= o.sharedBytesPerBlock
                                ? preference
                                : alignUpToConfig(sm, o.sharedBytesPerBlock);
        o.blockLimitSharedMemory =
            o.sharedBytesPerBlock > 0 ? o.smemConfigPerSm / o.sharedBytesPerBlock : INT_MAX;
    }

    o.activeBlocksPerSm = std::min(
        {o.blockLimitWarps, o.blockLimitRegisters, o.blockLimitSharedMemory, o.blockLimitBlocks});
    o.activeWarpsPerSm = o.activeBlocksPerSm * warpsPerBlock;
    o.occupancy = o.maxWarpsPerSm ? static_cast<double>(o.activeWarpsPerSm) / o.maxWarpsPerSm : 0;
    // The limiter a user can act on first; warps only when nothing else binds.
    if (o.activeBlocksPerSm == o.blockLimitRegisters)
        o.limiter = OccupancyLimiter::Registers;
    else if (o.activeBlocksPerSm == o.blockLimitSharedMemory)
        o.limiter = OccupancyLimiter::SharedMemory;
    else if (o.activeBlocksPerSm == o.blockLimitWarps)
        o.limiter = OccupancyLimiter::Warps;
    else
        o.limiter = OccupancyLimiter::Blocks;
    if (o.activeBlocksPerSm == o.blockLimitWarps && o.occupancy >= 1.0)
        o.limiter = OccupancyLimiter::Warps;
    if (o.activeBlocksPerSm == 0 && !o.problem.empty()) o.limiter = OccupancyLimiter::Invalid;
    return o;
}

std::vector<CurvePoint> occupancyVsBlockSize(const SmLimits& sm, LaunchResources launch) {
    std::vector<CurvePoint> out;
    for (int t = sm.warpSize; t <= sm.maxThreadsPerBlock; t += sm.warpSize) {
        launch.threadsPerBlock = t;
        out.push_back({t, theoreticalOccupancy(sm, launch).occupancy});
    }
    return out;
}

std::vector<CurvePoint> occupancyVsRegisters(const SmLimits& sm, LaunchResources launch) {
    std::vector<CurvePoint> out;
    for (int r = 8; r <= 255; r += 8) {
        launch.registersPerThread = r;
        out.push_back({r, theoreticalOccupancy(sm, launch).occupancy});
    }
    return out;
}

std::vector<CurvePoint> occupancyVsSharedMemory(const SmLimits& sm, LaunchResources launch) {
    std::vector<CurvePoint> out;
    int step = 2048;
    for (int b = 0; b <= sm.smemPerBlockOptin; b += step) {
        launch.sharedBytesPerBlock = b;
        out.push_back({b, theoreticalOccupancy(sm, launch).occupancy});
    }
    return out;
}

}  // namespace ws
