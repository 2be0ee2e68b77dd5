#include <stdexcept>

#include "attention/attention.h"
#include "attention/decode_split.cuh"
#include "common/cuda_check.h"
#include "common/vector_math.cuh"

namespace ws::kernels {

namespace {

using decode_split::kMaxGroup;
using decode_split::kSplitKeys;  // 4 warps × 32 keys per block here
using decode_split::splitsFor;

constexpr float kLog2e = 1.4426950408889634f;
constexpr int kMaxNaiveSmem = 200 * 1024;

template <int HD>
__global__ void decodeNaive(const __nv_bfloat16* qkv, int qStride, const __nv_bfloat16* kCache,
                            const __nv_bfloat16* vCache, __nv_bfloat16* out, int heads, int kvHeads,
                            int capacity, const int* contextLength, float scaleLog2) {
    extern __shared__ float scores[];
    int h = blockIdx.x, b = blockIdx.y, kvh = h / (heads / kvHeads);
    int ctx = *contextLength;
    const __nv_bfloat16* q = qkv + std::size_t(b) * qStride + h * HD;
    std::size_t base = (std::size_t(b) * kvHeads + kvh) * capacity * HD;
    float mx = -INFINITY;
    for (int j = threadIdx.x; j < ctx; j += blockDim.x) {
        float s = 0;
        for (int d = 0; d < HD; ++d)
            s += __bfloat162float(q[d]) * __bfloat162float(kCache[base + std::size_t(j) * HD + d]);
        scores[j] = s * scaleLog2;
        mx = fmaxf(mx, scores[j]);
    }
    mx = blockMax(mx);
    float sum = 0;
    for (int j = threadIdx.x; j < ctx; j += blockDim.x) {
        scores[j] = exp2f(scores[j] - mx);
        sum += scores[j];
    }
    sum = blockSum(sum);  // also makes every score visible to every thread
    for (int d = threadIdx.x; d < HD; d += blockDim.x) {
        float acc = 0;
        for (int j = 0; j < ctx; ++j)
            acc += scores[j] * __bfloat162float(vCache[base + std::size_t(j) * HD + d]);
        out[std::size_t(b) * heads * HD + h * HD + d] = __float2bfloat16(acc / sum);
    }
}

// Block (split, kv head, request). Scores lane-per-key (each lane walks one K
// row with 16-byte loads, q from shared memory as a broadcast), values
// lane-per-dimension (a warp reads each V row coalesced).
template <int HD>
__global__ void __launch_bounds__(128)
    decodeSplit(const __nv_bfloat16* __restrict__ qkv, int qStride,
                const __nv_bfloat16* __restrict__ kCache, const __nv_bfloat16* __restrict__ vCache,
                float* __restrict__ partialMl, float* __restrict__ partialAcc, int heads,
                int kvHeads, int capacity, const int* __restrict__ contextLength, int splits,
                float scaleLog2) {
    constexpr int DPL = HD / 32;  // dimensions per lane in the value phase
    int ctx = *contextLength;
    int split = blockIdx.x, kvh = blockIdx.y, b = blockIdx.z;
    int key0 = split * kSplitKeys;
    if (key0 >= ctx) return;
    int group = heads / kvHeads;
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

    __shared__ __align__(16) float qs[kMaxGroup][HD];
    __shared__ float ps[4][kMaxGroup][32];
    __shared__ float wm[4][kMaxGroup], wl[4][kMaxGroup];
    __shared__ float wacc[4][kMaxGroup][HD];
    for (int i = threadIdx.x; i < group * HD; i += blockDim.x) {
        int g = i / HD, d = i % HD;
        qs[g][d] = __bfloat162float(qkv[std::size_t(b) * qStride + (kvh * group + g) * HD + d]) *
                   scaleLog2;
    }
    __syncthreads();

    std::size_t base = (std::size_t(b) * kvHeads + kvh) * capacity * HD;
    int key = key0 + warp * 32 + lane;
    bool valid = key < ctx;
    // Every V row this warp will weigh is requested now, with the K rows below:
    // one memory round trip per block instead of one per batch of rows (the
    // difference between ~15 µs and a few µs per call at short contexts).
    int keys = min(32, ctx - (key0 + warp * 32));
    __nv_bfloat162 vraw[32][DPL / 2];
#pragma unroll
    for (int j = 0; j < 32; ++j) {
        int row = min(key0 + warp * 32 + j, ctx - 1);  // always a written cache row
        const auto* v = reinterpret_cast<const __nv_bfloat162*>(vCache + base +
                                                                std::size_t(row) * HD + lane * DPL);
#pragma unroll
        for (int w = 0; w < DPL / 2; ++w)
            vraw[j][w] = v[w];
    }
    float s[kMaxGroup];
#pragma unroll
    for (int g = 0; g < kMaxGroup; ++g)
        s[g] = 0;
    if (valid) {
#pragma unroll
        for (int c = 0; c < HD / 8; ++c) {
            float kf[8];
            loadBf16x8(kCache + base + std::size_t(key) * HD + c * 8, kf);
#pragma unroll
            for (int g = 0; g < kMaxGroup; ++g)
                if (g < group) s[g] += dot8(kf, &qs[g][c * 8]);
        }
    }
    float m[kMaxGroup], acc[kMaxGroup][DPL];
#pragma unroll
    for (int g = 0; g < kMaxGroup; ++g) {
        if (g >= group) break;
        m[g] = warpMax(valid ? s[g] : -INFINITY);
        float p = valid ? exp2f(s[g] - m[g]) : 0.0f;
        float l = warpSum(p);
        ps[warp][g][lane] = p;
        if (lane == 0) {
            wm[warp][g] = m[g];
            wl[warp][g] = l;
        }
#pragma unroll
        for (int d = 0; d < DPL; ++d)
            acc[g][d] = 0;
    }
    __syncwarp();
#pragma unroll
    for (int j = 0; j < 32; ++j) {
        if (j >= keys) break;
        float vf[DPL];
#pragma unroll
        for (int w = 0; w < DPL / 2; ++w) {
            float2 f = __bfloat1622float2(vraw[j][w]);
            vf[2 * w] = f.x;
            vf[2 * w + 1] = f.y;
        }
#pragma unroll
        for (int g = 0; g < kMaxGroup; ++g) {
            if (g >= group) break;
            float p = ps[warp][g][j];
#pragma unroll
            for (int d = 0; d < DPL; ++d)
                acc[g][d] = fmaf(p, vf[d], acc[g][d]);
        }
    }
#pragma unroll
    for (int g = 0; g < kMaxGroup; ++g) {
        if (g >= group) break;
#pragma unroll
        for (int d = 0; d < DPL; ++d)
            wacc[warp][g][lane * DPL + d] = acc[g][d];
    }
    if (keys <= 0 && lane == 0)  // a warp past the context contributes nothing
        for (int g = 0; g < group; ++g) {
            wm[warp][g] = -INFINITY;
            wl[warp][g] = 0;
        }
    __syncthreads();
    decode_split::storeBlockState<HD, 4>(wm, wl, wacc, partialMl, partialAcc, b, heads, kvh, group,
                                         split, splits);
}

template <int HD>
void launchDecode(DecodeAttentionRung rung, const __nv_bfloat16* qkv, int qStride,
                  const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* out,
                  const AttentionShape& sh, const int* ctx, float* workspace, cudaStream_t s) {
    float scaleLog2 = kLog2e / sqrtf(float(HD));
    if (rung == DecodeAttentionRung::Naive) {
        int smem = sh.capacity * int(sizeof(float));
        if (smem > kMaxNaiveSmem)
            throw std::invalid_argument("decode attention naive: context capacity " +
                                        std::to_string(sh.capacity) +
                                        " needs too much shared memory");
        static bool configured = [] {
            WS_CUDA(cudaFuncSetAttribute(
                decodeNaive<HD>, cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxNaiveSmem));
            return true;
        }();
        (void)configured;
        decodeNaive<HD><<<dim3(sh.heads, sh.batch), 256, smem, s>>>(
            qkv, qStride, k, v, out, sh.heads, sh.kvHeads, sh.capacity, ctx, scaleLog2);
        WS_CUDA_LAUNCHED();
        return;
    }
    if (sh.heads / sh.kvHeads > kMaxGroup)
        throw std::invalid_argument("decode attention splitkv: more than 8 q heads per kv head");
    int splits = splitsFor(sh.capacity);
    float* ml = workspace;
    float* acc = workspace + std::size_t(sh.batch) * sh.heads * splits * 2;
    decodeSplit<HD><<<dim3(splits, sh.kvHeads, sh.batch), 128, 0, s>>>(
        qkv, qStride, k, v, ml, acc, sh.heads, sh.kvHeads, sh.capacity, ctx, splits, scaleLog2);
    WS_CUDA_LAUNCHED();
    decode_split::combine<HD><<<dim3(sh.heads, sh.batch), decode_split::kCombineThreads, 0, s>>>(
        ml, acc, out, sh.heads, ctx, splits, kSplitKeys);
    WS_CUDA_LAUNCHED();
}

}  // namespace

std::size_t decodeWorkspaceFloats(const AttentionShape& sh) {
    return decode_split::partialFloats(sh.batch, sh.heads, sh.headDim, sh.capacity);
}

void decodeAttention(DecodeAttentionRung rung, const __nv_bfloat16* qkv, int qStride,
                     const __nv_bfloat16* kCache, const __nv_bfloat16* vCache, __nv_bfloat16* out,
                     const AttentionShape& shape, const int* contextLength, float* workspace,
                     cudaStream_t s) {
    if (shape.heads % shape.kvHeads != 0 || shape.capacity < 1)
        throw std::invalid_argument("decode attention: bad shape");
    if (rung == DecodeAttentionRung::SplitKvMma) {
        decodeAttentionMma(qkv, qStride, kCache, vCache, out, shape, contextLength, workspace, s);
        return;
    }
    if (shape.headDim == 64)
        launchDecode<64>(rung, qkv, qStride, kCache, vCache, out, shape, contextLength, workspace,
                         s);
    else if (shape.headDim == 128)
        launchDecode<128>(rung, qkv, qStride, kCache, vCache, out, shape, contextLength, workspace,
                          s);
    else
        throw std::invalid_argument("decode attention: head_dim " + std::to_string(shape.headDim) +
                                    " (supported: 64, 128)");
}

}  // namespace ws::kernels
