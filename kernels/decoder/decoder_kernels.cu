#include "common/cuda_check.h"
#include "common/vector_math.cuh"
#include "decoder/decoder_kernels.h"

namespace ws::kernels {

namespace {

__global__ void embedKernel(const __nv_bfloat16* table, const int* ids, __nv_bfloat16* x,
                            int hidden) {
    const uint4* src =
        reinterpret_cast<const uint4*>(table + std::size_t(ids[blockIdx.x]) * hidden);
    uint4* dst = reinterpret_cast<uint4*>(x + std::size_t(blockIdx.x) * hidden);
    for (int c = threadIdx.x; c < hidden / 8; c += blockDim.x)
        dst[c] = src[c];
}

__global__ void gatherKernel(const __nv_bfloat16* in, __nv_bfloat16* out, int tokensPerRequest,
                             int hidden) {
    const uint4* src = reinterpret_cast<const uint4*>(
        in + (std::size_t(blockIdx.x + 1) * tokensPerRequest - 1) * hidden);
    uint4* dst = reinterpret_cast<uint4*>(out + std::size_t(blockIdx.x) * hidden);
    for (int c = threadIdx.x; c < hidden / 8; c += blockDim.x)
        dst[c] = src[c];
}

// Greedy sampling in two stages: kArgmaxBlocks blocks per request each find
// the best of their slice of the vocabulary (one block alone is latency-bound:
// 50 µs for 128k logits), then one warp per request picks among them.
__device__ __forceinline__ void keepBetter(float& best, int& index, float v, int i) {
    if (v > best || (v == best && i < index)) {
        best = v;
        index = i;
    }
}

__global__ void __launch_bounds__(256)
    argmaxPartial(const __nv_bfloat16* logits, int vocab, SampleState st) {
    int b = blockIdx.y;
    const __nv_bfloat16* row = logits + std::size_t(b) * vocab;
    int per = (vocab + gridDim.x - 1) / gridDim.x;
    int from = blockIdx.x * per, to = min(vocab, from + per);
    float best = -INFINITY;
    int index = vocab;
#pragma unroll 4
    for (int i = from + threadIdx.x; i < to; i += blockDim.x)
        keepBetter(best, index, __bfloat162float(row[i]), i);
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
        st.partialValues[b * gridDim.x + blockIdx.x] = best;
        st.partialIndices[b * gridDim.x + blockIdx.x] = index;
    }
    if (b == 0 && st.logitSlots) {
        int step = st.step ? *st.step : 0;
        if (step < st.slots)
            for (int i = from + threadIdx.x; i < to; i += blockDim.x)
                st.logitSlots[std::size_t(step) * vocab + i] = row[i];
    }
}

__global__ void argmaxFinal(int batch, SampleState st) {
    int b = blockIdx.x, lane = threadIdx.x;
    float best = st.partialValues[b * kArgmaxBlocks + lane];
    int index = st.partialIndices[b * kArgmaxBlocks + lane];
    for (int o = 16; o > 0; o >>= 1)
        keepBetter(best, index, __shfl_xor_sync(0xffffffffu, best, o),
                   __shfl_xor_sync(0xffffffffu, index, o));
    if (lane == 0) {
        int step = st.step ? *st.step : 0;
        st.tokens[b] = index;
        if (st.generated) st.generated[std::size_t(step) * batch + b] = index;
    }
}

__global__ void advanceCounters(SampleState st) {
    if (st.step) ++*st.step;
    if (st.position) ++*st.position;
    if (st.context) ++*st.context;
}

__global__ void quantizeKernel(const __nv_bfloat16* w, std::int8_t* q, float* scales, int cols) {
    const __nv_bfloat16* row = w + std::size_t(blockIdx.x) * cols;
    float mx = 0;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        mx = fmaxf(mx, fabsf(__bfloat162float(row[c])));
    mx = blockMax(mx);
    float scale = mx > 0 ? mx / 127.0f : 1.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        q[std::size_t(blockIdx.x) * cols + c] =
            static_cast<std::int8_t>(__float2int_rn(__bfloat162float(row[c]) / scale));
    if (threadIdx.x == 0) scales[blockIdx.x] = scale;
}

__global__ void dequantizeKernel(const std::int8_t* q, const float* scales, __nv_bfloat16* w,
                                 int cols) {
    float scale = scales[blockIdx.x];
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        w[std::size_t(blockIdx.x) * cols + c] =
            __float2bfloat16(float(q[std::size_t(blockIdx.x) * cols + c]) * scale);
}

}  // namespace

void embed(const __nv_bfloat16* table, const int* ids, __nv_bfloat16* x, int rows, int hidden,
           cudaStream_t s) {
    embedKernel<<<rows, 128, 0, s>>>(table, ids, x, hidden);
    WS_CUDA_LAUNCHED();
}

void gatherLastRows(const __nv_bfloat16* in, __nv_bfloat16* out, int requests, int tokensPerRequest,
                    int hidden, cudaStream_t s) {
    gatherKernel<<<requests, 128, 0, s>>>(in, out, tokensPerRequest, hidden);
    WS_CUDA_LAUNCHED();
}

void sampleGreedy(const __nv_bfloat16* logits, int batch, int vocab, const SampleState& st,
                  cudaStream_t s) {
    static_assert(kArgmaxBlocks == 32, "argmaxFinal reduces one partial per lane");
    argmaxPartial<<<dim3(kArgmaxBlocks, batch), 256, 0, s>>>(logits, vocab, st);
    WS_CUDA_LAUNCHED();
    argmaxFinal<<<batch, 32, 0, s>>>(batch, st);
    WS_CUDA_LAUNCHED();
    if (st.step || st.position || st.context) {
        advanceCounters<<<1, 1, 0, s>>>(st);
        WS_CUDA_LAUNCHED();
    }
}

void quantizeRows(const __nv_bfloat16* w, std::int8_t* q, float* scales, int rows, int cols,
                  cudaStream_t s) {
    quantizeKernel<<<rows, 256, 0, s>>>(w, q, scales, cols);
    WS_CUDA_LAUNCHED();
}

void dequantizeRows(const std::int8_t* q, const float* scales, __nv_bfloat16* w, int rows, int cols,
                    cudaStream_t s) {
    dequantizeKernel<<<rows, 256, 0, s>>>(q, scales, w, cols);
    WS_CUDA_LAUNCHED();
}

}  // namespace ws::kernels
