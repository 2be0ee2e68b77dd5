#include <stdexcept>

#include "common/cuda_check.h"
#include "common/mma.cuh"
#include "common/vector_math.cuh"
#include "gemv/gemv.h"

namespace ws::kernels {

GemvRung parseGemvRung(const std::string& name) {
    if (name == "naive") return GemvRung::Naive;
    if (name == "vectorized") return GemvRung::Vectorized;
    if (name == "splitk") return GemvRung::SplitK;
    if (name == "mma") return GemvRung::Mma;
    throw std::invalid_argument("unknown gemv rung '" + name +
                                "' (naive, vectorized, splitk, mma; int8 and cublas are separate)");
}

namespace {

__global__ void gemvNaive(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int n,
                          int k) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (j >= n) return;
    float acc = 0;
    for (int p = 0; p < k; ++p)
        acc += __bfloat162float(x[std::size_t(b) * k + p]) *
               __bfloat162float(w[std::size_t(j) * k + p]);
    y[std::size_t(b) * n + j] = __float2bfloat16(acc);
}

// ROWS output rows per block, WARPS warps splitting K; each thread handles
// The end of a multi-row kernel: each warp holds partial dot products for
// ROWS rows × MAXB batch columns; they are summed across the block's warps
// and y[b][row] = scale(row, sum) is stored.
template <int ROWS, int MAXB, int WARPS, typename Scale>
__device__ __forceinline__ void storeBlockSums(const float (&acc)[ROWS][MAXB], int row0, int n,
                                               int batch, __nv_bfloat16* y, Scale scale) {
    __shared__ float partial[WARPS][ROWS][MAXB];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
#pragma unroll
        for (int b = 0; b < MAXB; ++b) {
            float v = warpSum(acc[r][b]);
            if (lane == 0) partial[warp][r][b] = v;
        }
    __syncthreads();
    for (int i = threadIdx.x; i < ROWS * MAXB; i += WARPS * 32) {
        int r = i / MAXB, b = i % MAXB;
        if (b >= batch || row0 + r >= n) continue;
        float s = 0;
#pragma unroll
        for (int wi = 0; wi < WARPS; ++wi)
            s += partial[wi][r][b];
        y[std::size_t(b) * n + row0 + r] = __float2bfloat16(scale(row0 + r, s));
    }
}

// 8-element (16-byte) chunks c = tid, tid + threads, … of every row, UNROLL of
// them per row at a time: all ROWS × UNROLL loads are issued before the first
// is used, which is what keeps enough bytes in flight to approach the copy
// bandwidth. Measured on the H200 (gemv_variants.cu, an experiment removed
// from scripts/gpu/experiments since; it is in the git history):
// UNROLL 2 is 4–9% faster than 1; the L2 256-byte prefetch hint made every
// shape slower; weights that bypass L1 and x loaded with them (batch ≤ 2,
// where its registers are cheap) gain another 1.5–3%, because x then stays
// in L1 and its latency no longer follows the weights'.
template <int MAXB, int ROWS, int WARPS, int UNROLL>
__device__ __forceinline__ void gemvChunked(const __nv_bfloat16* __restrict__ x,
                                            const __nv_bfloat16* __restrict__ w,
                                            __nv_bfloat16* __restrict__ y, int batch, int n,
                                            int k) {
    constexpr int threads = WARPS * 32;
    constexpr bool preloadX = MAXB <= 2;
    int row0 = blockIdx.x * ROWS;
    float acc[ROWS][MAXB] = {};
    int chunks = k / 8;
    for (int c0 = threadIdx.x; c0 < chunks; c0 += threads * UNROLL) {
        uint4 wv[UNROLL][ROWS];  // raw: converting at use keeps the registers in budget
        uint4 xq[UNROLL][preloadX ? MAXB : 1];
        if constexpr (preloadX) {
#pragma unroll
            for (int u = 0; u < UNROLL; ++u)
#pragma unroll
                for (int b = 0; b < MAXB; ++b) {
                    int c = min(c0 + u * threads, chunks - 1);
                    xq[u][b] = __ldg(
                        reinterpret_cast<const uint4*>(x + std::size_t(min(b, batch - 1)) * k) + c);
                }
        }
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
#pragma unroll
            for (int r = 0; r < ROWS; ++r) {
                int row = min(row0 + r, n - 1), c = c0 + u * threads;
                wv[u][r] = c < chunks
                               ? loadStreaming16(w + std::size_t(row) * k + std::size_t(c) * 8)
                               : uint4{0, 0, 0, 0};
            }
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            int c = c0 + u * threads;
            if (c >= chunks) break;
#pragma unroll
            for (int b = 0; b < MAXB; ++b) {
                if (b >= batch) break;
                float xv[8];
                if constexpr (preloadX)
                    unpackBf16x8(xq[u][b], xv);
                else
                    loadBf16x8(x + std::size_t(b) * k + c * 8, xv);
#pragma unroll
                for (int r = 0; r < ROWS; ++r)
                    acc[r][b] += dot8Bf16(wv[u][r], xv);
            }
        }
    }
    storeBlockSums<ROWS, MAXB, WARPS>(acc, row0, n, batch, y, [](int, float sum) { return sum; });
}

