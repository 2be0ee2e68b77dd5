#include <stdexcept>

#include "common/cuda_check.h"
#include "common/vector_math.cuh"
#include "elementwise/elementwise.h"

namespace ws::kernels {

namespace {

__device__ __forceinline__ float silu(float g) {
    return g / (1.0f + __expf(-g));
}

__global__ void siluMulNaive(const __nv_bfloat16* gateUp, __nv_bfloat16* out, int rows, int cols) {
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= std::size_t(rows) * cols) return;
    std::size_t r = i / cols, c = i % cols;
    float g = __bfloat162float(gateUp[r * 2 * cols + c]);
    float u = __bfloat162float(gateUp[r * 2 * cols + cols + c]);
    out[i] = __float2bfloat16(silu(g) * u);
}

__global__ void siluMulVectorized(const __nv_bfloat16* __restrict__ gateUp,
                                  __nv_bfloat16* __restrict__ out, int rows, int cols) {
    std::size_t chunk = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    std::size_t perRow = cols / 8;
    if (chunk >= std::size_t(rows) * perRow) return;
    std::size_t r = chunk / perRow, c = (chunk % perRow) * 8;
    float g[8], u[8], o[8];
    loadBf16x8(gateUp + r * 2 * cols + c, g);
    loadBf16x8(gateUp + r * 2 * cols + cols + c, u);
#pragma unroll
    for (int j = 0; j < 8; ++j)
        o[j] = silu(g[j]) * u[j];
    storeBf16x8(out + r * cols + c, o);
}

}  // namespace

void siluMul(ElementwiseRung rung, const __nv_bfloat16* gateUp, __nv_bfloat16* out, int rows,
             int cols, cudaStream_t s) {
    if (rows < 1 || cols < 1) throw std::invalid_argument("silu_mul: empty shape");
    std::size_t n = std::size_t(rows) * cols;
    if (rung == ElementwiseRung::Naive) {
        siluMulNaive<<<unsigned((n + 255) / 256), 256, 0, s>>>(gateUp, out, rows, cols);
    } else {
        if (cols % 8 != 0)
            throw std::invalid_argument("silu_mul fused: cols must be a multiple of 8");
        siluMulVectorized<<<unsigned((n / 8 + 255) / 256), 256, 0, s>>>(gateUp, out, rows, cols);
    }
    WS_CUDA_LAUNCHED();
}

}  // namespace ws::kernels
