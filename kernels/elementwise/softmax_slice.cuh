// A softmax row slice held in registers, as the one-block and the cluster
// rungs share it.
#pragma once

#include <cuda_bf16.h>

namespace ws::kernels {

// A row slice of up to THREADS × 8 × CHUNKS elements held in registers: each
// thread keeps chunks threadIdx.x, + THREADS, … of 8 bf16 (one 16-byte load
// each); `chunks` of the slice's 8-element chunks are valid.
template <int THREADS, int CHUNKS>
__device__ __forceinline__ void loadSlice(uint4 (&raw)[CHUNKS], const __nv_bfloat16* in,
                                          int chunks) {
#pragma unroll
    for (int i = 0; i < CHUNKS; ++i) {
        int c = threadIdx.x + i * THREADS;
        raw[i] = c < chunks ? __ldg(reinterpret_cast<const uint4*>(in) + c) : uint4{0, 0, 0, 0};
    }
}

// Calls f(pair) for each pair of elements this thread holds.
template <int THREADS, int CHUNKS, typename F>
__device__ __forceinline__ void forEachPair(const uint4 (&raw)[CHUNKS], int chunks, F&& f) {
#pragma unroll
    for (int i = 0; i < CHUNKS; ++i) {
        if (threadIdx.x + i * THREADS >= chunks) break;
        const auto* h = reinterpret_cast<const __nv_bfloat162*>(&raw[i]);
#pragma unroll
        for (int j = 0; j < 4; ++j)
            f(__bfloat1622float2(h[j]));
    }
}

template <int THREADS, int CHUNKS>
__device__ __forceinline__ float sliceMax(const uint4 (&raw)[CHUNKS], int chunks) {
    float m = -INFINITY;
    forEachPair<THREADS>(raw, chunks, [&](float2 v) { m = fmaxf(m, fmaxf(v.x, v.y)); });
    return m;
}

template <int THREADS, int CHUNKS>
__device__ __forceinline__ float sliceExpSum(const uint4 (&raw)[CHUNKS], int chunks, float m) {
    float s = 0;
    forEachPair<THREADS>(raw, chunks, [&](float2 v) { s += __expf(v.x - m) + __expf(v.y - m); });
    return s;
}

template <int THREADS, int CHUNKS>
__device__ __forceinline__ void storeSliceSoftmax(const uint4 (&raw)[CHUNKS], int chunks,
                                                  __nv_bfloat16* out, float m, float inv) {
#pragma unroll
    for (int i = 0; i < CHUNKS; ++i) {
        int c = threadIdx.x + i * THREADS;
        if (c >= chunks) break;
        uint4 packed = raw[i];
        auto* h = reinterpret_cast<__nv_bfloat162*>(&packed);
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            float2 f = __bfloat1622float2(h[j]);
            h[j] = __floats2bfloat162_rn(__expf(f.x - m) * inv, __expf(f.y - m) * inv);
        }
        reinterpret_cast<uint4*>(out)[c] = packed;
    }
}

}  // namespace ws::kernels
