// The tensor-core rung: mma.sync.m16n8k16 (bf16 → fp32) fed by ldmatrix from
// shared memory, which a 3-stage cp.async pipeline fills while the previous
// tiles are multiplied. 8 warps as 2 × 4, each owning a 64 × 32 piece of the
// 128 × 128 block tile (mma), or 64 × 64 of a 128 × 256 tile with a 4-deep ring
// (mma_wide: twice the MMAs per ldmatrix, one block per SM). Rows are padded to 40 elements (80
// bytes) so the eight 16-byte rows one ldmatrix phase reads fall in distinct banks.
#include <cstdint>

#include "common/cuda_check.h"
#include "common/mma.cuh"
#include "gemm/gemm.h"

namespace ws::kernels {

namespace {

constexpr int kBM = 128, kBK = 32, kLds = kBK + 8;

template <int BN, int STAGES>
constexpr int smemBytes() {
    return STAGES * (kBM + BN) * kLds * 2;
}

// Block tile 128 × BN; warp tile 64 × BN/4 (NT n8 tiles); STAGES-deep cp.async ring.
template <int BN, int STAGES>
__global__ void __launch_bounds__(256)
    gemmMmaKernel(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ b,
                  __nv_bfloat16* __restrict__ c, int m, int n, int k) {
    constexpr int NT = BN / 32;  // n8 tiles per warp
    extern __shared__ __align__(16) unsigned char smem[];
    auto* as = reinterpret_cast<__nv_bfloat16*>(smem);  // [stage][kBM][kLds]
    auto* bs = as + STAGES * kBM * kLds;                // [stage][BN][kLds]
    int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    int wm = warp / 4, wn = warp % 4;
    int m0 = blockIdx.y * kBM, n0 = blockIdx.x * BN;
    float acc[4][NT][4] = {};
    int kTiles = k / kBK;

    auto load = [&](int stage, int tile) {
        int k0 = tile * kBK;
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            int chunk = tid + i * 256, row = chunk / 4, col = (chunk % 4) * 8;
            int ar = m0 + row;
            cpAsync16(&as[(stage * kBM + row) * kLds + col],
                      a + std::size_t(ar < m ? ar : 0) * k + k0 + col, ar < m);
        }
#pragma unroll
        for (int i = 0; i < BN / 64; ++i) {
            int chunk = tid + i * 256, row = chunk / 4, col = (chunk % 4) * 8;
            int br = n0 + row;
            cpAsync16(&bs[(stage * BN + row) * kLds + col],
                      b + std::size_t(br < n ? br : 0) * k + k0 + col, br < n);
        }
    };

#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < kTiles) load(s, s);
        cpAsyncCommit();
    }
    for (int tile = 0; tile < kTiles; ++tile) {
        cpAsyncWait<STAGES - 2>();
        // Everyone's copies of `tile` have landed, and everyone is done with the
        // stage the next prefetch overwrites (read in the previous iteration).
        __syncthreads();
        if (int next = tile + STAGES - 1; next < kTiles) load(next % STAGES, next);
        cpAsyncCommit();

        const __nv_bfloat16* at = as + (tile % STAGES) * kBM * kLds;
        const __nv_bfloat16* bt = bs + (tile % STAGES) * BN * kLds;
#pragma unroll
        for (int kk = 0; kk < kBK; kk += 16) {
            unsigned af[4][4], bf[NT][2];
#pragma unroll
            for (int mi = 0; mi < 4; ++mi)
                ldmatrixX4(af[mi],
                           at + (wm * 64 + mi * 16 + lane % 16) * kLds + kk + (lane / 16) * 8);
#pragma unroll
            for (int nj = 0; nj < NT / 2; ++nj) {
                unsigned r[4];
                int row = wn * (BN / 4) + nj * 16 + (lane / 16) * 8 + lane % 8;
                ldmatrixX4(r, bt + row * kLds + kk + ((lane / 8) % 2) * 8);
                bf[2 * nj][0] = r[0];
                bf[2 * nj][1] = r[1];
                bf[2 * nj + 1][0] = r[2];
                bf[2 * nj + 1][1] = r[3];
            }
#pragma unroll
            for (int mi = 0; mi < 4; ++mi)
#pragma unroll
                for (int ni = 0; ni < NT; ++ni)
                    mma16816(acc[mi][ni], af[mi], bf[ni]);
        }
    }
    cpAsyncWait<0>();

#pragma unroll
    for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int ni = 0; ni < NT; ++ni) {
            int row = m0 + wm * 64 + mi * 16 + lane / 4;
            int col = n0 + wn * (BN / 4) + ni * 8 + (lane % 4) * 2;
            if (col >= n) continue;
            if (row < m)
                *reinterpret_cast<__nv_bfloat162*>(c + std::size_t(row) * n + col) =
                    __floats2bfloat162_rn(acc[mi][ni][0], acc[mi][ni][1]);
            if (row + 8 < m)
                *reinterpret_cast<__nv_bfloat162*>(c + std::size_t(row + 8) * n + col) =
                    __floats2bfloat162_rn(acc[mi][ni][2], acc[mi][ni][3]);
        }
}

template <int BN, int STAGES>
void launchMma(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int m, int n,
               int k, cudaStream_t s) {
    static bool configured = [] {
        WS_CUDA(cudaFuncSetAttribute(gemmMmaKernel<BN, STAGES>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     smemBytes<BN, STAGES>()));
        return true;
    }();
    (void)configured;
    dim3 grid((n + BN - 1) / BN, (m + kBM - 1) / kBM);
    gemmMmaKernel<BN, STAGES><<<grid, 256, smemBytes<BN, STAGES>(), s>>>(a, b, c, m, n, k);
    WS_CUDA_LAUNCHED();
}

}  // namespace

void gemmMma(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int m, int n, int k,
             cudaStream_t s, bool wide) {
    if (wide)
        launchMma<256, 4>(a, b, c, m, n, k, s);
    else
        launchMma<128, 3>(a, b, c, m, n, k, s);
}

}  // namespace ws::kernels
