// The tensor-core prefill rung (FlashAttention-2 style): a block of 4 warps
// takes 64 queries of one head, each warp 16 of them. S = Q·Kᵀ and O += P·V
// are mma.sync m16n8k16 tiles; the S accumulators are re-packed in registers
// as the A operand of P·V (their layouts coincide), V is read with
// ldmatrix.trans. Online softmax per 64-key tile, exp2 with the scale folded in.
#include <stdexcept>

#include "attention/attention.h"
#include "common/cuda_check.h"
#include "common/mma.cuh"

namespace ws::kernels {

namespace {

constexpr int kQ = 64, kKeys = 64;

template <int HD>
constexpr int smemBytes() {
    return 3 * kQ * (HD + 8) * 2;  // Q, K, V tiles, rows padded by 16 bytes
}

template <int HD>
__global__ void __launch_bounds__(128)
    prefillMma(const __nv_bfloat16* __restrict__ qkv, int qStride,
               const __nv_bfloat16* __restrict__ kCache, const __nv_bfloat16* __restrict__ vCache,
               __nv_bfloat16* __restrict__ out, int queries, int heads, int kvHeads, int capacity,
               int firstPosition, float scaleLog2) {
    constexpr int LD = HD + 8;
    extern __shared__ __align__(16) unsigned char smem[];
    auto* qs = reinterpret_cast<__nv_bfloat16*>(smem);
    auto* ks = qs + kQ * LD;
    auto* vs = ks + kKeys * LD;
    int h = blockIdx.y, b = blockIdx.z, kvh = h / (heads / kvHeads);
    int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    int q0 = blockIdx.x * kQ;
    int lastPos = firstPosition + min(queries, q0 + kQ) - 1;
    std::size_t base = (std::size_t(b) * kvHeads + kvh) * capacity * HD;

    for (int c = tid; c < kQ * HD / 8; c += 128) {
        int r = c / (HD / 8), d = (c % (HD / 8)) * 8, qi = q0 + r;
        uint4 v = {0, 0, 0, 0};
        if (qi < queries)
            v = *reinterpret_cast<const uint4*>(qkv + (std::size_t(b) * queries + qi) * qStride +
                                                h * HD + d);
        *reinterpret_cast<uint4*>(&qs[r * LD + d]) = v;
    }
    __syncthreads();
    unsigned qf[HD / 16][4];
#pragma unroll
    for (int kk = 0; kk < HD / 16; ++kk)
        ldmatrixX4(qf[kk], &qs[(warp * 16 + lane % 16) * LD + kk * 16 + (lane / 16) * 8]);

    float o[HD / 8][4] = {};
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0, 0};
    int row0 = firstPosition + q0 + warp * 16 + lane / 4;  // positions of this thread's rows
    int rowPos[2] = {row0, row0 + 8};

    for (int t0 = 0; t0 <= lastPos; t0 += kKeys) {
        __syncthreads();  // the previous tile is no longer read
        for (int c = tid; c < kKeys * HD / 8; c += 128) {
            int j = c / (HD / 8), d = (c % (HD / 8)) * 8, key = t0 + j;
            bool valid = key <= lastPos;
            std::size_t at = base + std::size_t(valid ? key : 0) * HD + d;
            cpAsync16(&ks[j * LD + d], kCache + at, valid);
            cpAsync16(&vs[j * LD + d], vCache + at, valid);
        }
        cpAsyncCommit();
        cpAsyncWait<0>();
        __syncthreads();

        float s[kKeys / 8][4] = {};
#pragma unroll
        for (int kk = 0; kk < HD / 16; ++kk)
#pragma unroll
            for (int nj = 0; nj < kKeys / 16; ++nj) {
                unsigned r[4];
                int key = nj * 16 + (lane / 16) * 8 + lane % 8;
                ldmatrixX4(r, &ks[key * LD + kk * 16 + ((lane / 8) % 2) * 8]);
                unsigned b0[2] = {r[0], r[1]}, b1[2] = {r[2], r[3]};
                mma16816(s[2 * nj], qf[kk], b0);
                mma16816(s[2 * nj + 1], qf[kk], b1);
            }

        float tileMax[2] = {-INFINITY, -INFINITY};
#pragma unroll
        for (int n = 0; n < kKeys / 8; ++n)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                int key = t0 + n * 8 + (lane % 4) * 2 + (e & 1);
                float v = key <= rowPos[e / 2] ? s[n][e] * scaleLog2 : -INFINITY;
                s[n][e] = v;
                tileMax[e / 2] = fmaxf(tileMax[e / 2], v);
            }
        float corr[2];
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            tileMax[i] = fmaxf(tileMax[i], __shfl_xor_sync(0xffffffffu, tileMax[i], 1));
            tileMax[i] = fmaxf(tileMax[i], __shfl_xor_sync(0xffffffffu, tileMax[i], 2));
            float mNew = fmaxf(m[i], tileMax[i]);
            // A row with nothing visible yet keeps m = -inf; nothing to rescale then.
            corr[i] = mNew == -INFINITY ? 1.0f : exp2f(m[i] - mNew);
            m[i] = mNew;
            l[i] *= corr[i];
        }
#pragma unroll
        for (int n = 0; n < HD / 8; ++n)
#pragma unroll
            for (int e = 0; e < 4; ++e)
                o[n][e] *= corr[e / 2];

