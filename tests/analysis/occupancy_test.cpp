// The occupancy calculator against CUDA's own (cuda_occupancy.h, header-only,
// from the toolkit) over a broad sweep, and hand-checked cases; waves per SM
// and the tail effect as Nsight Compute's launch statistics count them.
#include <gtest/gtest.h>

#include "analysis/kernel_occupancy.h"
#include "analysis/kernel_summary.h"
#include "analysis/occupancy.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "support/fixture_store.h"
#include "support/temp_dir.h"

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

TEST(Occupancy, HandCheckedBlackwellCases) {
    // 10.0 (B200): per SM as 9.0.
    auto b200 = *limitsForComputeCapability(10, 0);
    EXPECT_EQ(b200.maxThreadsPerSm, 2048);
    EXPECT_EQ(b200.maxBlocksPerSm, 32);
    EXPECT_EQ(b200.smemPerSm, 228 * 1024);
    EXPECT_EQ(b200.smemPerBlockOptin, 227 * 1024);
    auto full = theoreticalOccupancy(b200, {256, 32, 0, -1});
    EXPECT_EQ(full.activeBlocksPerSm, 8);
    EXPECT_DOUBLE_EQ(full.occupancy, 1.0);
    auto smem = theoreticalOccupancy(b200, {128, 32, 100 * 1024, -1});
    EXPECT_EQ(smem.activeBlocksPerSm, 2);  // 2 x 101 KiB in the 228 KiB configuration
    EXPECT_EQ(smem.smemConfigPerSm, 228 * 1024);
    EXPECT_EQ(smem.limiter, OccupancyLimiter::SharedMemory);

    // 12.0 (RTX 50, RTX PRO 6000 Blackwell): 48 warps, 24 blocks, 100 KiB.
    auto rtx = *limitsForComputeCapability(12, 0);
    EXPECT_EQ(rtx.maxThreadsPerSm, 1536);
    EXPECT_EQ(rtx.maxBlocksPerSm, 24);
    EXPECT_EQ(rtx.smemPerSm, 100 * 1024);
    EXPECT_EQ(rtx.smemPerBlockOptin, 99 * 1024);
    auto warps = theoreticalOccupancy(rtx, {256, 32, 0, -1});
    EXPECT_EQ(warps.activeBlocksPerSm, 6);  // 48 warps / 8
    EXPECT_EQ(warps.maxWarpsPerSm, 48);
    EXPECT_DOUBLE_EQ(warps.occupancy, 1.0);
    EXPECT_EQ(warps.limiter, OccupancyLimiter::Warps);
    auto blocks = theoreticalOccupancy(rtx, {32, 16, 0, -1});
    EXPECT_EQ(blocks.activeBlocksPerSm, 24);
    EXPECT_DOUBLE_EQ(blocks.occupancy, 0.5);
    EXPECT_EQ(blocks.limiter, OccupancyLimiter::Blocks);
    // 48 KiB + 1 KiB reserved: two fit 100 KiB; 99 KiB is the most one block
    // may opt in to, 100 KiB cannot launch.
    EXPECT_EQ(theoreticalOccupancy(rtx, {128, 32, 48 * 1024, -1}).activeBlocksPerSm, 2);
    EXPECT_EQ(theoreticalOccupancy(rtx, {128, 32, 99 * 1024, -1}).activeBlocksPerSm, 1);
    EXPECT_EQ(theoreticalOccupancy(rtx, {128, 32, 100 * 1024, -1}).limiter,
              OccupancyLimiter::Invalid);
    // A 30 % carveout of 100 KiB is 30 KiB, rounded up to the 32 KiB configuration.
    EXPECT_EQ(theoreticalOccupancy(rtx, {128, 32, 8 * 1024, 30}).smemConfigPerSm, 32 * 1024);
}

