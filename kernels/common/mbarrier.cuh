// Shared-memory transaction barriers and bulk (TMA) copies into shared memory,
// as the Hopper rungs use them (sm_90).
#pragma once

#include "common/mma.cuh"

namespace ws::kernels {

__device__ __forceinline__ void barrierInit(unsigned long long* bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smemAddress(bar)), "r"(count)
                 : "memory");
}
// Makes initialized barriers visible to the copy engine (the async proxy).
__device__ __forceinline__ void barrierInitFence() {
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
__device__ __forceinline__ void barrierArrive(unsigned long long* bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smemAddress(bar)) : "memory");
}
// Arrives and announces `bytes` that copies will complete on this barrier.
__device__ __forceinline__ void barrierExpect(unsigned long long* bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smemAddress(bar)),
                 "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ void barrierWait(unsigned long long* bar, unsigned parity) {
    unsigned done = 0;
    while (!done)
        asm volatile(
            "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; "
            "selp.u32 %0, 1, 0, p; }\n"
            : "=r"(done)
            : "r"(smemAddress(bar)), "r"(parity)
            : "memory");
}

// Copies `bytes` (a multiple of 16) from global to shared memory, completing
// on `bar`.
__device__ __forceinline__ void bulkCopy(void* smem, const void* global, unsigned bytes,
                                         unsigned long long* bar) {
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
        "[%3];\n" ::"r"(smemAddress(smem)),
        "l"(global), "r"(bytes), "r"(smemAddress(bar))
        : "memory");
}

}  // namespace ws::kernels