        unsigned pf[kKeys / 16][4];
#pragma unroll
        for (int n = 0; n < kKeys / 8; ++n) {
            float p[4];
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                p[e] = m[e / 2] == -INFINITY ? 0.0f : exp2f(s[n][e] - m[e / 2]);
                l[e / 2] += p[e];
            }
            // S's accumulator layout is P's A-operand layout: two n8 tiles per k16 step.
            pf[n / 2][(n % 2) * 2] = packBf16(p[0], p[1]);
            pf[n / 2][(n % 2) * 2 + 1] = packBf16(p[2], p[3]);
        }
#pragma unroll
        for (int kk = 0; kk < kKeys / 16; ++kk)
#pragma unroll
            for (int nd = 0; nd < HD / 16; ++nd) {
                unsigned r[4];
                int key = kk * 16 + (lane % 8) + ((lane / 8) % 2) * 8;
                ldmatrixX4Trans(r, &vs[key * LD + nd * 16 + (lane / 16) * 8]);
                unsigned b0[2] = {r[0], r[1]}, b1[2] = {r[2], r[3]};
                mma16816(o[2 * nd], pf[kk], b0);
                mma16816(o[2 * nd + 1], pf[kk], b1);
            }
    }

#pragma unroll
    for (int i = 0; i < 2; ++i) {
        l[i] += __shfl_xor_sync(0xffffffffu, l[i], 1);
        l[i] += __shfl_xor_sync(0xffffffffu, l[i], 2);
    }
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        int qi = q0 + warp * 16 + lane / 4 + i * 8;
        if (qi >= queries) continue;
        float inv = 1.0f / l[i];
        __nv_bfloat16* row = out + (std::size_t(b) * queries + qi) * heads * HD + h * HD;
#pragma unroll
        for (int n = 0; n < HD / 8; ++n)
            *reinterpret_cast<__nv_bfloat162*>(row + n * 8 + (lane % 4) * 2) =
                __floats2bfloat162_rn(o[n][2 * i] * inv, o[n][2 * i + 1] * inv);
    }
}

template <int HD>
void launch(const __nv_bfloat16* qkv, int qStride, const __nv_bfloat16* k, const __nv_bfloat16* v,
            __nv_bfloat16* out, const AttentionShape& sh, int queries, int firstPosition,
            cudaStream_t s) {
    static bool configured = [] {
        WS_CUDA(cudaFuncSetAttribute(prefillMma<HD>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     smemBytes<HD>()));
        return true;
    }();
    (void)configured;
    dim3 grid((queries + kQ - 1) / kQ, sh.heads, sh.batch);
    prefillMma<HD><<<grid, 128, smemBytes<HD>(), s>>>(qkv, qStride, k, v, out, queries, sh.heads,
                                                      sh.kvHeads, sh.capacity, firstPosition,
                                                      1.4426950408889634f / sqrtf(float(HD)));
    WS_CUDA_LAUNCHED();
}

}  // namespace

void prefillAttentionMma(const __nv_bfloat16* qkv, int qStride, const __nv_bfloat16* kCache,
                         const __nv_bfloat16* vCache, __nv_bfloat16* out,
                         const AttentionShape& shape, int queries, int firstPosition,
                         cudaStream_t s) {
    if (shape.headDim == 64)
        launch<64>(qkv, qStride, kCache, vCache, out, shape, queries, firstPosition, s);
    else if (shape.headDim == 128)
        launch<128>(qkv, qStride, kCache, vCache, out, shape, queries, firstPosition, s);
    else
        throw std::invalid_argument("prefill attention mma: head_dim " +
                                    std::to_string(shape.headDim) + " (supported: 64, 128)");
}

}  // namespace ws::kernels
