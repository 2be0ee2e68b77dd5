// Split-KV decode attention on tensor cores. A GQA group's query heads (≤ 8)
// are the n = 8 side of mma.sync m16n8k16, 16 keys the m side:
//   Sᵀ[key][head] = K[key][d] · Qᵀ[d][head]
//   Oᵀ[d][head]  += Vᵀ[d][key] · Pᵀ[key][head]   (P moved into place by movmatrix)
// The dot products sum over d and the output is written back by dimension, so
// each thread's share of d may be any fixed permutation: it is chosen so that
// every thread reads whole 16-byte pieces of K and V rows.
// A block of 4 warps walks its split in 64-key chunks (16 keys per warp, online
// softmax across chunks). The splits of a sequence combine in a thread-block
// cluster where they fit one (≤ 8), otherwise the last block to finish
// combines them from global memory. Chunks arrive by bulk copy (TMA) into a ring of
// shared-memory stages, so the next chunks are in flight while one is computed
// and the memory system never waits for the compiler's load scheduling.
#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "attention/attention.h"
#include "attention/decode_split.cuh"
#include "common/cluster_occupancy.h"
#include "common/cuda_check.h"
#include "common/mbarrier.cuh"
#include "common/mma.cuh"

namespace ws::kernels {

namespace {

using decode_split::kMaxGroup;
constexpr int kWarps = 4;
constexpr int kChunkKeys = kWarps * 16;
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

template <int HD, bool CLUSTER>
__global__ void __launch_bounds__(kWarps * 32)
    decodeSplitMma(const __nv_bfloat16* __restrict__ qkv, int qStride,
                   const __nv_bfloat16* __restrict__ kCache,
                   const __nv_bfloat16* __restrict__ vCache, float* __restrict__ partialMl,
                   float* __restrict__ partialAcc, __nv_bfloat16* __restrict__ out, int heads,
                   int kvHeads, int capacity, const int* __restrict__ contextLength, int splits,
                   int splitKeys, float scaleLog2, int* __restrict__ arrivals) {
    // Per thread: q and k words (bf16 pairs) along d, and v words (one per m-tile).
    // Word w of q/k sits at d = (w/4)·32 + t·8 + (w%4)·2; word j of v at
    // d = (j/4)·64 + g·8 + (j%4)·2 and holds the rows g and g + 8 of m-tile j.
    constexpr int QW = HD / 8, VW = HD / 16, RowVectors = HD / 8;
    // A no-op unless launched programmatically dependent on the kernel before
    // (then this waits until its results, and its reads of the workspace, are done).
    asm volatile("griddepcontrol.wait;\n" ::: "memory");
    const int ctx = *contextLength;
    const int split = blockIdx.x, kvh = blockIdx.y, b = blockIdx.z;
    const int key0 = split * splitKeys;
    // In a cluster a block past the context still takes part in the combine.
    if (!CLUSTER && key0 >= ctx) return;
    const int keys = max(0, min(splitKeys, ctx - key0));
    const int chunks = (keys + kChunkKeys - 1) / kChunkKeys;
    const int group = heads / kvHeads;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    extern __shared__ __align__(128) unsigned char smem[];
    __shared__ float wm[kWarps][kMaxGroup], wl[kWarps][kMaxGroup];
    __shared__ __align__(8) unsigned long long full[kStages];

    const std::size_t base = (std::size_t(b) * kvHeads + kvh) * capacity * HD;
    auto issue = [&](int chunk) {  // by thread 0 only
        int stage = chunk % kStages, row0 = key0 + chunk * kChunkKeys;
        unsigned bytes = unsigned(min(kChunkKeys, ctx - row0)) * HD * 2;
        unsigned char* dst = smem + stage * kStageBytes<HD>;
        barrierExpect(&full[stage], 2 * bytes);
        bulkCopy(dst, kCache + base + std::size_t(row0) * HD, bytes, &full[stage]);
        bulkCopy(dst + kStageBytes<HD> / 2, vCache + base + std::size_t(row0) * HD, bytes,
                 &full[stage]);
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
        const auto* q = reinterpret_cast<const uint4*>(qkv + std::size_t(b) * qStride +
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
        // The stage refilled now was last read in chunk c - 1, which every warp
        // finished before the __syncthreads that ended it.
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
                unsigned a[4] = {word(kv[0][w0 / 4], w0 % 4), word(kv[1][w0 / 4], w0 % 4),
                                 word(kv[0][w1 / 4], w1 % 4), word(kv[1][w1 / 4], w1 % 4)};
                unsigned bq[2] = {word(qv[w0 / 4], w0 % 4), word(qv[w1 / 4], w1 % 4)};
                mma16816(s, a, bq);
            }
            // s: keys g and g + 8 (rows) × heads 2t and 2t + 1 (columns).
            bool valid[2] = {first + g < ctx, first + g + 8 < ctx};
            float p[4], rescale[2];
#pragma unroll
            for (int i = 0; i < 2; ++i) {
                float x0 = valid[0] ? s[i] * scaleLog2 : -INFINITY;
                float x1 = valid[1] ? s[2 + i] * scaleLog2 : -INFINITY;
                float mx = fmaxf(x0, x1);
#pragma unroll
                for (int o = 4; o < 32; o <<= 1)
                    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
                mx = fmaxf(mx, m[i]);  // key `first` is valid: mx is finite
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
                unsigned a[4] = {__byte_perm(v0, v1, 0x5410), __byte_perm(v0, v1, 0x7632),
                                 __byte_perm(v2, v3, 0x5410), __byte_perm(v2, v3, 0x7632)};
                acc[j][0] *= rescale[0];
                acc[j][2] *= rescale[0];
                acc[j][1] *= rescale[1];
                acc[j][3] *= rescale[1];
                mma16816(acc[j], a, bp);
            }
        }
        __syncthreads();  // the stage is free for the copy issued next iteration
    }

