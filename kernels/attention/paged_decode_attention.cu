// Paged split-KV decode attention on tensor cores: the splitkv_mma rung
// (decode_attention_mma.cu, which explains the mma layout) reading K/V
// through per-sequence block tables with per-sequence context lengths.
//
// What changes against the contiguous rung is where a chunk comes from: a
// 64-key chunk is four 16-key pieces, each a contiguous run of one block of
// one kv head in the pool (paged_attention.h), fetched by its own bulk copy
// into the same shared-memory image the contiguous rung builds. The
// compute, the online softmax and the combine are the contiguous rung's, so
// at the same split plan both give the same bits (the GPU test checks that).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "attention/decode_split.cuh"
#include "attention/paged_attention.h"
#include "common/cluster_occupancy.h"
#include "common/cuda_check.h"
#include "common/mbarrier.cuh"
#include "common/mma.cuh"

namespace ws::kernels {

namespace {

using decode_split::kMaxGroup;
constexpr int kWarps = 4;
constexpr int kPieceKeys = 16;  // keys per bulk copy: one warp's share of a chunk
constexpr int kChunkKeys = kWarps * kPieceKeys;
constexpr int kStages = 3;
constexpr float kLog2e = 1.4426950408889634f;

__device__ __forceinline__ unsigned transpose8x8(unsigned x) {
    unsigned y;
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;\n" : "=r"(y) : "r"(x));
    return y;
}

__device__ __forceinline__ unsigned word(const uint4& v, int i) {
    return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

template <int HD>
constexpr int kStageBytes = 2 * kChunkKeys* HD * 2;  // K and V rows of one chunk

struct PagedArgs {
    const __nv_bfloat16* qkv;
    int qStride;
    const __nv_bfloat16* kPool;
    const __nv_bfloat16* vPool;
    const int* blockTables;
    int maxBlocksPerSeq, blockSize;
    const int* contextLens;
    float* partialMl;
    float* partialAcc;
    __nv_bfloat16* out;
    int heads, kvHeads, splits, splitKeys;
    float scaleLog2;
    int* arrivals;  // null in a cluster launch
};

template <int HD, bool CLUSTER>
__global__ void __launch_bounds__(kWarps * 32) pagedDecodeSplitMma(const PagedArgs a) {
    constexpr int QW = HD / 8, VW = HD / 16, RowVectors = HD / 8;
    const int split = blockIdx.x, kvh = blockIdx.y, b = blockIdx.z;
    const int ctx = a.contextLens[b];
    const int key0 = split * a.splitKeys;
    // In a cluster a block past the context still takes part in the combine.
    if (!CLUSTER && key0 >= ctx) return;
    const int keys = max(0, min(a.splitKeys, ctx - key0));
    const int chunks = (keys + kChunkKeys - 1) / kChunkKeys;
    const int heads = a.heads, kvHeads = a.kvHeads, group = heads / kvHeads;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    extern __shared__ __align__(128) unsigned char smem[];
    __shared__ float wm[kWarps][kMaxGroup], wl[kWarps][kMaxGroup];
    __shared__ __align__(8) unsigned long long full[kStages];

    const int* table = a.blockTables + std::size_t(b) * a.maxBlocksPerSeq;
    auto issue = [&](int chunk) {  // by thread 0 only
        int stage = chunk % kStages, row0 = key0 + chunk * kChunkKeys;
        unsigned rows = unsigned(min(kChunkKeys, ctx - row0));
        unsigned char* dst = smem + stage * kStageBytes<HD>;
        barrierExpect(&full[stage], 2 * rows * HD * 2);
        for (int p = 0; p * kPieceKeys < int(rows); ++p) {
            int key = row0 + p * kPieceKeys;
            unsigned bytes = unsigned(min(kPieceKeys, ctx - key)) * HD * 2;
            std::size_t at =
                ((std::size_t(table[key / a.blockSize]) * kvHeads + kvh) * a.blockSize +
                 key % a.blockSize) *
                HD;
            unsigned offset = unsigned(p * kPieceKeys * HD * 2);
            bulkCopy(dst + offset, a.kPool + at, bytes, &full[stage]);
            bulkCopy(dst + kStageBytes<HD> / 2 + offset, a.vPool + at, bytes, &full[stage]);
        }
    };
    if (threadIdx.x == 0) {
        for (int i = 0; i < kStages; ++i)
            barrierInit(&full[i], 1);
        barrierInitFence();
        for (int c = 0; c < min(chunks, kStages - 1); ++c)
            issue(c);
    }

    uint4 qv[QW / 4];
    {
        const auto* q = reinterpret_cast<const uint4*>(a.qkv + std::size_t(b) * a.qStride +
                                                       (kvh * group + min(g, group - 1)) * HD);
#pragma unroll
        for (int c = 0; c < QW / 4; ++c)
            qv[c] = g < group ? q[c * 4 + t] : make_uint4(0, 0, 0, 0);
    }
    float acc[VW][4], m[2] = {-INFINITY, -INFINITY}, l[2] = {0, 0};
#pragma unroll
    for (int j = 0; j < VW; ++j)
        acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0;
    __syncthreads();  // the barriers are initialized before anyone waits on them

    for (int c = 0; c < chunks; ++c) {
        if (threadIdx.x == 0 && c + kStages - 1 < chunks) issue(c + kStages - 1);
        const int first = key0 + c * kChunkKeys + warp * 16;
        if (first < ctx) {
            barrierWait(&full[c % kStages], (c / kStages) & 1);
            const auto* ks = reinterpret_cast<const uint4*>(smem + (c % kStages) * kStageBytes<HD>);
            const auto* vs = ks + kChunkKeys * RowVectors;
            // Rows past the context are never read: the last written row stands in.
            const int rowBase = warp * 16, last = ctx - 1 - (key0 + c * kChunkKeys);
            auto row = [&](int k) { return min(rowBase + k, last); };
            uint4 kv[2][QW / 4], vv[4][VW / 4];
#pragma unroll
            for (int r = 0; r < 2; ++r)
#pragma unroll
                for (int q = 0; q < QW / 4; ++q)
                    kv[r][q] = ks[row(g + 8 * r) * RowVectors + q * 4 + t];
#pragma unroll
            for (int r = 0; r < 4; ++r)  // keys 2t, 2t + 1, 2t + 8, 2t + 9
#pragma unroll
                for (int q = 0; q < VW / 4; ++q)
                    vv[r][q] = vs[row(2 * t + (r & 1) + 8 * (r >> 1)) * RowVectors + q * 8 + g];

            float s[4] = {0, 0, 0, 0};
#pragma unroll
            for (int step = 0; step < HD / 16; ++step) {
                int w0 = 2 * step, w1 = 2 * step + 1;
                unsigned fa[4] = {word(kv[0][w0 / 4], w0 % 4), word(kv[1][w0 / 4], w0 % 4),
                                  word(kv[0][w1 / 4], w1 % 4), word(kv[1][w1 / 4], w1 % 4)};
                unsigned bq[2] = {word(qv[w0 / 4], w0 % 4), word(qv[w1 / 4], w1 % 4)};
                mma16816(s, fa, bq);
            }
            bool valid[2] = {first + g < ctx, first + g + 8 < ctx};
            float p[4], rescale[2];
#pragma unroll
            for (int i = 0; i < 2; ++i) {
                float x0 = valid[0] ? s[i] * a.scaleLog2 : -INFINITY;
                float x1 = valid[1] ? s[2 + i] * a.scaleLog2 : -INFINITY;
                float mx = fmaxf(x0, x1);
#pragma unroll
                for (int o = 4; o < 32; o <<= 1)
                    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
                mx = fmaxf(mx, m[i]);
                rescale[i] = exp2f(m[i] - mx);
                p[i] = exp2f(x0 - mx);
                p[2 + i] = exp2f(x1 - mx);
                float sum = p[i] + p[2 + i];
#pragma unroll
                for (int o = 4; o < 32; o <<= 1)
                    sum += __shfl_xor_sync(0xffffffffu, sum, o);
                m[i] = mx;
                l[i] = l[i] * rescale[i] + sum;
            }
            unsigned bp[2] = {transpose8x8(packBf16(p[0], p[1])),
                              transpose8x8(packBf16(p[2], p[3]))};
#pragma unroll
            for (int j = 0; j < VW; ++j) {
                unsigned v0 = word(vv[0][j / 4], j % 4), v1 = word(vv[1][j / 4], j % 4);
                unsigned v2 = word(vv[2][j / 4], j % 4), v3 = word(vv[3][j / 4], j % 4);
                unsigned fa[4] = {__byte_perm(v0, v1, 0x5410), __byte_perm(v0, v1, 0x7632),
                                  __byte_perm(v2, v3, 0x5410), __byte_perm(v2, v3, 0x7632)};
                acc[j][0] *= rescale[0];
                acc[j][2] *= rescale[0];
                acc[j][1] *= rescale[1];
                acc[j][3] *= rescale[1];
                mma16816(acc[j], fa, bp);
            }
        }
        __syncthreads();  // the stage is free for the copy issued next iteration
    }

    auto& wacc = *reinterpret_cast<float(*)[kWarps][kMaxGroup][HD]>(smem);
    static_assert(sizeof(wacc) <= kStages * kStageBytes<HD>);
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        int head = 2 * t + i;
        if (head >= group) continue;
        if (g == 0) {
            wm[warp][head] = m[i];
            wl[warp][head] = l[i];
        }
#pragma unroll
        for (int j = 0; j < VW; ++j) {
            int d = (j / 4) * 64 + g * 8 + (j % 4) * 2;
            *reinterpret_cast<float2*>(&wacc[warp][head][d]) =
                make_float2(acc[j][i], acc[j][2 + i]);
        }
    }
    __syncthreads();
    if constexpr (CLUSTER) {
        decode_split::combineInCluster<HD, kWarps>(wm, wl, wacc, a.out, heads, kvh * group, group,
                                                   b);
        return;
    }
    decode_split::storeBlockState<HD, kWarps>(wm, wl, wacc, a.partialMl, a.partialAcc, b, heads,
                                              kvh, group, split, a.splits);
    // The last block of (sequence, kv head) to finish combines the splits.
    __threadfence();
    __syncthreads();
    __shared__ int lastToArrive;
    const int used = (ctx + a.splitKeys - 1) / a.splitKeys;
    if (threadIdx.x == 0) {
        int* counter = a.arrivals + b * kvHeads + kvh;
        lastToArrive = atomicAdd(counter, 1) == used - 1;
        if (lastToArrive) *counter = 0;  // zero again for the next call
    }
    __syncthreads();
    if (!lastToArrive) return;
    __threadfence();
    decode_split::combineGroup<HD, kWarps * 32>(a.partialMl, a.partialAcc, a.out, heads,
                                                kvh * group, group, b, a.splits, used);
}

// Splits of a (batch, maxContext) plan: the contiguous rung's (one wave of
// equal blocks, never shorter than 128 keys) or, batch-invariant, 128 keys.
struct SplitPlan {
    int splits = 1, splitKeys = decode_split::kSplitKeys;
};

template <int HD>
int residentBlocks() {
    static const int resident = [] {
        constexpr int smemBytes = kStages * kStageBytes<HD>;
        for (auto kernel : {pagedDecodeSplitMma<HD, false>, pagedDecodeSplitMma<HD, true>})
            WS_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         smemBytes));
        int perSm = 0;
        WS_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &perSm, pagedDecodeSplitMma<HD, false>, kWarps * 32, smemBytes));
        return std::max(1, perSm) * deviceAttribute(cudaDevAttrMultiProcessorCount);
    }();
    return resident;
}

