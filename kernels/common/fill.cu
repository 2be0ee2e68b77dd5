#include "common/cuda_check.h"
#include "common/fill.h"
#include "host/bf16.h"

namespace ws::kernels {

namespace {

// Mirrors hashIndex() in host/bf16.h bit for bit.
__device__ std::uint32_t hashAt(std::uint64_t seed, std::uint64_t index) {
    std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + index + 0x632BE59BD9B4E019ull;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return static_cast<std::uint32_t>(x);
}

__device__ float unitAt(std::uint64_t seed, std::uint64_t index) {
    return static_cast<float>(hashAt(seed, index) >> 8) * (1.0f / 16777216.0f);
}

template <typename F>
__global__ void fillKernel(std::size_t n, F f) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        f(i);
}

template <typename F>
void launchFill(std::size_t n, cudaStream_t s, F f) {
    if (n == 0) return;
    std::size_t blocks = (n + 255) / 256;
    fillKernel<<<unsigned(blocks < 65536 ? blocks : 65536), 256, 0, s>>>(n, f);
    WS_CUDA_LAUNCHED();
}

}  // namespace

void fillUniform(__nv_bfloat16* p, std::size_t n, std::uint64_t seed, float scale, cudaStream_t s) {
    launchFill(n, s, [=] __device__(std::size_t i) {
        p[i] = __float2bfloat16((unitAt(seed, i) * 2.0f - 1.0f) * scale);
    });
}

void fillUniformInt8(std::int8_t* p, std::size_t n, std::uint64_t seed, cudaStream_t s) {
    launchFill(n, s, [=] __device__(std::size_t i) {
        p[i] = static_cast<std::int8_t>(int(hashAt(seed, i) % 255u) - 127);
    });
}

void fillUniformFloat(float* p, std::size_t n, std::uint64_t seed, float lo, float hi,
                      cudaStream_t s) {
    launchFill(n, s, [=] __device__(std::size_t i) { p[i] = lo + (hi - lo) * unitAt(seed, i); });
}

void fillConstant(__nv_bfloat16* p, std::size_t n, float value, cudaStream_t s) {
    launchFill(n, s, [=] __device__(std::size_t i) { p[i] = __float2bfloat16(value); });
}

void poison(__nv_bfloat16* p, std::size_t n, cudaStream_t s) {
    launchFill(n, s, [=] __device__(std::size_t i) { p[i] = __ushort_as_bfloat16(0x7fff); });
}

}  // namespace ws::kernels
