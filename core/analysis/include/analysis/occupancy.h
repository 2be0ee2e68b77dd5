// Theoretical occupancy by the rules of CUDA's occupancy calculator
// (cuda_occupancy.h), for compute capabilities 7.0 to 9.0, 10.0 and 12.0: registers are
// allocated per warp in 256-register units within 4 sub-partitions, shared
// memory in 128/256-byte units plus the driver's reserved bytes per block,
// and the SM's shared-memory configuration follows the carveout.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/records.h"

namespace ws {

struct SmLimits {
    int ccMajor = 9, ccMinor = 0;
    int warpSize = 32;
    int maxThreadsPerSm = 2048;
    int maxThreadsPerBlock = 1024;
    int maxBlocksPerSm = 32;
    int regsPerSm = 65536;
    int regsPerBlock = 65536;
    int smemPerSm = 233472;    // the largest shared-memory configuration
    int smemPerBlock = 49152;  // without opt-in
    int smemPerBlockOptin = 232448;
    int reservedSmemPerBlock = 1024;  // taken by the driver from every block
};

// Limits of a compute capability as CUDA reports them for its GPUs; nullopt
// for one not in 7.0, 7.2, 7.5, 8.0, 8.6, 8.7, 8.9, 9.0, 10.0, 12.0.
std::optional<SmLimits> limitsForComputeCapability(int major, int minor);
// Limits as a recorded device reported them.
SmLimits limitsOf(const DeviceInfo& device);

struct LaunchResources {
    int threadsPerBlock = 0;
    int registersPerThread = 0;
    int sharedBytesPerBlock = 0;  // static + dynamic, without the reserved part
    int carveoutPercent = -1;     // -1 = driver default (largest configuration)
};

enum class OccupancyLimiter { Warps, Registers, SharedMemory, Blocks, Invalid };
const char* toString(OccupancyLimiter limiter);  // machine-readable: "shared_memory"
// For people: "shared memory", "blocks per SM".
const char* describe(OccupancyLimiter limiter);

struct Occupancy {
    int activeBlocksPerSm = 0;
    int activeWarpsPerSm = 0;
    int maxWarpsPerSm = 0;
    double occupancy = 0;  // active warps / max warps, 0-1
    OccupancyLimiter limiter = OccupancyLimiter::Invalid;
    int blockLimitWarps = 0, blockLimitRegisters = 0, blockLimitSharedMemory = 0,
        blockLimitBlocks = 0;
    int registersPerBlock = 0;    // as allocated
    int sharedBytesPerBlock = 0;  // as allocated, reserved part included
    int smemConfigPerSm = 0;      // shared-memory configuration the SM runs with
    std::string problem;          // why a launch cannot run, when it cannot
};

Occupancy theoreticalOccupancy(const SmLimits& sm, const LaunchResources& launch);

// What-if curves as in Nsight Compute's occupancy section: occupancy while one
// resource varies and the others stay as launched.
struct CurvePoint {
    int x = 0;
    double occupancy = 0;
};
std::vector<CurvePoint> occupancyVsBlockSize(const SmLimits& sm, LaunchResources launch);
std::vector<CurvePoint> occupancyVsRegisters(const SmLimits& sm, LaunchResources launch);
std::vector<CurvePoint> occupancyVsSharedMemory(const SmLimits& sm, LaunchResources launch);

}  // namespace ws
