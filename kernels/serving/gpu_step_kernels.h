// The GPU backend's glue kernels around the decoder's: gathering the rows
// that sample, and sampling them (greedy or with temperature) from the step
// metadata on the device, so one captured graph serves every decode step.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace ws::serving::gpu {

// out[i] = in[rows[i]] for `count` rows of `hidden` elements.
void gatherRows(const __nv_bfloat16* in, const std::int32_t* rows, __nv_bfloat16* out, int count,
                int hidden, cudaStream_t s);

// Per row i of logits[count × vocab]: temperature 0 takes the argmax (the
// lowest index on ties, as the decoder's sampleGreedy); temperature T > 0
// samples softmax(logits / T) by the Gumbel-max rule: the argmax of
// logit / T + G(seed_i, outputIndex_i, token), G a Gumbel variate from a
// hash, so a sequence's draw depends on its seed, its output index and its
// logits alone, never on what else is batched. seeds hold (low, high) words.
// Two stages (kSampleBlocks blocks per row, then a warp per row): one block
// per row is latency-bound at 128k logits. `partial` holds
// sampleWorkspaceWords(count) words.
constexpr int kSampleBlocks = 32;
inline std::size_t sampleWorkspaceWords(int count) {
    return std::size_t(count) * kSampleBlocks * 2;
}
// `textOnly`: the candidates are the tokens the byte tokenizer renders as
// text, printable ASCII 32-126, and its EOS 256 (as the CPU backend's);
// otherwise every token of the vocabulary.
void sampleTokens(const __nv_bfloat16* logits, int count, int vocab, bool textOnly,
                  const float* temperatures, const std::uint32_t* seeds,
                  const std::int32_t* outputIndex, std::uint32_t* partial, std::int32_t* tokens,
                  cudaStream_t s);

}  // namespace ws::serving::gpu
