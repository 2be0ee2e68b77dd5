#include <stdexcept>

#include "common/cuda_check.h"
#include "common/vector_math.cuh"
#include "elementwise/elementwise.h"

namespace ws::kernels {

ElementwiseRung parseElementwiseRung(const std::string& name) {
    if (name == "naive") return ElementwiseRung::Naive;
    if (name == "fused") return ElementwiseRung::Fused;
    throw std::invalid_argument("unknown rung '" + name + "' (naive, fused)");
}

namespace {

__global__ void addInPlace(const __nv_bfloat16* x, __nv_bfloat16* residual, std::size_t n) {
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n)
        residual[i] = __float2bfloat16(__bfloat162float(x[i]) + __bfloat162float(residual[i]));
}

__global__ void rmsnormNaive(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y,
                             int cols, float eps) {
    const __nv_bfloat16* row = x + std::size_t(blockIdx.x) * cols;
    float ss = 0;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float v = __bfloat162float(row[c]);
        ss += v * v;
    }
    float inv = rsqrtf(blockSum(ss) / cols + eps);
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        y[std::size_t(blockIdx.x) * cols + c] =
            __float2bfloat16(__bfloat162float(row[c]) * inv * __bfloat162float(w[c]));
}

constexpr int kMaxChunksPerThread = 8;  // 8 × 8 × 256 threads: rows up to 16384

template <bool kResidual>
__global__ void __launch_bounds__(256)
    rmsnormFused(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* residual,
                 const __nv_bfloat16* __restrict__ w, __nv_bfloat16* __restrict__ y, int cols,
                 float eps) {
    std::size_t base = std::size_t(blockIdx.x) * cols;
    int chunks = cols / 8;
    float v[kMaxChunksPerThread][8];
    float ss = 0;
#pragma unroll
    for (int i = 0; i < kMaxChunksPerThread; ++i) {
        int c = threadIdx.x + i * 256;
        if (c >= chunks) break;
        loadBf16x8(x + base + c * 8, v[i]);
        if constexpr (kResidual) {
            float r[8];
            loadBf16x8Coherent(residual + base + c * 8, r);
#pragma unroll
            for (int j = 0; j < 8; ++j)  // round as the stored residual is rounded
                v[i][j] = __bfloat162float(__float2bfloat16(v[i][j] + r[j]));
            storeBf16x8(residual + base + c * 8, v[i]);
        }
#pragma unroll
        for (int j = 0; j < 8; ++j)
            ss += v[i][j] * v[i][j];
    }
    float inv = rsqrtf(blockSum(ss) / cols + eps);
#pragma unroll
    for (int i = 0; i < kMaxChunksPerThread; ++i) {
        int c = threadIdx.x + i * 256;
        if (c >= chunks) break;
        float wv[8], out[8];
        loadBf16x8(w + c * 8, wv);
#pragma unroll
        for (int j = 0; j < 8; ++j)
            out[j] = v[i][j] * inv * wv[j];
        storeBf16x8(y + base + c * 8, out);
    }
}

}  // namespace

void rmsnorm(ElementwiseRung rung, const __nv_bfloat16* x, __nv_bfloat16* residual,
             const __nv_bfloat16* weight, __nv_bfloat16* y, int rows, int cols, float eps,
             cudaStream_t s) {
    if (rows < 1 || cols < 1) throw std::invalid_argument("rmsnorm: empty shape");
    if (rung == ElementwiseRung::Naive) {
        const __nv_bfloat16* in = x;
        if (residual) {
            std::size_t n = std::size_t(rows) * cols;
            addInPlace<<<unsigned((n + 255) / 256), 256, 0, s>>>(x, residual, n);
            WS_CUDA_LAUNCHED();
            in = residual;
        }
        rmsnormNaive<<<rows, 256, 0, s>>>(in, weight, y, cols, eps);
    } else {
        if (cols % 8 != 0 || cols > kMaxChunksPerThread * 8 * 256)
            throw std::invalid_argument(
                "rmsnorm fused: cols must be a multiple of 8, at most 16384");
        if (residual)
            rmsnormFused<true><<<rows, 256, 0, s>>>(x, residual, weight, y, cols, eps);
        else
            rmsnormFused<false><<<rows, 256, 0, s>>>(x, nullptr, weight, y, cols, eps);
    }
    WS_CUDA_LAUNCHED();
}

}  // namespace ws::kernels
