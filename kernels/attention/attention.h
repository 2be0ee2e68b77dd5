// Attention over a bf16 KV cache laid out [batch][kv_heads][capacity][head_dim]
// per layer, GQA-aware (heads is a multiple of kv_heads). Queries come from a
// fused qkv buffer: token rows of `qStride` elements, q heads first.
//   prefill  naive: a thread per (query, head), online softmax key by key;
//            flash: 64 queries per block, 4 threads per query, K/V tiles of 64
//            keys in shared memory, one softmax rescale per tile;
//            flash_mma: the same on tensor cores (mma.sync), 16 queries per warp
//   decode   naive: a block per (request, head), all scores in shared memory;
//            splitkv: flash-decoding: the context split into 128-key pieces,
//            each block serving every q head of one kv head (K/V read once per
//            group), partial softmax states combined by a second kernel;
//            splitkv_mma: the same splits on tensor cores (mma.sync, the GQA
//            group as the n side), K/V read from global memory into fragments
// head_dim 64 and 128 are supported.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace ws::kernels {

enum class PrefillAttentionRung { Naive, Flash, FlashMma };
enum class DecodeAttentionRung { Naive, SplitKv, SplitKvMma };
PrefillAttentionRung parsePrefillAttentionRung(const std::string& name);
DecodeAttentionRung parseDecodeAttentionRung(const std::string& name);

struct AttentionShape {
    int batch = 1, heads = 1, kvHeads = 1, headDim = 128, capacity = 0;
};

// Writes the k and v heads of each qkv row into the caches at position
// *positionBase + token % tokensPerSequence of request token / tokensPerSequence.
void appendKv(const __nv_bfloat16* qkv, int tokens, int qStride, const AttentionShape& shape,
              int tokensPerSequence, const int* positionBase, __nv_bfloat16* kCache,
              __nv_bfloat16* vCache, cudaStream_t stream);

// RoPE on the q and k heads of each qkv row and the k, v heads appended to
// the caches, in one kernel (the optimized decoder's; rope + appendKv is the
// reference path). Same positions as appendKv; head_dim a multiple of 16.
void ropeAppendKv(__nv_bfloat16* qkv, int tokens, int qStride, const AttentionShape& shape,
                  int tokensPerSequence, const int* positionBase, float theta,
                  __nv_bfloat16* kCache, __nv_bfloat16* vCache, cudaStream_t stream);

// `queries` tokens per request at positions firstPosition … ; out[token × heads·head_dim].
void prefillAttention(PrefillAttentionRung rung, const __nv_bfloat16* qkv, int qStride,
                      const __nv_bfloat16* kCache, const __nv_bfloat16* vCache, __nv_bfloat16* out,
                      const AttentionShape& shape, int queries, int firstPosition,
                      cudaStream_t stream);

// The tensor-core rung on its own (prefill_attention_mma.cu).
void prefillAttentionMma(const __nv_bfloat16* qkv, int qStride, const __nv_bfloat16* kCache,
                         const __nv_bfloat16* vCache, __nv_bfloat16* out,
                         const AttentionShape& shape, int queries, int firstPosition,
                         cudaStream_t stream);

// The tensor-core decode rung on its own (decode_attention_mma.cu); at most 8
// q heads per kv head.
void decodeAttentionMma(const __nv_bfloat16* qkv, int qStride, const __nv_bfloat16* kCache,
                        const __nv_bfloat16* vCache, __nv_bfloat16* out,
                        const AttentionShape& shape, const int* contextLength, float* workspace,
                        cudaStream_t stream);

// Floats of scratch decodeAttention needs for a shape; zero it once before first use.
std::size_t decodeWorkspaceFloats(const AttentionShape& shape);
// One query per request against *contextLength cached keys (read on the device).
void decodeAttention(DecodeAttentionRung rung, const __nv_bfloat16* qkv, int qStride,
                     const __nv_bfloat16* kCache, const __nv_bfloat16* vCache, __nv_bfloat16* out,
                     const AttentionShape& shape, const int* contextLength, float* workspace,
                     cudaStream_t stream);

}  // namespace ws::kernels
