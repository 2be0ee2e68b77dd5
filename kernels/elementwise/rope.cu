#include <stdexcept>

#include "common/cuda_check.h"
#include "common/vector_math.cuh"
#include "elementwise/elementwise.h"

namespace ws::kernels {

namespace {

__global__ void ropeNaive(__nv_bfloat16* qkv, int tokens, int rowStride, int heads, int headDim,
                          int tokensPerSequence, const int* positionBase, float theta) {
    int half = headDim / 2;
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= std::size_t(tokens) * heads * half) return;
    int pair = int(i % half);
    int head = int(i / half % heads);
    int token = int(i / half / heads);
    float pos = float(*positionBase + token % tokensPerSequence);
    float freq = powf(theta, -2.0f * pair / headDim);
    float sn, cs;
    sincosf(pos * freq, &sn, &cs);
    __nv_bfloat16* h = qkv + std::size_t(token) * rowStride + std::size_t(head) * headDim;
    float a = __bfloat162float(h[pair]), b = __bfloat162float(h[pair + half]);
    h[pair] = __float2bfloat16(a * cs - b * sn);
    h[pair + half] = __float2bfloat16(b * cs + a * sn);
}

// Eight pairs per thread: one 16-byte load from each half of the head.
__global__ void ropeVectorized(__nv_bfloat16* qkv, int tokens, int rowStride, int heads,
                               int headDim, int tokensPerSequence, const int* positionBase,
                               float log2Theta) {
    int groups = headDim / 16;
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= std::size_t(tokens) * heads * groups) return;
    int group = int(i % groups);
    int head = int(i / groups % heads);
    int token = int(i / groups / heads);
    float pos = float(*positionBase + token % tokensPerSequence);
    int half = headDim / 2;
    __nv_bfloat16* h = qkv + std::size_t(token) * rowStride + std::size_t(head) * headDim;
    float a[8], b[8], outA[8], outB[8];
    loadBf16x8Coherent(h + group * 8, a);
    loadBf16x8Coherent(h + half + group * 8, b);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
        int pair = group * 8 + j;
        float freq = exp2f(-log2Theta * 2.0f * pair / headDim);
        float sn, cs;
        sincosf(pos * freq, &sn, &cs);
        outA[j] = a[j] * cs - b[j] * sn;
        outB[j] = b[j] * cs + a[j] * sn;
    }
    storeBf16x8(h + group * 8, outA);
    storeBf16x8(h + half + group * 8, outB);
}

}  // namespace

void rope(ElementwiseRung rung, __nv_bfloat16* qkv, int tokens, int rowStride, int rotatedHeads,
          int headDim, int tokensPerSequence, const int* positionBase, float theta,
          cudaStream_t s) {
    if (tokens < 1 || rotatedHeads < 1 || headDim % 2 != 0 || tokensPerSequence < 1)
        throw std::invalid_argument("rope: bad shape");
    if (rung == ElementwiseRung::Naive) {
        std::size_t n = std::size_t(tokens) * rotatedHeads * (headDim / 2);
        ropeNaive<<<unsigned((n + 255) / 256), 256, 0, s>>>(
            qkv, tokens, rowStride, rotatedHeads, headDim, tokensPerSequence, positionBase, theta);
    } else {
        if (headDim % 16 != 0)
            throw std::invalid_argument("rope fused: head_dim must be a multiple of 16");
        std::size_t n = std::size_t(tokens) * rotatedHeads * (headDim / 16);
        ropeVectorized<<<unsigned((n + 255) / 256), 256, 0, s>>>(
            qkv, tokens, rowStride, rotatedHeads, headDim, tokensPerSequence, positionBase,
            log2f(theta));
    }
    WS_CUDA_LAUNCHED();
}

}  // namespace ws::kernels