TEST(LaunchWaves, WavesAndTailAsNsightComputeCountsThem) {
    // 132 SMs x 2 resident blocks: 264 blocks a wave.
    auto whole = *launchWaves(528, 2, 132);
    EXPECT_EQ(whole.blocksPerWave, 264);
    EXPECT_DOUBLE_EQ(whole.wavesPerSm, 2.0);
    EXPECT_EQ(whole.fullWaves, 2);
    EXPECT_FALSE(whole.hasTail());
    EXPECT_EQ(whole.partialWaveBlocks, 0);
    EXPECT_DOUBLE_EQ(whole.partialWaveFill, 0);
    EXPECT_DOUBLE_EQ(whole.tailDurationShare, 0);

    // 600 blocks: 2 full waves and 72 blocks, a last wave 27 % full that
    // still takes a whole wave's time: a third of the kernel.
    auto tail = *launchWaves(600, 2, 132);
    EXPECT_NEAR(tail.wavesPerSm, 2.27, 0.005);
    EXPECT_EQ(tail.fullWaves, 2);
    EXPECT_TRUE(tail.hasTail());
    EXPECT_EQ(tail.partialWaveBlocks, 72);
    EXPECT_NEAR(tail.partialWaveFill, 0.27, 0.005);
    EXPECT_DOUBLE_EQ(tail.tailDurationShare, 1.0 / 3.0);

    // One block over a wave: half the time in a wave of one block.
    auto oneOver = *launchWaves(265, 2, 132);
    EXPECT_EQ(oneOver.fullWaves, 1);
    EXPECT_EQ(oneOver.partialWaveBlocks, 1);
    EXPECT_DOUBLE_EQ(oneOver.tailDurationShare, 0.5);

    // Fewer blocks than a wave: no full wave, the whole kernel is the tail.
    auto small = *launchWaves(66, 2, 132);
    EXPECT_DOUBLE_EQ(small.wavesPerSm, 0.25);
    EXPECT_EQ(small.fullWaves, 0);
    EXPECT_DOUBLE_EQ(small.partialWaveFill, 0.25);
    EXPECT_DOUBLE_EQ(small.tailDurationShare, 1.0);

    // Nothing to count: a launch that cannot run, a device without SMs, no grid.
    EXPECT_FALSE(launchWaves(600, 0, 132));
    EXPECT_FALSE(launchWaves(600, 2, 0));
    EXPECT_FALSE(launchWaves(0, 2, 132));

    // Big grids stay whole: 2^31 - 1 blocks x 65535 do not overflow.
    auto huge = *launchWaves(std::int64_t(2147483647) * 65535, 32, 132);
    EXPECT_EQ(huge.fullWaves * huge.blocksPerWave + huge.partialWaveBlocks,
              std::int64_t(2147483647) * 65535);
}

TEST(LaunchWaves, TopKernelsCarryTheWavesOfTheirRecordedGrid) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto run = store.beginRun({});
    store.setDevice(run, testing::fixtureDevice());  // H200: 9.0, 132 SMs
    {
        StoreWriter w(store, run);
        // 256 threads at 128 registers: 2 blocks per SM, 264 a wave.
        KernelRecord k;
        k.startNs = 1000;
        k.endNs = 101'000;
        k.correlationId = 1;
        k.name = "_Z4gemmv";
        k.gridX = 300, k.gridY = 2;
        k.blockX = 256;
        k.registersPerThread = 128;
        w.add(k);
    }
    store.finishRun(run, RunStatus::Ok);
    auto occupancy = topKernelOccupancy(store, run, summarizeRun(store, run), {});
    ASSERT_EQ(occupancy.size(), 1u);
    EXPECT_EQ(occupancy[0].occupancy.activeBlocksPerSm, 2);
    EXPECT_EQ(occupancy[0].occupancy.limiter, OccupancyLimiter::Registers);
    ASSERT_TRUE(occupancy[0].waves);
    EXPECT_EQ(occupancy[0].waves->gridBlocks, 600);
    EXPECT_EQ(occupancy[0].waves->partialWaveBlocks, 72);
    EXPECT_DOUBLE_EQ(occupancy[0].waves->tailDurationShare, 1.0 / 3.0);
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
    for (auto [major, minor] :
         {std::pair{7, 0}, {7, 5}, {8, 0}, {8, 6}, {8, 7}, {8, 9}, {9, 0}, {10, 0}, {12, 0}}) {
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
