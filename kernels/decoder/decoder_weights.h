// A Llama-architecture decoder's weights on the device: q|k|v and gate|up
// fused row-wise (one GEMM each), bf16 or int8 weight-only with a float scale
// per output row (the LM head stays bf16). Deterministic random weights (as
// vLLM's --load-format dummy) or a Hugging Face .safetensors file.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/device_buffer.h"
#include "model/model_shape.h"

namespace ws::kernels {

struct LinearWeight {
    int out = 0, in = 0;
    DeviceBuffer<__nv_bfloat16> w;  // [out × in], empty once quantized
    DeviceBuffer<std::int8_t> q;    // [out × in] when int8
    DeviceBuffer<float> scales;     // [out] when int8
    bool quantized() const { return q.size() > 0; }
};

struct LayerWeights {
    DeviceBuffer<__nv_bfloat16> attnNorm, mlpNorm;
    LinearWeight qkv, o, gateUp, down;
};

struct DecoderWeights {
    DeviceBuffer<__nv_bfloat16> embedding, finalNorm;
    LinearWeight lmHead;  // w empty when tied: the embedding is used
    std::vector<LayerWeights> layers;
    const __nv_bfloat16* lmHeadWeights() const {
        return lmHead.w.size() ? lmHead.w.get() : embedding.get();
    }
};

DecoderWeights makeRandomWeights(const ModelShape& shape, std::uint64_t seed,
                                 WeightPrecision precision, cudaStream_t stream);
// bf16 linear layers to int8 weight-only (rows' scales), when `p` says so.
void quantizeLinears(DecoderWeights& w, WeightPrecision p, cudaStream_t stream);
// Throws SafetensorsError naming the file, tensor and problem (missing tensor,
// wrong dtype or shape, truncated file).
DecoderWeights loadSafetensorsWeights(const std::string& path, const ModelShape& shape,
                                      WeightPrecision precision, cudaStream_t stream);

}  // namespace ws::kernels