// Distinct kernel names, so a timeline or kernel summary tells the rungs apart.
template <int MAXB>
__global__ void __launch_bounds__(32)
    gemvVectorized(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
                   __nv_bfloat16* __restrict__ y, int batch, int n, int k) {
    gemvChunked<MAXB, 1, 1, 1>(x, w, y, batch, n, k);
}

template <int MAXB>
__global__ void __launch_bounds__(256)
    gemvSplitK(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
               __nv_bfloat16* __restrict__ y, int batch, int n, int k) {
    gemvChunked<MAXB, 4, 8, 2>(x, w, y, batch, n, k);
}

// Batch 2–16 on tensor cores: a block owns 16 weight rows (the m side of
// mma.sync m16n8k16) and the batch rows are the n side (NT tiles of 8); its 8
// warps split K. The dot products sum over k, so each thread's share of k may
// be any fixed permutation shared by A and B: thread t of a quad takes whole
// 8-element chunks t and t + 4 of a 64-element k block, one 16-byte load per
// weight row, and feeds their words to two mma k-steps. Per thread, UNROLL k
// blocks (4 × UNROLL weight loads) are in flight before the first mma.
template <int NT, int UNROLL>
__global__ void __launch_bounds__(256)
    gemvMma(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
            __nv_bfloat16* __restrict__ y, int batch, int n, int k) {
    constexpr int kWarps = 8, kBlockK = 64;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int row0 = blockIdx.x * 16, chunks = k / 8;
    const auto* wRow0 = w + std::size_t(min(row0 + g, n - 1)) * k;
    const auto* wRow8 = w + std::size_t(min(row0 + g + 8, n - 1)) * k;
    float acc[NT][4] = {};
    const int kBlocks = (k + kBlockK - 1) / kBlockK;
    for (int kb0 = warp; kb0 < kBlocks; kb0 += kWarps * UNROLL) {
        // Weights and activations of UNROLL k blocks are all loaded before the
        // first mma: the activations (up to 16 × k × 2 bytes) come from L2, not
        // L1, so waiting for each one at its mma would serialize their latency.
        uint4 a[UNROLL][2][2];  // [k block][chunk t or t + 4][row g or g + 8]
        uint4 xv[UNROLL][2][NT];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                int c = (kb0 + u * kWarps) * 8 + t + 4 * h;
                bool in = c < chunks;
                a[u][h][0] = in ? __ldg(reinterpret_cast<const uint4*>(wRow0) + c) : uint4{};
                a[u][h][1] = in ? __ldg(reinterpret_cast<const uint4*>(wRow8) + c) : uint4{};
#pragma unroll
                for (int nt = 0; nt < NT; ++nt) {
                    int b = nt * 8 + g;
                    xv[u][h][nt] =
                        in && b < batch
                            ? __ldg(reinterpret_cast<const uint4*>(x + std::size_t(b) * k) + c)
                            : uint4{};
                }
            }
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
#pragma unroll
            for (int h = 0; h < 2; ++h)
#pragma unroll
                for (int nt = 0; nt < NT; ++nt) {
                    const uint4& xq = xv[u][h][nt];
                    unsigned fa0[4] = {a[u][h][0].x, a[u][h][1].x, a[u][h][0].y, a[u][h][1].y};
                    unsigned fb0[2] = {xq.x, xq.y};
                    mma16816(acc[nt], fa0, fb0);
                    unsigned fa1[4] = {a[u][h][0].z, a[u][h][1].z, a[u][h][0].w, a[u][h][1].w};
                    unsigned fb1[2] = {xq.z, xq.w};
                    mma16816(acc[nt], fa1, fb1);
                }
    }
    // acc[nt]: rows g, g + 8 × batch columns nt·8 + 2t, + 1. Sum over the warps.
    __shared__ float partial[kWarps][16][NT * 8];
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
        partial[warp][g][nt * 8 + 2 * t] = acc[nt][0];
        partial[warp][g][nt * 8 + 2 * t + 1] = acc[nt][1];
        partial[warp][g + 8][nt * 8 + 2 * t] = acc[nt][2];
        partial[warp][g + 8][nt * 8 + 2 * t + 1] = acc[nt][3];
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 16 * NT * 8; i += blockDim.x) {
        int r = i % 16, b = i / 16;
        if (b >= batch || row0 + r >= n) continue;
        float sum = 0;
#pragma unroll
        for (int wi = 0; wi < kWarps; ++wi)
            sum += partial[wi][r][b];
        y[std::size_t(b) * n + row0 + r] = __float2bfloat16(sum);
    }
}

