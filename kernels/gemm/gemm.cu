#include <stdexcept>

#include "common/cuda_check.h"
#include "gemm/gemm.h"

namespace ws::kernels {

GemmRung parseGemmRung(const std::string& name) {
    if (name == "naive") return GemmRung::Naive;
    if (name == "tiled") return GemmRung::Tiled;
    if (name == "regblock") return GemmRung::RegBlock;
    if (name == "mma") return GemmRung::Mma;
    if (name == "mma_wide") return GemmRung::MmaWide;
    if (name == "wgmma") return GemmRung::Wgmma;
    if (name == "cublas") return GemmRung::Cublas;
    throw std::invalid_argument("unknown gemm rung '" + name +
                                "' (naive, tiled, regblock, mma, mma_wide, wgmma, cublas)");
}

const char* toString(GemmRung rung) {
    switch (rung) {
        case GemmRung::Naive:
            return "naive";
        case GemmRung::Tiled:
            return "tiled";
        case GemmRung::RegBlock:
            return "regblock";
        case GemmRung::Mma:
            return "mma";
        case GemmRung::MmaWide:
            return "mma_wide";
        case GemmRung::Wgmma:
            return "wgmma";
        case GemmRung::Cublas:
            return "cublas";
    }
    return "?";
}

std::string gemmShapeProblem(GemmRung rung, int m, int n, int k) {
    if (m < 1 || n < 1 || k < 1) return "m, n and k must be positive";
    auto need = [&](bool ok, const std::string& rule) { return ok ? std::string() : rule; };
    switch (rung) {
        case GemmRung::RegBlock:
            return need(m % 64 == 0 && n % 64 == 0 && k % 16 == 0,
                        "regblock needs m and n multiples of 64 and k a multiple of 16");
        case GemmRung::Mma:
        case GemmRung::MmaWide:
            return need(n % 8 == 0 && k % 32 == 0, "mma needs n a multiple of 8 and k of 32");
        case GemmRung::Wgmma:
            return need(k % 8 == 0, "wgmma needs k a multiple of 8 (16-byte TMA rows)");
        default:
            return {};
    }
}

namespace {

__global__ void gemmNaive(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int m,
                          int n, int k) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n) return;
    float acc = 0;
    for (int p = 0; p < k; ++p)
        acc += __bfloat162float(a[std::size_t(row) * k + p]) *
               __bfloat162float(b[std::size_t(col) * k + p]);
    c[std::size_t(row) * n + col] = __float2bfloat16(acc);
}

constexpr int kTile = 32;

__global__ void __launch_bounds__(kTile* kTile)
    gemmTiled(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int m, int n,
              int k) {
    __shared__ float as[kTile][kTile + 1];
    __shared__ float bs[kTile][kTile + 1];  // bs[col][p]: padded so column reads do not conflict
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
    int bRow = blockIdx.x * kTile + ty;
    float acc = 0;
    for (int k0 = 0; k0 < k; k0 += kTile) {
        int p = k0 + tx;
        as[ty][tx] = row < m && p < k ? __bfloat162float(a[std::size_t(row) * k + p]) : 0.0f;
        bs[ty][tx] = bRow < n && p < k ? __bfloat162float(b[std::size_t(bRow) * k + p]) : 0.0f;
        __syncthreads();
#pragma unroll
        for (int q = 0; q < kTile; ++q)
            acc += as[ty][q] * bs[tx][q];
        __syncthreads();
    }
    if (row < m && col < n) c[std::size_t(row) * n + col] = __float2bfloat16(acc);
}

constexpr int kRbTile = 64, kRbK = 16;

