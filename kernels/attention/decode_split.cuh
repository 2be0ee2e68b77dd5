// What the split-KV decode rungs share: the split size, the partial softmax
// state layout and the kernel that combines the splits.
#pragma once

#include <cuda_bf16.h>

#include <cstddef>

#include "common/vector_math.cuh"

namespace ws::kernels::decode_split {

// The address of `local`'s counterpart in the shared memory of cluster block `rank`.
template <typename T>
__device__ __forceinline__ T* clusterMap(T* local, int rank) {
    unsigned long long remote;
    asm volatile("mapa.u64 %0, %1, %2;\n"
                 : "=l"(remote)
                 : "l"(reinterpret_cast<unsigned long long>(local)), "r"(rank));
    return reinterpret_cast<T*>(remote);
}

constexpr int kSplitKeys = 128;  // keys per block
constexpr int kMaxGroup = 8;     // q heads per kv head served by one block

inline int splitsFor(int capacity) {
    return (capacity + kSplitKeys - 1) / kSplitKeys;
}

// Where the arrival counters (one int per request and kv head, zero between
// calls) start: after the partial states at the shortest split.
inline std::size_t counterOffset(int batch, int heads, int headDim, int capacity) {
    std::size_t slots = std::size_t(batch) * heads * splitsFor(capacity);
    return slots * 2 + slots * headDim;
}

// Floats of the whole workspace; it must be zeroed once before first use.
inline std::size_t partialFloats(int batch, int heads, int headDim, int capacity) {
    return counterOffset(batch, heads, headDim, capacity) + std::size_t(batch) * heads;
}

// Σ exp2(m_sp − M) · acc_sp over splits sp = first, first + step, … < used, for
// one float4 column (`columns` float4 per split); loads unrolled so that
// several are in flight.
__device__ __forceinline__ float4 weightedSplitSum(const float* ml, const float4* acc, int columns,
                                                   float M, int first, int step, int used) {
    float4 A = make_float4(0, 0, 0, 0);
#pragma unroll 8
    for (int sp = first; sp < used; sp += step) {
        float w = exp2f(__ldcg(ml + sp * 2) - M);
        float4 x = __ldcg(acc + std::size_t(sp) * columns);
        A.x += x.x * w;
        A.y += x.y * w;
        A.z += x.z * w;
        A.w += x.w * w;
    }
    return A;
}

// Partial state of (request, head, split) at slot = (b·heads + h)·splits + split:
// ml[2·slot] = running max (log2 domain), ml[2·slot + 1] = sum of exponentials,
// acc[slot·HD + d] = unnormalized output.
constexpr int kCombineThreads = 256;

// Combines the `used` splits of (request b, head h) with all `Threads` threads
// of the block, each a float4 column of the output, so that a long context is
// not one thread's serial loop.
template <int HD, int Threads>
__device__ void combineHead(const float* partialMl, const float* partialAcc, __nv_bfloat16* out,
                            int heads, int h, int b, int splits, int used) {
    constexpr int kColumns = HD / 4, kParts = Threads / kColumns;
    __shared__ float4 partA[kParts][kColumns];
    std::size_t slot0 = (std::size_t(b) * heads + h) * splits;
    const float* ml = partialMl + slot0 * 2;
    float M = -INFINITY;
    for (int sp = threadIdx.x; sp < used; sp += Threads)
        M = fmaxf(M, __ldcg(ml + sp * 2));
    M = blockMax(M);
    float L = 0;
    for (int sp = threadIdx.x; sp < used; sp += Threads)
        L += __ldcg(ml + sp * 2 + 1) * exp2f(__ldcg(ml + sp * 2) - M);
    L = blockSum(L);
    int column = threadIdx.x % kColumns, part = threadIdx.x / kColumns;
    const auto* acc = reinterpret_cast<const float4*>(partialAcc + slot0 * HD) + column;
    float4 A = weightedSplitSum(ml, acc, kColumns, M, part, kParts, used);
    partA[part][column] = A;
    __syncthreads();
    if (part == 0) {
        for (int q = 1; q < kParts; ++q) {
            A.x += partA[q][column].x;
            A.y += partA[q][column].y;
            A.z += partA[q][column].z;
            A.w += partA[q][column].w;
        }
        __nv_bfloat16* o = out + std::size_t(b) * heads * HD + h * HD + column * 4;
        *reinterpret_cast<__nv_bfloat162*>(o) = __floats2bfloat162_rn(A.x / L, A.y / L);
        *reinterpret_cast<__nv_bfloat162*>(o + 2) = __floats2bfloat162_rn(A.z / L, A.w / L);
    }
    __syncthreads();  // partA is reused by the next head
}

// Combines the `used` splits of `group` heads h0… of request b with all
// `Threads` threads at once: a warp per head finds its max and sum, then each
// thread owns float4 columns of the outputs and walks the splits with its
// loads unrolled, so the latency is a few L2 round trips, not one per head.
template <int HD, int Threads>
__device__ void combineGroup(const float* partialMl, const float* partialAcc, __nv_bfloat16* out,
                             int heads, int h0, int group, int b, int splits, int used) {
    constexpr int kColumns = HD / 4, kWarps = Threads / 32;
    __shared__ float headM[kMaxGroup], headInvL[kMaxGroup];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int h = warp; h < group; h += kWarps) {
        const float* ml = partialMl + (std::size_t(b) * heads + h0 + h) * splits * 2;
        float M = -INFINITY;
        for (int sp = lane; sp < used; sp += 32)
            M = fmaxf(M, __ldcg(ml + sp * 2));
        M = warpMax(M);
        float L = 0;
        for (int sp = lane; sp < used; sp += 32)
            L += __ldcg(ml + sp * 2 + 1) * exp2f(__ldcg(ml + sp * 2) - M);
        L = warpSum(L);
        if (lane == 0) {
            headM[h] = M;
            headInvL[h] = 1.0f / L;
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < group * kColumns; i += Threads) {
        const int h = i / kColumns, column = i % kColumns;
        const std::size_t slot0 = (std::size_t(b) * heads + h0 + h) * splits;
        const float* ml = partialMl + slot0 * 2;
        const auto* acc = reinterpret_cast<const float4*>(partialAcc + slot0 * HD) + column;
        float4 A = weightedSplitSum(ml, acc, kColumns, headM[h], 0, 1, used);
        const float inv = headInvL[h];
        __nv_bfloat16* o = out + (std::size_t(b) * heads + h0 + h) * HD + column * 4;
        *reinterpret_cast<__nv_bfloat162*>(o) = __floats2bfloat162_rn(A.x * inv, A.y * inv);
        *reinterpret_cast<__nv_bfloat162*>(o + 2) = __floats2bfloat162_rn(A.z * inv, A.w * inv);
    }
}

// A block per (head, request).
template <int HD>
__global__ void __launch_bounds__(kCombineThreads)
    combine(const float* __restrict__ partialMl, const float* __restrict__ partialAcc,
            __nv_bfloat16* out, int heads, const int* contextLength, int splits, int splitKeys) {
    // After a programmatic launch this waits for the split kernel's results;
    // after an ordinary launch there is nothing to wait for.
    asm volatile("griddepcontrol.wait;\n" ::: "memory");
    int used = (*contextLength + splitKeys - 1) / splitKeys;
    combineHead<HD, kCombineThreads>(partialMl, partialAcc, out, heads, blockIdx.x, blockIdx.y,
                                     splits, used);
}

// Merges the per-warp states of one block (`Warps` of them in shared memory)
// into the block's state: emit(head, d, max, sum, acc) for every head of the
// group and every d.
template <int HD, int Warps, typename Emit>
__device__ void mergeWarpStates(const float (&wm)[Warps][kMaxGroup],
                                const float (&wl)[Warps][kMaxGroup],
                                const float (&wacc)[Warps][kMaxGroup][HD], int group, Emit&& emit) {
    for (int i = threadIdx.x; i < group * HD; i += blockDim.x) {
        int g = i / HD, d = i % HD;
        float M = -INFINITY;
        for (int w = 0; w < Warps; ++w)
            M = fmaxf(M, wm[w][g]);
        float L = 0, A = 0;
        for (int w = 0; w < Warps; ++w) {
            if (wm[w][g] == -INFINITY) continue;
            float f = exp2f(wm[w][g] - M);
            L += wl[w][g] * f;
            A += wacc[w][g][d] * f;
        }
        emit(g, d, M, L, A);
    }
}

// The block's partial state in global memory, for a combine after the last split.
template <int HD, int Warps>
__device__ void storeBlockState(const float (&wm)[Warps][kMaxGroup],
                                const float (&wl)[Warps][kMaxGroup],
                                const float (&wacc)[Warps][kMaxGroup][HD], float* partialMl,
                                float* partialAcc, int b, int heads, int kvh, int group, int split,
                                int splits) {
    mergeWarpStates<HD, Warps>(wm, wl, wacc, group, [&](int g, int d, float M, float L, float A) {
        std::size_t slot = (std::size_t(b) * heads + kvh * group + g) * splits + split;
        partialAcc[slot * HD + d] = A;
        if (d == 0) {
            partialMl[slot * 2] = M;
            partialMl[slot * 2 + 1] = L;
        }
    });
}

constexpr int kMaxClusterSplits = 8;  // the portable cluster size

template <int HD>
struct BlockState {
    float m[kMaxGroup], l[kMaxGroup];
    float acc[kMaxGroup][HD];
};

// When the splits of one (request, kv head) are the blocks of one thread-block
// cluster, they combine without leaving the SMs: each block keeps its state
// in shared memory, and after one cluster barrier block r writes the outputs
// of heads r, r + blocks, … from every block's state, read through
// distributed shared memory. No global write, fence, atomic or L2 re-read
// stands between the last split and the output.
template <int HD, int Warps>
__device__ void combineInCluster(const float (&wm)[Warps][kMaxGroup],
                                 const float (&wl)[Warps][kMaxGroup],
                                 const float (&wacc)[Warps][kMaxGroup][HD], __nv_bfloat16* out,
                                 int heads, int h0, int group, int b) {
    __shared__ BlockState<HD> state;
    mergeWarpStates<HD, Warps>(wm, wl, wacc, group, [&](int g, int d, float M, float L, float A) {
        state.acc[g][d] = A;
        if (d == 0) {
            state.m[g] = M;
            state.l[g] = L;
        }
    });
    // Every block's state is complete (and every block runs: the first remote
    // access must follow a cluster barrier).
    asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
    asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
    unsigned rank, blocks;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
    asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(blocks));
    const BlockState<HD>* remote[kMaxClusterSplits];
#pragma unroll
    for (int r = 0; r < kMaxClusterSplits; ++r)
        remote[r] = r < int(blocks) ? clusterMap(&state, r) : &state;
    for (int h = int(rank); h < group; h += int(blocks))
        for (int d = threadIdx.x; d < HD; d += blockDim.x) {
            float m[kMaxClusterSplits], M = -INFINITY;
#pragma unroll
            for (int r = 0; r < kMaxClusterSplits; ++r) {
                m[r] = r < int(blocks) ? remote[r]->m[h] : -INFINITY;
                M = fmaxf(M, m[r]);
            }
            float L = 0, A = 0;
#pragma unroll
            for (int r = 0; r < kMaxClusterSplits; ++r) {
                if (m[r] == -INFINITY) continue;  // a block past the context, or absent
                float f = exp2f(m[r] - M);
                L += remote[r]->l[h] * f;
                A += remote[r]->acc[h][d] * f;
            }
            out[(std::size_t(b) * heads + h0 + h) * HD + d] = __float2bfloat16(A / L);
        }
    // No block leaves while another still reads its shared memory.
    asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
    asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

}  // namespace ws::kernels::decode_split