template <int HD>
SplitPlan planSplits(const PagedKvShape& sh, int batch, int maxContext, bool fixed) {
    SplitPlan p;
    if (fixed) {
        p.splits = decode_split::splitsFor(maxContext);
        return p;
    }
    int splits = std::max(1, residentBlocks<HD>() / (batch * sh.kvHeads));
    int splitKeys = (maxContext + splits - 1) / splits;
    p.splitKeys =
        std::max(decode_split::kSplitKeys, (splitKeys + kChunkKeys - 1) / kChunkKeys * kChunkKeys);
    p.splits = (maxContext + p.splitKeys - 1) / p.splitKeys;
    return p;
}

template <int HD>
void launch(PagedArgs a, const PagedKvShape& sh, int batch, int maxBatch, int maxContext,
            bool fixed, float* workspace, cudaStream_t s) {
    constexpr int smemBytes = kStages * kStageBytes<HD>;
    const SplitPlan plan = planSplits<HD>(sh, batch, maxContext, fixed);
    a.splits = plan.splits;
    a.splitKeys = plan.splitKeys;
    a.partialMl = workspace;
    a.partialAcc = workspace + std::size_t(batch) * sh.heads * plan.splits * 2;
    // The counters sit past the largest batch's partial states, so a call at
    // another batch never overwrites them (they must stay zero between calls).
    a.arrivals = reinterpret_cast<int*>(
        workspace + decode_split::counterOffset(maxBatch, sh.heads, HD, maxContext));
    a.scaleLog2 = kLog2e / sqrtf(float(HD));
    const dim3 grid(plan.splits, sh.kvHeads, batch);
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = dim3(kWarps * 32);
    config.dynamicSmemBytes = std::size_t(smemBytes);
    config.stream = s;
    residentBlocks<HD>();  // sets the shared-memory attribute before any launch
    if (!fixed && plan.splits <= decode_split::kMaxClusterSplits) {
        cudaLaunchAttribute attr{};
        attr.id = cudaLaunchAttributeClusterDimension;
        attr.val.clusterDim = {unsigned(plan.splits), 1, 1};
        config.attrs = &attr;
        config.numAttrs = 1;
        // Clusters only where all of them are resident at once (as the contiguous rung).
        if (residentClusters(pagedDecodeSplitMma<HD, true>, config) >= int(grid.y * grid.z)) {
            PagedArgs c = a;
            c.arrivals = nullptr;
            WS_CUDA(cudaLaunchKernelEx(&config, pagedDecodeSplitMma<HD, true>, c));
            return;
        }
        config.attrs = nullptr;
        config.numAttrs = 0;
    }
    WS_CUDA(cudaLaunchKernelEx(&config, pagedDecodeSplitMma<HD, false>, a));
}

}  // namespace

