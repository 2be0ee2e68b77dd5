// The decoder's glue kernels: embedding lookup, row gathers, greedy sampling,
// the device-side position counters a captured decode graph advances, and
// int8 weight-only quantization.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace ws::kernels {

// x[row] = table[ids[row]] for `rows` rows of `hidden` elements.
void embed(const __nv_bfloat16* table, const int* ids, __nv_bfloat16* x, int rows, int hidden,
           cudaStream_t s);
// out[i] = in[(i + 1) * stride - 1]: the last token row of each request.
void gatherLastRows(const __nv_bfloat16* in, __nv_bfloat16* out, int requests, int tokensPerRequest,
                    int hidden, cudaStream_t s);

// Greedy sampling of logits[batch × vocab]: tokens[b] = argmax (lowest index on
// ties); also generated[*step × batch + b] and, while *step < slots, a copy of
// request 0's logits into logitSlots[*step]. Then ++*step, ++*position, ++*context
// (pass null to skip the counters, as prefill's caller does).
struct SampleState {
    int* tokens = nullptr;
    int* generated = nullptr;
    int* step = nullptr;
    int* position = nullptr;
    int* context = nullptr;
    __nv_bfloat16* logitSlots = nullptr;
    int slots = 0;
    float* partialValues = nullptr;  // kArgmaxWorkspace entries per request
    int* partialIndices = nullptr;
};
constexpr int kArgmaxBlocks = 32;
void sampleGreedy(const __nv_bfloat16* logits, int batch, int vocab, const SampleState& st,
                  cudaStream_t s);

// Per-row symmetric int8: scale = max|w| / 127, q = round(w / scale).
void quantizeRows(const __nv_bfloat16* w, std::int8_t* q, float* scales, int rows, int cols,
                  cudaStream_t s);
void dequantizeRows(const std::int8_t* q, const float* scales, __nv_bfloat16* w, int rows, int cols,
                    cudaStream_t s);

}  // namespace ws::kernels
