// A decoder config turned into the numbers the workload, the bench and the
// report need: parameter counts, weight and KV-cache bytes, FLOPs and the
// bytes one decode step must read.
#pragma once

#include <cstdint>
#include <string>

#include "model/decoder_params.h"

namespace ws {

enum class WeightPrecision { Bf16, Int8WeightOnly };
WeightPrecision parsePrecision(const std::string& text);  // throws on unknown text

struct ModelShape {
    int hidden = 0, layers = 0, heads = 0, kvHeads = 0, headDim = 0;
    int intermediate = 0, vocab = 0;
    bool tiedEmbeddings = false;

    static ModelShape from(const DecoderParams& p);
    // What one of `ranks` tensor-parallel ranks holds: heads, KV heads and the
    // MLP's intermediate width divided; hidden and vocab whole. Throws when
    // one does not divide.
    ModelShape shard(int ranks) const;

    int qkvWidth() const { return (heads + 2 * kvHeads) * headDim; }
    int groupSize() const { return heads / kvHeads; }

    // Matrices of one layer (q, k, v, o, gate, up, down) in elements.
    std::int64_t layerMatrixElements() const;
    std::int64_t embeddingElements() const { return std::int64_t(vocab) * hidden; }
    // All parameters, counting a tied embedding once (as Hugging Face does).
    std::int64_t parameters() const;
    // What every token is multiplied through: all layers' matrices and the
    // LM head; not the embedding lookup.
    std::int64_t matmulParameters() const;

    // Bytes of the weights held on the device.
    std::int64_t weightBytes(WeightPrecision p) const;
    // Bytes of weights one decode step reads: every matrix once, plus norms.
    std::int64_t decodeWeightBytes(WeightPrecision p) const;

    // KV cache: 2 × layers × kv_heads × head_dim × tokens × batch × 2 bytes (bf16).
    std::int64_t kvBytesPerToken() const { return 2LL * layers * kvHeads * headDim * 2; }
    std::int64_t kvCacheBytes(std::int64_t tokens, std::int64_t batch) const {
        return kvBytesPerToken() * tokens * batch;
    }

    // Linear-layer FLOPs of `tokens` tokens (2 · matmul parameters · tokens).
    double matmulFlops(std::int64_t tokens) const { return 2.0 * matmulParameters() * tokens; }

    // The decode-step floor's numerator: weights read once plus the KV cache of
    // `context` tokens for each of `batch` requests.
    double decodeStepBytes(WeightPrecision p, std::int64_t context, std::int64_t batch) const {
        return double(decodeWeightBytes(p)) + double(kvCacheBytes(context, batch));
    }
};

}  // namespace ws
