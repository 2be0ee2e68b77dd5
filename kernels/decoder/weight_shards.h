// One tensor-parallel rank's weights cut from the whole model's (Megatron-LM's
// split): q|k|v and gate|up column-parallel (the rank's heads, KV heads and
// MLP rows), o and down row-parallel (the matching input columns, so each
// rank's output is a partial sum the all-reduce completes); embedding, norms
// and LM head whole on every rank. Cut from bf16 weights, so each rank's bf16
// slice is exactly the whole model's; int8 weight-only quantizes the slices,
// so a row-parallel layer's row scales cover the rank's columns only and int8
// results differ slightly from int8 on one GPU. Each rank builds the whole
// model's weights before cutting: for now the model must fit one GPU.
#pragma once

#include <cuda_runtime.h>

#include "decoder/decoder_weights.h"
#include "model/model_shape.h"

namespace ws::kernels {

// `whole` is consumed (its layers freed as they are cut); `shape` is the whole
// model's. Throws std::invalid_argument when the shape does not split.
DecoderWeights shardWeights(DecoderWeights&& whole, const ModelShape& shape, int rank, int ranks,
                            cudaStream_t stream);

}  // namespace ws::kernels