// 256 threads; thread (tx, ty) owns rows ty*4.. and columns tx*4.. of the tile.
__global__ void __launch_bounds__(256)
    gemmRegBlock(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ b,
                 __nv_bfloat16* __restrict__ c, int m, int n, int k) {
    __shared__ __align__(16) float as[kRbK][kRbTile];  // k-major: a row of 4 outputs is one float4
    __shared__ __align__(16) float bs[kRbK][kRbTile];
    int t = threadIdx.x, tx = t % 16, ty = t / 16;
    int m0 = blockIdx.y * kRbTile, n0 = blockIdx.x * kRbTile;
    float acc[4][4] = {};
    // Threads 0–127 load A (64 rows × 2 chunks of 8), 128–255 load B.
    int loadRow = (t % 128) / 2, loadChunk = t % 2;
    const __nv_bfloat16* src =
        t < 128 ? a + std::size_t(m0 + loadRow) * k : b + std::size_t(n0 + loadRow) * k;
    float(*dst)[kRbTile] = t < 128 ? as : bs;
    for (int k0 = 0; k0 < k; k0 += kRbK) {
        uint4 raw = __ldg(reinterpret_cast<const uint4*>(src + k0 + loadChunk * 8));
        const __nv_bfloat16* h = reinterpret_cast<const __nv_bfloat16*>(&raw);
#pragma unroll
        for (int i = 0; i < 8; ++i)
            dst[loadChunk * 8 + i][loadRow] = __bfloat162float(h[i]);
        __syncthreads();
#pragma unroll
        for (int p = 0; p < kRbK; ++p) {
            float4 av = *reinterpret_cast<const float4*>(&as[p][ty * 4]);
            float4 bv = *reinterpret_cast<const float4*>(&bs[p][tx * 4]);
            float ar[4] = {av.x, av.y, av.z, av.w}, br[4] = {bv.x, bv.y, bv.z, bv.w};
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    acc[i][j] = fmaf(ar[i], br[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        __nv_bfloat162 lo = __floats2bfloat162_rn(acc[i][0], acc[i][1]);
        __nv_bfloat162 hi = __floats2bfloat162_rn(acc[i][2], acc[i][3]);
        uint2 packed;
        packed.x = *reinterpret_cast<unsigned*>(&lo);
        packed.y = *reinterpret_cast<unsigned*>(&hi);
        *reinterpret_cast<uint2*>(c + std::size_t(m0 + ty * 4 + i) * n + n0 + tx * 4) = packed;
    }
}

void gemmCublas(cublasHandle_t handle, const __nv_bfloat16* a, const __nv_bfloat16* b,
                __nv_bfloat16* c, int m, int n, int k) {
    if (!handle) throw std::invalid_argument("gemm cublas: no cuBLAS handle");
    float alpha = 1, beta = 0;
    // Row-major C[m×n] is column-major Cᵀ[n×m] = B[n×k] · Aᵀ: B is k×n column-major
    // (transposed), A is k×m column-major.
    WS_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, b, CUDA_R_16BF, k, a,
                           CUDA_R_16BF, k, &beta, c, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F,
                           CUBLAS_GEMM_DEFAULT));
}

}  // namespace

void gemmBf16(GemmRung rung, const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c,
              int m, int n, int k, cudaStream_t s, cublasHandle_t cublas) {
    if (auto problem = gemmShapeProblem(rung, m, n, k); !problem.empty())
        throw std::invalid_argument("gemm " + std::string(toString(rung)) + " " +
                                    std::to_string(m) + "x" + std::to_string(n) + "x" +
                                    std::to_string(k) + ": " + problem);
    switch (rung) {
        case GemmRung::Naive:
            gemmNaive<<<dim3((n + 15) / 16, (m + 15) / 16), dim3(16, 16), 0, s>>>(a, b, c, m, n, k);
            break;
        case GemmRung::Tiled:
            gemmTiled<<<dim3((n + kTile - 1) / kTile, (m + kTile - 1) / kTile), dim3(kTile, kTile),
                        0, s>>>(a, b, c, m, n, k);
            break;
        case GemmRung::RegBlock:
            gemmRegBlock<<<dim3(n / kRbTile, m / kRbTile), 256, 0, s>>>(a, b, c, m, n, k);
            break;
        case GemmRung::Mma:
        case GemmRung::MmaWide:
            gemmMma(a, b, c, m, n, k, s, rung == GemmRung::MmaWide);
            break;
        case GemmRung::Wgmma:
            gemmWgmma(a, b, c, m, n, k, s);
            return;
        case GemmRung::Cublas:
            gemmCublas(cublas, a, b, c, m, n, k);
            return;
    }
    WS_CUDA_LAUNCHED();
}

}  // namespace ws::kernels
