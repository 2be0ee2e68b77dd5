#include <stdexcept>

#include "attention/attention.h"
#include "common/cuda_check.h"
#include "common/vector_math.cuh"

namespace ws::kernels {

PrefillAttentionRung parsePrefillAttentionRung(const std::string& name) {
    if (name == "naive") return PrefillAttentionRung::Naive;
    if (name == "flash") return PrefillAttentionRung::Flash;
    if (name == "flash_mma") return PrefillAttentionRung::FlashMma;
    throw std::invalid_argument("unknown prefill attention rung '" + name +
                                "' (naive, flash, flash_mma)");
}

DecodeAttentionRung parseDecodeAttentionRung(const std::string& name) {
    if (name == "naive") return DecodeAttentionRung::Naive;
    if (name == "splitkv") return DecodeAttentionRung::SplitKv;
    if (name == "splitkv_mma") return DecodeAttentionRung::SplitKvMma;
    throw std::invalid_argument("unknown decode attention rung '" + name +
                                "' (naive, splitkv, splitkv_mma)");
}

namespace {

__global__ void appendKvKernel(const __nv_bfloat16* qkv, int tokens, int qStride, int heads,
                               int kvHeads, int headDim, int capacity, int tokensPerSequence,
                               const int* positionBase, __nv_bfloat16* kCache,
                               __nv_bfloat16* vCache) {
    int chunks = headDim / 8;
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= std::size_t(tokens) * kvHeads * chunks) return;
    int c = int(i % chunks), kvh = int(i / chunks % kvHeads), token = int(i / chunks / kvHeads);
    int b = token / tokensPerSequence, pos = *positionBase + token % tokensPerSequence;
    if (pos >= capacity) return;  // the caller checked; never write past the cache
    const __nv_bfloat16* row = qkv + std::size_t(token) * qStride;
    std::size_t dst = ((std::size_t(b) * kvHeads + kvh) * capacity + pos) * headDim + c * 8;
    *reinterpret_cast<uint4*>(kCache + dst) =
        *reinterpret_cast<const uint4*>(row + (heads + kvh) * headDim + c * 8);
    *reinterpret_cast<uint4*>(vCache + dst) =
        *reinterpret_cast<const uint4*>(row + (heads + kvHeads + kvh) * headDim + c * 8);
}

// Thread per (token, head of q|k|v, 8-pair group): q heads rotate in place,
// k heads rotate into the cache, v heads copy into it.
__global__ void ropeAppendKvKernel(__nv_bfloat16* qkv, int tokens, int qStride, int heads,
                                   int kvHeads, int headDim, int capacity, int tokensPerSequence,
                                   const int* positionBase, float log2Theta, __nv_bfloat16* kCache,
                                   __nv_bfloat16* vCache) {
    int groups = headDim / 16, allHeads = heads + 2 * kvHeads, half = headDim / 2;
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= std::size_t(tokens) * allHeads * groups) return;
    int group = int(i % groups), head = int(i / groups % allHeads),
        token = int(i / groups / allHeads);
    int b = token / tokensPerSequence, pos = *positionBase + token % tokensPerSequence;
    if (pos >= capacity) return;
    __nv_bfloat16* h = qkv + std::size_t(token) * qStride + std::size_t(head) * headDim;
    float x[8], y[8];
    loadBf16x8Coherent(h + group * 8, x);
    loadBf16x8Coherent(h + half + group * 8, y);
    if (head < heads + kvHeads) {
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            float freq = exp2f(-log2Theta * 2.0f * (group * 8 + j) / headDim);
            float sn, cs;
            sincosf(float(pos) * freq, &sn, &cs);
            float a = x[j], c = y[j];
            x[j] = a * cs - c * sn;
            y[j] = c * cs + a * sn;
        }
    }
    __nv_bfloat16* dst = h;
    if (head >= heads) {
        int kvh = (head - heads) % kvHeads;
        __nv_bfloat16* cache = head < heads + kvHeads ? kCache : vCache;
        dst = cache + ((std::size_t(b) * kvHeads + kvh) * capacity + pos) * headDim;
    }
    storeBf16x8(dst + group * 8, x);
    storeBf16x8(dst + half + group * 8, y);
}

}  // namespace

void ropeAppendKv(__nv_bfloat16* qkv, int tokens, int qStride, const AttentionShape& shape,
                  int tokensPerSequence, const int* positionBase, float theta,
                  __nv_bfloat16* kCache, __nv_bfloat16* vCache, cudaStream_t s) {
    if (shape.headDim % 16 != 0) throw std::invalid_argument("rope_append_kv: head_dim % 16 != 0");
    std::size_t n = std::size_t(tokens) * (shape.heads + 2 * shape.kvHeads) * (shape.headDim / 16);
    ropeAppendKvKernel<<<unsigned((n + 255) / 256), 256, 0, s>>>(
        qkv, tokens, qStride, shape.heads, shape.kvHeads, shape.headDim, shape.capacity,
        tokensPerSequence, positionBase, log2f(theta), kCache, vCache);
    WS_CUDA_LAUNCHED();
}

void appendKv(const __nv_bfloat16* qkv, int tokens, int qStride, const AttentionShape& shape,
              int tokensPerSequence, const int* positionBase, __nv_bfloat16* kCache,
              __nv_bfloat16* vCache, cudaStream_t s) {
    if (shape.headDim % 8 != 0) throw std::invalid_argument("append_kv: head_dim % 8 != 0");
    std::size_t n = std::size_t(tokens) * shape.kvHeads * (shape.headDim / 8);
    appendKvKernel<<<unsigned((n + 255) / 256), 256, 0, s>>>(
        qkv, tokens, qStride, shape.heads, shape.kvHeads, shape.headDim, shape.capacity,
        tokensPerSequence, positionBase, kCache, vCache);
    WS_CUDA_LAUNCHED();
}

}  // namespace ws::kernels
