// The shape and options of a built-in decoder, as a workload config states
// them. Plain data: the config parser fills it, the kernels and the report
// read it (through ModelShape), neither needs the other.
#pragma once

#include <cstdint>
#include <string>

namespace ws {

struct DecoderParams {
    std::string model;  // e.g. "Llama-3.2-1B"
    int hiddenSize = 0;
    int layers = 0;
    int heads = 0;
    int kvHeads = 0;
    int headDim = 0;  // 0 = hidden / heads
    int intermediateSize = 0;
    int vocabSize = 0;
    double ropeTheta = 10000.0;
    double rmsNormEps = 1e-5;
    int maxPositions = 0;
    bool tieEmbeddings = false;
    std::string precision = "bf16";     // bf16 | int8-weight-only
    std::string variant = "optimized";  // reference | optimized | cublas
    bool cudaGraphs = false;
    std::string weights;  // safetensors path; empty = deterministic random weights
    std::int64_t seed = 0;
    double qualityTolerance = 0.25;  // max logit error (in logit std units) against the reference
    // Ranks, one process and GPU each: heads, KV heads and the MLP split
    // across them (Megatron-style column/row-parallel), an all-reduce after
    // attention and after the MLP. Decoder workloads only.
    int tensorParallel = 1;
};

}  // namespace ws
