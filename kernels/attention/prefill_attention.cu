#include <stdexcept>

#include "attention/attention.h"
#include "common/cuda_check.h"
#include "common/vector_math.cuh"

namespace ws::kernels {

namespace {

constexpr float kLog2e = 1.4426950408889634f;

template <int HD>
__global__ void prefillNaive(const __nv_bfloat16* qkv, int qStride, const __nv_bfloat16* kCache,
                             const __nv_bfloat16* vCache, __nv_bfloat16* out, int queries,
                             int heads, int kvHeads, int capacity, int firstPosition,
                             float scaleLog2) {
    int h = blockIdx.y, b = blockIdx.z;
    int qi = blockIdx.x * blockDim.x + threadIdx.x;
    if (qi >= queries) return;
    int kvh = h / (heads / kvHeads);
    const __nv_bfloat16* q = qkv + (std::size_t(b) * queries + qi) * qStride + h * HD;
    std::size_t base = (std::size_t(b) * kvHeads + kvh) * capacity * HD;
    float m = -INFINITY, l = 0, acc[HD] = {};
    for (int j = 0; j <= firstPosition + qi; ++j) {
        float s = 0;
        for (int d = 0; d < HD; ++d)
            s += __bfloat162float(q[d]) * __bfloat162float(kCache[base + std::size_t(j) * HD + d]);
        s *= scaleLog2;
        float mNew = fmaxf(m, s), corr = exp2f(m - mNew), p = exp2f(s - mNew);
        l = l * corr + p;
        for (int d = 0; d < HD; ++d)
            acc[d] = acc[d] * corr + p * __bfloat162float(vCache[base + std::size_t(j) * HD + d]);
        m = mNew;
    }
    __nv_bfloat16* o = out + (std::size_t(b) * queries + qi) * heads * HD + h * HD;
    for (int d = 0; d < HD; ++d)
        o[d] = __float2bfloat16(acc[d] / l);
}

constexpr int kQueryTile = 64, kKeyTile = 64;

template <int HD>
__global__ void __launch_bounds__(256)
    prefillFlash(const __nv_bfloat16* __restrict__ qkv, int qStride,
                 const __nv_bfloat16* __restrict__ kCache, const __nv_bfloat16* __restrict__ vCache,
                 __nv_bfloat16* __restrict__ out, int queries, int heads, int kvHeads, int capacity,
                 int firstPosition, float scaleLog2) {
    constexpr int S = HD / 4;  // each of a query's 4 threads owns S dimensions
    __shared__ __align__(16) __nv_bfloat16 ks[kKeyTile][HD];
    __shared__ __align__(16) __nv_bfloat16 vs[kKeyTile][HD];
    int h = blockIdx.y, b = blockIdx.z, kvh = h / (heads / kvHeads);
    int tid = threadIdx.x, part = tid % 4;
    int qi = blockIdx.x * kQueryTile + tid / 4;
    bool active = qi < queries;
    int myPos = firstPosition + (active ? qi : queries - 1);
    int lastPos = firstPosition + min(queries, int(blockIdx.x + 1) * kQueryTile) - 1;

    float qv[S], acc[S] = {};
    const __nv_bfloat16* q =
        qkv + (std::size_t(b) * queries + (active ? qi : 0)) * qStride + h * HD + part * S;
#pragma unroll
    for (int c = 0; c < S / 8; ++c) {
        loadBf16x8(q + c * 8, qv + c * 8);
#pragma unroll
        for (int j = 0; j < 8; ++j)
            qv[c * 8 + j] *= scaleLog2;
    }
    std::size_t base = (std::size_t(b) * kvHeads + kvh) * capacity * HD;
    float m = -INFINITY, l = 0;
    for (int t0 = 0; t0 <= lastPos; t0 += kKeyTile) {
        for (int c = tid; c < kKeyTile * HD / 8; c += 256) {
            int j = c / (HD / 8), d = (c % (HD / 8)) * 8, key = t0 + j;
            uint4 kv = {0, 0, 0, 0}, vv = {0, 0, 0, 0};
            if (key <= lastPos) {
                kv = __ldg(
                    reinterpret_cast<const uint4*>(kCache + base + std::size_t(key) * HD + d));
                vv = __ldg(
                    reinterpret_cast<const uint4*>(vCache + base + std::size_t(key) * HD + d));
            }
            *reinterpret_cast<uint4*>(&ks[j][d]) = kv;
            *reinterpret_cast<uint4*>(&vs[j][d]) = vv;
        }
        __syncthreads();
        float s[kKeyTile], tileMax = -INFINITY;
#pragma unroll
        for (int j = 0; j < kKeyTile; ++j) {
            float dot = 0;
#pragma unroll
            for (int c = 0; c < S / 8; ++c) {
                float kf[8];
                loadBf16x8Coherent(&ks[j][part * S + c * 8], kf);
                dot += dot8(kf, qv + c * 8);
            }
            dot += __shfl_xor_sync(0xffffffffu, dot, 1);
            dot += __shfl_xor_sync(0xffffffffu, dot, 2);
            s[j] = t0 + j <= myPos ? dot : -INFINITY;
            tileMax = fmaxf(tileMax, s[j]);
        }
        float mNew = fmaxf(m, tileMax);
        if (mNew != -INFINITY) {
            float corr = exp2f(m - mNew);
            l *= corr;
#pragma unroll
            for (int d = 0; d < S; ++d)
                acc[d] *= corr;
#pragma unroll
            for (int j = 0; j < kKeyTile; ++j) {
                float p = exp2f(s[j] - mNew);
                l += p;
#pragma unroll
                for (int c = 0; c < S / 8; ++c) {
                    float vf[8];
                    loadBf16x8Coherent(&vs[j][part * S + c * 8], vf);
#pragma unroll
                    for (int d = 0; d < 8; ++d)
                        acc[c * 8 + d] = fmaf(p, vf[d], acc[c * 8 + d]);
                }
            }
            m = mNew;
        }
        __syncthreads();
    }
    if (!active) return;
    __nv_bfloat16* o = out + (std::size_t(b) * queries + qi) * heads * HD + h * HD + part * S;
    float inv = 1.0f / l;
#pragma unroll
    for (int c = 0; c < S / 8; ++c) {
        float v[8];
#pragma unroll
        for (int d = 0; d < 8; ++d)
            v[d] = acc[c * 8 + d] * inv;
        storeBf16x8(o + c * 8, v);
    }
}

template <int HD>
void launchPrefill(PrefillAttentionRung rung, const __nv_bfloat16* qkv, int qStride,
                   const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* out,
                   const AttentionShape& sh, int queries, int firstPosition, cudaStream_t s) {
    float scaleLog2 = kLog2e / sqrtf(float(HD));
    if (rung == PrefillAttentionRung::Naive) {
        dim3 grid((queries + 63) / 64, sh.heads, sh.batch);
        prefillNaive<HD><<<grid, 64, 0, s>>>(qkv, qStride, k, v, out, queries, sh.heads, sh.kvHeads,
                                             sh.capacity, firstPosition, scaleLog2);
    } else {
        dim3 grid((queries + kQueryTile - 1) / kQueryTile, sh.heads, sh.batch);
        prefillFlash<HD><<<grid, 256, 0, s>>>(qkv, qStride, k, v, out, queries, sh.heads,
                                              sh.kvHeads, sh.capacity, firstPosition, scaleLog2);
    }
    WS_CUDA_LAUNCHED();
}

}  // namespace

void prefillAttention(PrefillAttentionRung rung, const __nv_bfloat16* qkv, int qStride,
                      const __nv_bfloat16* kCache, const __nv_bfloat16* vCache, __nv_bfloat16* out,
                      const AttentionShape& shape, int queries, int firstPosition, cudaStream_t s) {
    if (shape.heads % shape.kvHeads != 0 || queries < 1 || firstPosition + queries > shape.capacity)
        throw std::invalid_argument("prefill attention: bad shape or positions beyond the cache");
    if (rung == PrefillAttentionRung::FlashMma) {
        prefillAttentionMma(qkv, qStride, kCache, vCache, out, shape, queries, firstPosition, s);
        return;
    }
    if (shape.headDim == 64)
        launchPrefill<64>(rung, qkv, qStride, kCache, vCache, out, shape, queries, firstPosition,
                          s);
    else if (shape.headDim == 128)
        launchPrefill<128>(rung, qkv, qStride, kCache, vCache, out, shape, queries, firstPosition,
                           s);
    else
        throw std::invalid_argument("prefill attention: head_dim " + std::to_string(shape.headDim) +
                                    " (supported: 64, 128)");
}

}  // namespace ws::kernels
