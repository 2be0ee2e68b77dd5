// Paged prefill attention for chunked prefill: the flash tensor-core rung
// (prefill_attention_mma.cu, which explains the mma layout) over a varlen
// batch of chunks, K/V tiles gathered through each sequence's block table.
// A block takes 64 queries of one head of one chunk; the key tiles start at
// position 0 and run to the block's last query, so a chunk sees every earlier
// chunk of its sequence and is causal within itself.
#include <stdexcept>
#include <string>

#include "attention/paged_attention.h"
#include "common/cuda_check.h"
#include "common/mma.cuh"

namespace ws::kernels {

namespace {

constexpr int kQ = 64, kKeys = 64;

template <int HD>
constexpr int smemBytes() {
    return 3 * kQ * (HD + 8) * 2;  // Q, K, V tiles, rows padded by 16 bytes
}

struct PrefillArgs {
    const __nv_bfloat16* qkv;
    int qStride;
    const __nv_bfloat16* kPool;
    const __nv_bfloat16* vPool;
    const int* blockTables;
    int maxBlocksPerSeq, blockSize;
    const int* rowStart;
    const int* queries;
    const int* firstPosition;
    __nv_bfloat16* out;
    int heads, kvHeads;
    float scaleLog2;
};

template <int HD>
__global__ void __launch_bounds__(128) pagedPrefillMma(const PrefillArgs a) {
    constexpr int LD = HD + 8;
    const int seq = blockIdx.z, queries = a.queries[seq];
    const int q0 = blockIdx.x * kQ;
    if (q0 >= queries) return;  // a shorter chunk than the longest of the step
    extern __shared__ __align__(16) unsigned char smem[];
    auto* qs = reinterpret_cast<__nv_bfloat16*>(smem);
    auto* ks = qs + kQ * LD;
    auto* vs = ks + kKeys * LD;
    const int heads = a.heads, h = blockIdx.y, kvh = h / (heads / a.kvHeads);
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int firstPosition = a.firstPosition[seq], row0Of = a.rowStart[seq];
    const int lastPos = firstPosition + min(queries, q0 + kQ) - 1;
    const int* table = a.blockTables + std::size_t(seq) * a.maxBlocksPerSeq;
    const int bs = a.blockSize;

    for (int c = tid; c < kQ * HD / 8; c += 128) {
        int r = c / (HD / 8), d = (c % (HD / 8)) * 8, qi = q0 + r;
        uint4 v = {0, 0, 0, 0};
        if (qi < queries)
            v = *reinterpret_cast<const uint4*>(a.qkv + std::size_t(row0Of + qi) * a.qStride +
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
            int k = valid ? key : 0;
            std::size_t at =
                ((std::size_t(table[k / bs]) * a.kvHeads + kvh) * bs + k % bs) * HD + d;
            cpAsync16(&ks[j * LD + d], a.kPool + at, valid);
            cpAsync16(&vs[j * LD + d], a.vPool + at, valid);
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
                float v = key <= rowPos[e / 2] ? s[n][e] * a.scaleLog2 : -INFINITY;
                s[n][e] = v;
                tileMax[e / 2] = fmaxf(tileMax[e / 2], v);
            }
        float corr[2];
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            tileMax[i] = fmaxf(tileMax[i], __shfl_xor_sync(0xffffffffu, tileMax[i], 1));
            tileMax[i] = fmaxf(tileMax[i], __shfl_xor_sync(0xffffffffu, tileMax[i], 2));
            float mNew = fmaxf(m[i], tileMax[i]);
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
        __nv_bfloat16* row = a.out + std::size_t(row0Of + qi) * heads * HD + h * HD;
#pragma unroll
        for (int n = 0; n < HD / 8; ++n)
            *reinterpret_cast<__nv_bfloat162*>(row + n * 8 + (lane % 4) * 2) =
                __floats2bfloat162_rn(o[n][2 * i] * inv, o[n][2 * i + 1] * inv);
    }
}

template <int HD>
void launch(const PrefillArgs& a, int sequences, int maxQueries, cudaStream_t s) {
    static bool configured = [] {
        WS_CUDA(cudaFuncSetAttribute(pagedPrefillMma<HD>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, smemBytes<HD>()));
        return true;
    }();
    (void)configured;
    dim3 grid((maxQueries + kQ - 1) / kQ, a.heads, sequences);
    pagedPrefillMma<HD><<<grid, 128, smemBytes<HD>(), s>>>(a);
    WS_CUDA_LAUNCHED();
}

}  // namespace

void pagedPrefillAttention(const __nv_bfloat16* qkv, int qStride, const __nv_bfloat16* kPool,
                           const __nv_bfloat16* vPool, const int* blockTables, const int* rowStart,
                           const int* queries, const int* firstPosition, __nv_bfloat16* out,
                           const PagedKvShape& shape, int sequences, int maxQueries,
                           cudaStream_t s) {
    if (sequences < 1 || maxQueries < 1) return;
    PrefillArgs a{qkv,
                  qStride,
                  kPool,
                  vPool,
                  blockTables,
                  shape.maxBlocksPerSeq,
                  shape.blockSize,
                  rowStart,
                  queries,
                  firstPosition,
                  out,
                  shape.heads,
                  shape.kvHeads,
                  1.4426950408889634f / sqrtf(float(shape.headDim))};
    if (shape.headDim == 64)
        launch<64>(a, sequences, maxQueries, s);
    else if (shape.headDim == 128)
        launch<128>(a, sequences, maxQueries, s);
    else
        throw std::invalid_argument("paged prefill attention: head_dim " +
                                    std::to_string(shape.headDim) + " (supported: 64, 128)");
}

}  // namespace ws::kernels
