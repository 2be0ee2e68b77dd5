#include "serving/gpu_step_kernels.h"

#include "common/cuda_check.h"

namespace ws::serving::gpu {

namespace {

__global__ void gatherRowsKernel(const __nv_bfloat16* in, const std::int32_t* rows,
                                 __nv_bfloat16* out, int hidden) {
    const auto* src = reinterpret_cast<const uint4*>(in + std::size_t(rows[blockIdx.x]) * hidden);
    auto* dst = reinterpret_cast<uint4*>(out + std::size_t(blockIdx.x) * hidden);
    for (int i = threadIdx.x; i < hidden / 8; i += blockDim.x)
        dst[i] = src[i];
}

__device__ __forceinline__ std::uint64_t mix(std::uint64_t x) {  // splitmix64's finalizer
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

__device__ __forceinline__ void keepBetter(float& best, int& index, float v, int i) {
    if (v > best || (v == best && i < index)) {
        best = v;
        index = i;
    }
}

__global__ void __launch_bounds__(256)
    samplePartial(const __nv_bfloat16* logits, int vocab, bool textOnly, const float* temperatures,
                  const std::uint32_t* seeds, const std::int32_t* outputIndex,
                  std::uint32_t* partial) {
    const int r = blockIdx.y;
    const __nv_bfloat16* row = logits + std::size_t(r) * vocab;
    const float t = temperatures[r];
    const std::uint64_t key = mix((std::uint64_t(seeds[2 * r + 1]) << 32 | seeds[2 * r]) ^
                                  mix(std::uint64_t(std::uint32_t(outputIndex[r])) + 1));
    const int candidates = textOnly ? min(vocab, 257) : vocab;
    int per = (candidates + gridDim.x - 1) / gridDim.x;
    int from = blockIdx.x * per, to = min(candidates, from + per);
    float best = -INFINITY;
    int index = vocab;
    for (int i = from + threadIdx.x; i < to; i += blockDim.x) {
        if (textOnly && (i < 32 || (i > 126 && i != 256))) continue;
        float v = __bfloat162float(row[i]);
        if (t > 0) {
            // u in (0, 1) from 24 hash bits; -log(-log u) is Gumbel(0, 1).
            float u = (float(mix(key ^ std::uint64_t(i)) >> 40) + 0.5f) * (1.0f / 16777216.0f);
            v = v / t - logf(-logf(u));
        }
        keepBetter(best, index, v, i);
    }
    for (int o = 16; o > 0; o >>= 1)
        keepBetter(best, index, __shfl_xor_sync(0xffffffffu, best, o),
                   __shfl_xor_sync(0xffffffffu, index, o));
    __shared__ float values[8];
    __shared__ int indices[8];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) {
        values[warp] = best;
        indices[warp] = index;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < int(blockDim.x / 32); ++w)
            keepBetter(best, index, values[w], indices[w]);
        std::size_t at = (std::size_t(r) * gridDim.x + blockIdx.x) * 2;
        partial[at] = __float_as_uint(best);
        partial[at + 1] = std::uint32_t(index);
    }
}

__global__ void sampleFinal(const std::uint32_t* partial, std::int32_t* tokens) {
    const int r = blockIdx.x, lane = threadIdx.x;
    std::size_t at = (std::size_t(r) * kSampleBlocks + lane) * 2;
    float best = __uint_as_float(partial[at]);
    int index = int(partial[at + 1]);
    for (int o = 16; o > 0; o >>= 1)
        keepBetter(best, index, __shfl_xor_sync(0xffffffffu, best, o),
                   __shfl_xor_sync(0xffffffffu, index, o));
    if (lane == 0) tokens[r] = index;
}

}  // namespace

void gatherRows(const __nv_bfloat16* in, const std::int32_t* rows, __nv_bfloat16* out, int count,
                int hidden, cudaStream_t s) {
    if (count < 1) return;
    gatherRowsKernel<<<count, 128, 0, s>>>(in, rows, out, hidden);
    WS_CUDA_LAUNCHED();
}

void sampleTokens(const __nv_bfloat16* logits, int count, int vocab, bool textOnly,
                  const float* temperatures, const std::uint32_t* seeds,
                  const std::int32_t* outputIndex, std::uint32_t* partial, std::int32_t* tokens,
                  cudaStream_t s) {
    if (count < 1) return;
    static_assert(kSampleBlocks == 32, "sampleFinal reduces one partial per lane");
    samplePartial<<<dim3(kSampleBlocks, count), 256, 0, s>>>(logits, vocab, textOnly, temperatures,
                                                             seeds, outputIndex, partial);
    WS_CUDA_LAUNCHED();
    sampleFinal<<<count, 32, 0, s>>>(partial, tokens);
    WS_CUDA_LAUNCHED();
}

}  // namespace ws::serving::gpu