template <int MAXB>
__global__ void __launch_bounds__(256)
    gemvInt8Kernel(const __nv_bfloat16* __restrict__ x, const std::int8_t* __restrict__ w,
                   const float* __restrict__ scales, __nv_bfloat16* __restrict__ y, int batch,
                   int n, int k) {
    constexpr int ROWS = 4, WARPS = 8, threads = 256;
    int row0 = blockIdx.x * ROWS;
    float acc[ROWS][MAXB] = {};
    int chunks = k / 16;
    for (int c = threadIdx.x; c < chunks; c += threads) {
        float wv[ROWS][16];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            int row = min(row0 + r, n - 1);
            loadInt8x16(w + std::size_t(row) * k + c * 16, wv[r]);
        }
#pragma unroll
        for (int b = 0; b < MAXB; ++b) {
            if (b >= batch) break;
            float xv[16];
            loadBf16x8(x + std::size_t(b) * k + c * 16, xv);
            loadBf16x8(x + std::size_t(b) * k + c * 16 + 8, xv + 8);
#pragma unroll
            for (int r = 0; r < ROWS; ++r)
                acc[r][b] += dot8(wv[r], xv) + dot8(wv[r] + 8, xv + 8);
        }
    }
    storeBlockSums<ROWS, MAXB, WARPS>(acc, row0, n, batch, y,
                                      [scales](int row, float sum) { return sum * scales[row]; });
}

void checkShape(int batch, int n, int k, int kMultiple, const char* what) {
    if (batch < 1 || batch > kGemvMaxBatch || n < 1 || k < 1 || k % kMultiple != 0)
        throw std::invalid_argument(
            std::string(what) + ": needs 1 <= batch <= 16 and k a multiple of " +
            std::to_string(kMultiple) + " (got batch " + std::to_string(batch) + ", n " +
            std::to_string(n) + ", k " + std::to_string(k) + ")");
}

// Picks the smallest compiled batch size that holds `batch`.
#define WS_GEMV_DISPATCH(KERNEL, grid, block, ...)          \
    do {                                                    \
        if (batch <= 1)                                     \
            KERNEL<1><<<grid, block, 0, s>>>(__VA_ARGS__);  \
        else if (batch <= 2)                                \
            KERNEL<2><<<grid, block, 0, s>>>(__VA_ARGS__);  \
        else if (batch <= 4)                                \
            KERNEL<4><<<grid, block, 0, s>>>(__VA_ARGS__);  \
        else if (batch <= 8)                                \
            KERNEL<8><<<grid, block, 0, s>>>(__VA_ARGS__);  \
        else                                                \
            KERNEL<16><<<grid, block, 0, s>>>(__VA_ARGS__); \
    } while (0)

}  // namespace

void gemvBf16(GemvRung rung, const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y,
              int batch, int n, int k, cudaStream_t s) {
    switch (rung) {
        case GemvRung::Naive:
            checkShape(batch, n, k, 1, "gemv naive");
            gemvNaive<<<dim3((n + 127) / 128, batch), 128, 0, s>>>(x, w, y, n, k);
            break;
        case GemvRung::Vectorized:
            checkShape(batch, n, k, 8, "gemv vectorized");
            WS_GEMV_DISPATCH(gemvVectorized, dim3(n), dim3(32), x, w, y, batch, n, k);
            break;
        case GemvRung::SplitK:
            checkShape(batch, n, k, 8, "gemv splitk");
            WS_GEMV_DISPATCH(gemvSplitK, dim3((n + 3) / 4), dim3(256), x, w, y, batch, n, k);
            break;
        case GemvRung::Mma:
            checkShape(batch, n, k, 8, "gemv mma");
            if (batch <= 8)
                gemvMma<1, 2><<<(n + 15) / 16, 256, 0, s>>>(x, w, y, batch, n, k);
            else
                gemvMma<2, 2><<<(n + 15) / 16, 256, 0, s>>>(x, w, y, batch, n, k);
            break;
    }
    WS_CUDA_LAUNCHED();
}

void gemvInt8(const __nv_bfloat16* x, const std::int8_t* w, const float* scales, __nv_bfloat16* y,
              int batch, int n, int k, cudaStream_t s) {
    checkShape(batch, n, k, 16, "gemv int8");
    dim3 grid((n + 3) / 4), block(256);
    if (batch <= 1)
        gemvInt8Kernel<1><<<grid, block, 0, s>>>(x, w, scales, y, batch, n, k);
    else if (batch <= 4)
        gemvInt8Kernel<4><<<grid, block, 0, s>>>(x, w, scales, y, batch, n, k);
    else
        gemvInt8Kernel<16><<<grid, block, 0, s>>>(x, w, scales, y, batch, n, k);
    WS_CUDA_LAUNCHED();
}

}  // namespace ws::kernels
