// A tiny Llama-shaped decoder (hidden 256, 2 layers, 4 heads over 2 KV heads)
// and a generation of it, shared by the decoder's GPU tests.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <vector>

#include "decoder/decoder.h"
#include "host/bf16.h"

namespace ws::kernels {

inline bool haveGpu() {
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

inline DecoderOptions tinyModel(DecoderVariant variant, int batch = 2) {
    DecoderParams p;
    p.hiddenSize = 256;
    p.layers = 2;
    p.heads = 4;
    p.kvHeads = 2;
    p.intermediateSize = 512;
    p.vocabSize = 1000;
    p.tieEmbeddings = false;
    DecoderOptions o;
    o.shape = ModelShape::from(p);
    o.variant = variant;
    o.batch = batch;
    o.maxPrefillTokens = 40;
    o.capacity = 40 + 12;
    o.seed = 5;
    o.logitSlots = 8;
    return o;
}

inline std::vector<int> prompts(int batch) {
    std::vector<int> ids(std::size_t(batch) * 40);
    for (std::size_t i = 0; i < ids.size(); ++i)
        ids[i] = int(hashIndex(9, i) % 1000);
    return ids;
}

struct Generation {
    std::vector<int> tokens;
    std::vector<float> slots;
    std::int64_t kvBytes = 0, weightBytes = 0;  // the decoder's (one rank's)
};

// 40-token prompts, then `steps` tokens; the decode graph captured at step 2.
inline Generation generate(const DecoderOptions& o, bool graphs, int steps = 12) {
    cudaStream_t s;
    EXPECT_EQ(cudaStreamCreate(&s), cudaSuccess);
    Generation g;
    {
        Decoder d(o, s);
        d.prefill(prompts(o.batch), 40);
        for (int i = 1; i < steps; ++i) {
            if (graphs && i == 2) d.captureDecodeGraph();
            d.decodeStep();
        }
        EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
        EXPECT_EQ(d.graphCaptured(), graphs && steps > 2);
        g.tokens = d.generated(steps);
        g.slots = d.logitSlots();
        g.kvBytes = d.kvCacheBytes();
        g.weightBytes = d.weightBytes();
    }
    cudaStreamDestroy(s);
    return g;
}

}  // namespace ws::kernels
