// Attention over a paged KV cache, as the serving engine keeps it: each layer
// has a K pool and a V pool of `numBlocks` blocks, and a sequence's positions
// live in the blocks its block table lists (position p in block
// table[p / blockSize], slot p % blockSize).
//
// Pool layout, per layer: [numBlocks][kvHeads][blockSize][headDim] bf16. One
// block of one kv head is then a contiguous blockSize × headDim run (4 KiB at
// 16 × 128), so the decode kernel fetches 16 keys of a head with one bulk
// (TMA) copy, exactly as the contiguous rung fetches 16 rows of its
// [batch][kvHeads][capacity][headDim] cache: the shared-memory image of a
// chunk, and so the arithmetic, is the same. (vLLM's [blocks][blockSize]
// [kvHeads][headDim] would interleave the heads and need a copy per key.)
//
// The varlen batch of a step: every scheduled token is a row of the fused
// qkv buffer, decode tokens first (row i = decode sequence i), then the
// prefill chunks, each a run of rows.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>

namespace ws::kernels {

struct PagedKvShape {
    int heads = 1, kvHeads = 1, headDim = 128;
    int blockSize = 16;       // a multiple of 16
    int maxBlocksPerSeq = 0;  // the row stride of the block tables
};

// Elements of one layer's K (or V) pool.
inline std::size_t pagedPoolElements(const PagedKvShape& s, int numBlocks) {
    return std::size_t(numBlocks) * s.kvHeads * s.blockSize * s.headDim;
}

// RoPE on the q and k heads of each qkv row at positions[row], and its k and
// v heads stored at slot slots[row] (= block · blockSize + offset; negative:
// not stored, a padding row), in one kernel: vLLM's reshape_and_cache with
// the rotation of the contiguous ropeAppendKv (the same arithmetic).
void pagedRopeAppendKv(__nv_bfloat16* qkv, int tokens, int qStride, const PagedKvShape& shape,
                       const int* positions, const int* slots, float theta, __nv_bfloat16* kPool,
                       __nv_bfloat16* vPool, cudaStream_t stream);

// Decode: one query per sequence (qkv row b) against its contextLens[b] keys
// read through block table row b; out row b. The split-KV tensor-core rung
// (decode_attention_mma.cu) with the chunks fetched block by block.
// `maxContext` bounds every contextLens[b] (the split plan is made for it, so
// a captured graph serves any context up to it). `fixedSplits`: 128-key
// splits combined in the same way whatever the batch (batch-invariant);
// otherwise the split plan of the contiguous rung (splits sized to fill one
// wave, combined in a cluster where they fit one).
// The workspace holds pagedDecodeWorkspaceFloats(maxBatch, ...) floats,
// zeroed once; `batch` ≤ maxBatch.
std::size_t pagedDecodeWorkspaceFloats(const PagedKvShape& shape, int maxBatch, int maxContext);
void pagedDecodeAttention(const __nv_bfloat16* qkv, int qStride, const __nv_bfloat16* kPool,
                          const __nv_bfloat16* vPool, const int* blockTables,
                          const int* contextLens, __nv_bfloat16* out, const PagedKvShape& shape,
                          int batch, int maxBatch, int maxContext, bool fixedSplits,
                          float* workspace, cudaStream_t stream);

// Prefill (chunked): sequence s's queries are qkv rows rowStart[s] …
// rowStart[s] + queries[s] − 1 at positions firstPosition[s] …; each attends
// to every position of its sequence up to its own (the earlier chunks through
// block table row s, causal within the chunk). The flash tensor-core rung
// (prefill_attention_mma.cu) with K/V tiles gathered through the table; the
// key tiles start at position 0 whatever the chunking, so a query's result
// does not depend on how its prompt was chunked. maxQueries ≥ every queries[s].
void pagedPrefillAttention(const __nv_bfloat16* qkv, int qStride, const __nv_bfloat16* kPool,
                           const __nv_bfloat16* vPool, const int* blockTables, const int* rowStart,
                           const int* queries, const int* firstPosition, __nv_bfloat16* out,
                           const PagedKvShape& shape, int sequences, int maxQueries,
                           cudaStream_t stream);

}  // namespace ws::kernels
