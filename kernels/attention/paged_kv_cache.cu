// Writes a step's K/V into the paged pools (vLLM's reshape_and_cache), with
// RoPE applied on the way as the contiguous ropeAppendKv does: the same
// rotation, term by term, so a token's cached K is bit-identical in both.
#include <stdexcept>

#include "attention/paged_attention.h"
#include "common/cuda_check.h"
#include "common/vector_math.cuh"

namespace ws::kernels {

namespace {

// Thread per (token, head of q|k|v, 8-pair group): q heads rotate in place,
// k heads rotate into the pool, v heads copy into it.
__global__ void pagedRopeAppendKvKernel(__nv_bfloat16* qkv, int tokens, int qStride, int heads,
                                        int kvHeads, int headDim, int blockSize,
                                        const int* __restrict__ positions,
                                        const int* __restrict__ slots, float log2Theta,
                                        __nv_bfloat16* kPool, __nv_bfloat16* vPool) {
    int groups = headDim / 16, allHeads = heads + 2 * kvHeads, half = headDim / 2;
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= std::size_t(tokens) * allHeads * groups) return;
    int group = int(i % groups), head = int(i / groups % allHeads),
        token = int(i / groups / allHeads);
    int pos = positions[token], slot = slots[token];
    if (head >= heads && slot < 0) return;  // a padding row: nothing is stored
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
        __nv_bfloat16* pool = head < heads + kvHeads ? kPool : vPool;
        std::size_t block = std::size_t(slot / blockSize);
        dst = pool + ((block * kvHeads + kvh) * blockSize + slot % blockSize) * headDim;
    }
    storeBf16x8(dst + group * 8, x);
    storeBf16x8(dst + half + group * 8, y);
}

}  // namespace

void pagedRopeAppendKv(__nv_bfloat16* qkv, int tokens, int qStride, const PagedKvShape& shape,
                       const int* positions, const int* slots, float theta, __nv_bfloat16* kPool,
                       __nv_bfloat16* vPool, cudaStream_t s) {
    if (shape.headDim % 16 != 0)
        throw std::invalid_argument("paged rope_append_kv: head_dim % 16 != 0");
    if (tokens < 1) return;
    std::size_t n = std::size_t(tokens) * (shape.heads + 2 * shape.kvHeads) * (shape.headDim / 16);
    pagedRopeAppendKvKernel<<<unsigned((n + 255) / 256), 256, 0, s>>>(
        qkv, tokens, qStride, shape.heads, shape.kvHeads, shape.headDim, shape.blockSize, positions,
        slots, log2f(theta), kPool, vPool);
    WS_CUDA_LAUNCHED();
}

}  // namespace ws::kernels
