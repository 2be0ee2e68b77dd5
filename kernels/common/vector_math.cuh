// Small device helpers shared by the kernels: 16-byte loads into floats,
// dot products and warp reductions.
#pragma once

#include <cuda_bf16.h>

#include <cstdint>

namespace ws::kernels {

__device__ __forceinline__ void unpackBf16x8(uint4 raw, float out[8]) {
    const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&raw);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        float2 f = __bfloat1622float2(h[i]);
        out[2 * i] = f.x;
        out[2 * i + 1] = f.y;
    }
}

__device__ __forceinline__ void loadBf16x8(const __nv_bfloat16* p, float out[8]) {
    unpackBf16x8(__ldg(reinterpret_cast<const uint4*>(p)), out);
}

// A 16-byte read-only load that does not allocate in L1: for data streamed
// once (weights), so that it does not evict what the block reuses.
__device__ __forceinline__ uint4 loadStreaming16(const void* p) {
    uint4 r;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                 : "l"(p));
    return r;
}

// Loads through L1 without the read-only path: for data written by the same kernel.
__device__ __forceinline__ void loadBf16x8Coherent(const __nv_bfloat16* p, float out[8]) {
    unpackBf16x8(*reinterpret_cast<const uint4*>(p), out);
}

__device__ __forceinline__ void storeBf16x8(__nv_bfloat16* p, const float v[8]) {
    uint4 raw;
    __nv_bfloat162* h = reinterpret_cast<__nv_bfloat162*>(&raw);
#pragma unroll
    for (int i = 0; i < 4; ++i)
        h[i] = __floats2bfloat162_rn(v[2 * i], v[2 * i + 1]);
    *reinterpret_cast<uint4*>(p) = raw;
}

__device__ __forceinline__ void loadInt8x16(const std::int8_t* p, float out[16]) {
    int4 raw = __ldg(reinterpret_cast<const int4*>(p));
    const std::int8_t* b = reinterpret_cast<const std::int8_t*>(&raw);
#pragma unroll
    for (int i = 0; i < 16; ++i)
        out[i] = float(b[i]);
}

__device__ __forceinline__ float dot8(const float a[8], const float b[8]) {
    float s = 0;
#pragma unroll
    for (int i = 0; i < 8; ++i)
        s = fmaf(a[i], b[i], s);
    return s;
}

// Dot product of 8 packed bf16 (one 16-byte load) with 8 floats.
__device__ __forceinline__ float dot8Bf16(uint4 packed, const float b[8]) {
    const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&packed);
    float s = 0;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        float2 f = __bfloat1622float2(h[i]);
        s = fmaf(f.x, b[2 * i], s);
        s = fmaf(f.y, b[2 * i + 1], s);
    }
    return s;
}

__device__ __forceinline__ float warpSum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ __forceinline__ float warpMax(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

// Sum over a block of up to 32 warps; every thread gets the result.
__device__ __forceinline__ float blockSum(float v) {
    __shared__ float shared[32];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warpSum(v);
    __syncthreads();  // shared[] may still be read by a previous call
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    int warps = (blockDim.x + 31) / 32;
    v = lane < warps ? shared[lane] : 0.0f;
    return warpSum(v);
}

__device__ __forceinline__ float blockMax(float v) {
    __shared__ float shared[32];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warpMax(v);
    __syncthreads();
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    int warps = (blockDim.x + 31) / 32;
    v = lane < warps ? shared[lane] : -INFINITY;
    return warpMax(v);
}

}  // namespace ws::kernels
