// The decoder's quality check: a candidate variant's greedy tokens and logits
// for the first decode steps of request 0 against the reference variant (bf16,
// naive kernels) fed the same tokens (teacher forcing).
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "decoder/decoder.h"
#include "model/records.h"

namespace ws::kernels {

// max_logit_error is max |candidate − reference| over the steps and the
// vocabulary, in units of the reference logits' standard deviation.
QualityRecord checkQuality(const DecoderOptions& candidate, const std::vector<int>& prompt,
                           const std::vector<int>& generatedTokens,
                           const std::vector<float>& candidateLogits, int steps, double tolerance,
                           cudaStream_t stream);

}  // namespace ws::kernels
