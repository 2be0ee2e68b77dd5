#include <stdexcept>

#include "attention/attention.h"
#include "common/cuda_check.h"

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
    throw std::invalid_argument("unknown decode attention rung '" + name + "' (naive, splitkv)");
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

}  // namespace

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