std::size_t pagedDecodeWorkspaceFloats(const PagedKvShape& shape, int maxBatch, int maxContext) {
    return decode_split::partialFloats(maxBatch, shape.heads, shape.headDim, maxContext) +
           std::size_t(maxBatch) * shape.kvHeads;
}

void pagedDecodeAttention(const __nv_bfloat16* qkv, int qStride, const __nv_bfloat16* kPool,
                          const __nv_bfloat16* vPool, const int* blockTables,
                          const int* contextLens, __nv_bfloat16* out, const PagedKvShape& shape,
                          int batch, int maxBatch, int maxContext, bool fixedSplits,
                          float* workspace, cudaStream_t s) {
    if (shape.heads / shape.kvHeads > kMaxGroup)
        throw std::invalid_argument("paged decode attention: more than 8 q heads per kv head");
    if (shape.blockSize % kPieceKeys != 0)
        throw std::invalid_argument("paged decode attention: block size " +
                                    std::to_string(shape.blockSize) + " is not a multiple of 16");
    if (batch < 1 || batch > maxBatch || maxContext < 1)
        throw std::invalid_argument("paged decode attention: batch 1..maxBatch, maxContext >= 1");
    PagedArgs a{};
    a.qkv = qkv;
    a.qStride = qStride;
    a.kPool = kPool;
    a.vPool = vPool;
    a.blockTables = blockTables;
    a.maxBlocksPerSeq = shape.maxBlocksPerSeq;
    a.blockSize = shape.blockSize;
    a.contextLens = contextLens;
    a.out = out;
    a.heads = shape.heads;
    a.kvHeads = shape.kvHeads;
    if (shape.headDim == 64)
        launch<64>(a, shape, batch, maxBatch, maxContext, fixedSplits, workspace, s);
    else if (shape.headDim == 128)
        launch<128>(a, shape, batch, maxBatch, maxContext, fixedSplits, workspace, s);
    else
        throw std::invalid_argument("paged decode attention: head_dim " +
                                    std::to_string(shape.headDim) + " (supported: 64, 128)");
}

}  // namespace ws::kernels