    // The combine kernel (launched programmatically dependent) may be scheduled
    // now; it waits for this grid's results before reading them.
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
    // The stages are done with: they hold the warps' outputs now.
    auto& wacc = *reinterpret_cast<float(*)[kWarps][kMaxGroup][HD]>(smem);
    static_assert(sizeof(wacc) <= kStages * kStageBytes<HD>);
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        int head = 2 * t + i;
        if (head >= group) continue;
        if (g == 0) {  // m = -inf, l = 0 for a warp that saw no key: left out
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
        decode_split::combineInCluster<HD, kWarps>(wm, wl, wacc, out, heads, kvh * group, group, b);
        return;
    }
    decode_split::storeBlockState<HD, kWarps>(wm, wl, wacc, partialMl, partialAcc, b, heads, kvh,
                                              group, split, splits);
    if (!arrivals) return;  // the combine kernel follows
    // The last block of (request, kv head) to finish combines the splits: no
    // second kernel, no launch boundary between the splits and the output.
    __threadfence();  // this block's partial state is visible before it is counted
    __syncthreads();
    __shared__ int lastToArrive;
    const int used = (ctx + splitKeys - 1) / splitKeys;
    if (threadIdx.x == 0) {
        int* counter = arrivals + b * kvHeads + kvh;
        lastToArrive = atomicAdd(counter, 1) == used - 1;
        if (lastToArrive) *counter = 0;  // zero again for the next call
    }
    __syncthreads();
    if (!lastToArrive) return;
    __threadfence();
    decode_split::combineGroup<HD, kWarps * 32>(partialMl, partialAcc, out, heads, kvh * group,
                                                group, b, splits, used);
}

// How the splits are combined: "cluster" (the default) where the splits of a
// sequence fit one cluster, else "fused" (the last block of each sequence to
// finish; 1–3% faster on the H200 than "kernel", a separate combine kernel
// launched programmatically dependent); "fused-pdl" also launches the split
// kernel dependent on the kernel before it (no gain measured).
// WARPSCOPE_DECODE_COMBINE picks one, to compare them.
const std::string& combineMode() {
    static const std::string mode = [] {
        const char* env = std::getenv("WARPSCOPE_DECODE_COMBINE");
        return std::string(env ? env : "cluster");
    }();
    return mode;
}

template <int HD>
void launch(const __nv_bfloat16* qkv, int qStride, const __nv_bfloat16* k, const __nv_bfloat16* v,
            __nv_bfloat16* out, const AttentionShape& sh, const int* ctx, float* workspace,
            cudaStream_t s) {
    constexpr int smemBytes = kStages * kStageBytes<HD>;
    static const int resident = [] {
        for (auto kernel : {decodeSplitMma<HD, false>, decodeSplitMma<HD, true>})
            WS_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         smemBytes));
        int perSm = 0;
        WS_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, decodeSplitMma<HD, false>,
                                                              kWarps * 32, smemBytes));
        return std::max(1, perSm) * deviceAttribute(cudaDevAttrMultiProcessorCount);
    }();
    // One wave of equal blocks: a second, partial wave would leave most SMs idle
    // at the end. Splits never shorter than the workspace's.
    int sequences = sh.batch * sh.kvHeads;
    int splits = std::max(1, resident / sequences);
    int splitKeys = (sh.capacity + splits - 1) / splits;
    splitKeys =
        std::max(decode_split::kSplitKeys, (splitKeys + kChunkKeys - 1) / kChunkKeys * kChunkKeys);
    splits = (sh.capacity + splitKeys - 1) / splitKeys;
    float* ml = workspace;
    float* acc = workspace + std::size_t(sh.batch) * sh.heads * splits * 2;
    int* arrivals = reinterpret_cast<int*>(
        workspace + decode_split::counterOffset(sh.batch, sh.heads, HD, sh.capacity));
    const std::string& mode = combineMode();
    const bool fused = mode != "kernel", dependent = mode == "fused-pdl";
    auto launchEx = [&](bool programmatic, int clusterBlocks, auto kernel, dim3 grid, int threads,
                        int smem, auto... args) {
        cudaLaunchConfig_t config{};
        config.gridDim = grid;
        config.blockDim = dim3(threads);
        config.dynamicSmemBytes = std::size_t(smem);
        config.stream = s;
        cudaLaunchAttribute attrs[2]{};
        if (programmatic) {
            attrs[config.numAttrs].id = cudaLaunchAttributeProgrammaticStreamSerialization;
            attrs[config.numAttrs++].val.programmaticStreamSerializationAllowed = 1;
        }
        if (clusterBlocks > 0) {
            attrs[config.numAttrs].id = cudaLaunchAttributeClusterDimension;
            attrs[config.numAttrs++].val.clusterDim = {unsigned(clusterBlocks), 1, 1};
        }
        config.attrs = attrs;
        // Clusters only where all of them are resident at once: a second wave
        // of clusters costs far more than the combine saves (batch 8 / 4k on
        // the H200: 56 µs against 42).
        if (clusterBlocks > 0 && residentClusters(kernel, config) < int(grid.y * grid.z))
            return false;
        WS_CUDA(cudaLaunchKernelEx(&config, kernel, args...));
        return true;
    };
    const dim3 grid(splits, sh.kvHeads, sh.batch);
    const float scaleLog2 = kLog2e / sqrtf(float(HD));
    if (mode == "cluster" && splits <= decode_split::kMaxClusterSplits &&
        launchEx(false, splits, decodeSplitMma<HD, true>, grid, kWarps * 32, smemBytes, qkv,
                 qStride, k, v, ml, acc, out, sh.heads, sh.kvHeads, sh.capacity, ctx, splits,
                 splitKeys, scaleLog2, static_cast<int*>(nullptr)))
        return;
    launchEx(dependent, 0, decodeSplitMma<HD, false>, grid, kWarps * 32, smemBytes, qkv, qStride, k,
             v, ml, acc, out, sh.heads, sh.kvHeads, sh.capacity, ctx, splits, splitKeys, scaleLog2,
             fused ? arrivals : nullptr);
    // The combine's blocks are placed while the split kernel drains instead
    // of after a full launch gap.
    if (!fused)
        launchEx(true, 0, decode_split::combine<HD>, dim3(sh.heads, sh.batch),
                 decode_split::kCombineThreads, 0, static_cast<const float*>(ml),
                 static_cast<const float*>(acc), out, sh.heads, ctx, splits, splitKeys);
}

}  // namespace

void decodeAttentionMma(const __nv_bfloat16* qkv, int qStride, const __nv_bfloat16* kCache,
                        const __nv_bfloat16* vCache, __nv_bfloat16* out,
                        const AttentionShape& shape, const int* contextLength, float* workspace,
                        cudaStream_t s) {
    if (shape.heads / shape.kvHeads > kMaxGroup)
        throw std::invalid_argument(
            "decode attention splitkv_mma: more than 8 q heads per kv head");
    if (shape.headDim == 64)
        launch<64>(qkv, qStride, kCache, vCache, out, shape, contextLength, workspace, s);
    else if (shape.headDim == 128)
        launch<128>(qkv, qStride, kCache, vCache, out, shape, contextLength, workspace, s);
    else
        throw std::invalid_argument("decode attention: head_dim " + std::to_string(shape.headDim) +
                                    " (supported: 64, 128)");
}

}  // namespace ws::kernels
