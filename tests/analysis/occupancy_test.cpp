// The occupancy calculator against CUDA's own (cuda_occupancy.h, header-only,
// from the toolkit) over a broad sweep, and hand-checked cases.
#include <gtest/gtest.h>

#include "analysis/occupancy.h"

#if __has_include(<cuda_occupancy.h>)
#include <cuda_occupancy.h>
#define WARPSCOPE_HAVE_CUDA_OCCUPANCY 1
#endif

namespace ws {
namespace {

TEST(Occupancy, HandCheckedH100Cases) {
    auto sm = *limitsForComputeCapability(9, 0);
    // 256 threads, 32 registers, no shared memory: 8 blocks x 8 warps = 64 warps.
    auto full = theoreticalOccupancy(sm, {256, 32, 0, -1});
    EXPECT_EQ(full.activeBlocksPerSm, 8);
    EXPECT_EQ(full.activeWarpsPerSm, 64);
    EXPECT_DOUBLE_EQ(full.occupancy, 1.0);
    EXPECT_EQ(full.limiter, OccupancyLimiter::Warps);
    // 128 registers: 128*32 = 4096 per warp, 16384/4096 = 4 warps per
    // sub-partition, 16 per SM: 2 blocks of 8 warps, 25%.
    auto regs = theoreticalOccupancy(sm, {256, 128, 0, -1});
    EXPECT_EQ(regs.activeBlocksPerSm, 2);
    EXPECT_DOUBLE_EQ(regs.occupancy, 0.25);
    EXPECT_EQ(regs.limiter, OccupancyLimiter::Registers);
    // 100 KiB shared + 1 KiB reserved per block: two blocks fit 228 KiB.
    auto smem = theoreticalOccupancy(sm, {128, 32, 100 * 1024, -1});
    EXPECT_EQ(smem.activeBlocksPerSm, 2);
    EXPECT_EQ(smem.sharedBytesPerBlock, 101 * 1024);
    EXPECT_EQ(smem.limiter, OccupancyLimiter::SharedMemory);
    // 32-thread blocks with few resources: the 32-block limit binds.
    auto blocks = theoreticalOccupancy(sm, {32, 16, 0, -1});
    EXPECT_EQ(blocks.activeBlocksPerSm, 32);
    EXPECT_DOUBLE_EQ(blocks.occupancy, 0.5);
    EXPECT_EQ(blocks.limiter, OccupancyLimiter::Blocks);
    // Impossible launches.
    EXPECT_EQ(theoreticalOccupancy(sm, {2048, 32, 0, -1}).activeBlocksPerSm, 0);
    EXPECT_EQ(theoreticalOccupancy(sm, {1024, 255, 0, -1}).limiter, OccupancyLimiter::Invalid);
    EXPECT_EQ(theoreticalOccupancy(sm, {128, 32, 240 * 1024, -1}).activeBlocksPerSm, 0);
    EXPECT_FALSE(limitsForComputeCapability(6, 1).has_value());
}

TEST(Occupancy, WhatIfCurvesCoverTheRange) {
    auto sm = *limitsForComputeCapability(9, 0);
    auto bs = occupancyVsBlockSize(sm, {256, 64, 0, -1});
    EXPECT_EQ(bs.size(), 32u);
    EXPECT_EQ(bs.front().x, 32);
    auto regs = occupancyVsRegisters(sm, {256, 64, 0, -1});
    EXPECT_DOUBLE_EQ(regs.front().occupancy, 1.0);
    EXPECT_LT(regs.back().occupancy, 0.2);
    auto smem = occupancyVsSharedMemory(sm, {256, 32, 0, -1});
    EXPECT_DOUBLE_EQ(smem.front().occupancy, 1.0);
}

#ifdef WARPSCOPE_HAVE_CUDA_OCCUPANCY
cudaOccDeviceProp toOcc(const SmLimits& s) {
    cudaOccDeviceProp p;
    p.computeMajor = s.ccMajor;
    p.computeMinor = s.ccMinor;
    p.maxThreadsPerBlock = s.maxThreadsPerBlock;
    p.maxThreadsPerMultiprocessor = s.maxThreadsPerSm;
    p.regsPerBlock = s.regsPerBlock;
    p.regsPerMultiprocessor = s.regsPerSm;
    p.warpSize = s.warpSize;
    p.sharedMemPerBlock = static_cast<size_t>(s.smemPerBlock);
    p.sharedMemPerMultiprocessor = static_cast<size_t>(s.smemPerSm);
    p.numSms = 132;
    p.sharedMemPerBlockOptin = static_cast<size_t>(s.smemPerBlockOptin);
    p.reservedSharedMemPerBlock = static_cast<size_t>(s.reservedSmemPerBlock);
    return p;
}
#endif

TEST(Occupancy, MatchesCudaOccupancyCalculatorOverSweep) {
#ifndef WARPSCOPE_HAVE_CUDA_OCCUPANCY
    GTEST_SKIP() << "cuda_occupancy.h (CUDA toolkit) not available";
#else
    int compared = 0, mismatches = 0;
    for (auto [major, minor] : {std::pair{7, 0}, {7, 5}, {8, 0}, {8, 6}, {8, 7}, {8, 9}, {9, 0}}) {
        auto sm = *limitsForComputeCapability(major, minor);
        auto prop = toOcc(sm);
        for (int threads = 32; threads <= 1024; threads += 32)
            for (int regs : {0, 16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 128, 168, 200, 255})
                for (int smem = 0; smem <= sm.smemPerBlockOptin; smem += 5 * 1024 + 384)
                    for (int carveout : {-1, 0, 25, 50, 100}) {
                        cudaOccFuncAttributes attr;
                        attr.maxThreadsPerBlock = 1024;
                        attr.numRegs = regs;
                        attr.sharedSizeBytes = 0;
                        attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
                        attr.maxDynamicSharedSizeBytes = static_cast<size_t>(smem);
                        attr.numBlockBarriers = 1;
                        cudaOccDeviceState state;
                        state.carveoutConfig = carveout;
                        cudaOccResult result{};
                        auto err = cudaOccMaxActiveBlocksPerMultiprocessor(
                            &result, &prop, &attr, &state, threads, static_cast<size_t>(smem));
                        int expected =
                            err == CUDA_OCC_SUCCESS ? result.activeBlocksPerMultiprocessor : 0;
                        auto ours = theoreticalOccupancy(sm, {threads, regs, smem, carveout});
                        ++compared;
                        if (ours.activeBlocksPerSm != expected && ++mismatches <= 10)
                            ADD_FAILURE()
                                << "cc " << major << "." << minor << " threads " << threads
                                << " regs " << regs << " smem " << smem << " carveout " << carveout
                                << ": ours " << ours.activeBlocksPerSm << ", CUDA " << expected
                                << " (err " << err << ")";
                    }
    }
    EXPECT_EQ(mismatches, 0) << "of " << compared;
    EXPECT_GT(compared, 200000);
#endif
}

}  // namespace
}  // namespace ws
