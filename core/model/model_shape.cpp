#include "model/model_shape.h"

#include <stdexcept>

namespace ws {

WeightPrecision parsePrecision(const std::string& text) {
    if (text == "bf16") return WeightPrecision::Bf16;
    if (text == "int8-weight-only") return WeightPrecision::Int8WeightOnly;
    throw std::invalid_argument("unknown precision '" + text +
                                "' (expected bf16 or int8-weight-only)");
}

ModelShape ModelShape::from(const DecoderParams& p) {
    ModelShape s;
    s.hidden = p.hiddenSize;
    s.layers = p.layers;
    s.heads = p.heads;
    s.kvHeads = p.kvHeads;
    s.headDim = p.headDim ? p.headDim : (p.heads ? p.hiddenSize / p.heads : 0);
    s.intermediate = p.intermediateSize;
    s.vocab = p.vocabSize;
    s.tiedEmbeddings = p.tieEmbeddings;
    if (s.hidden <= 0 || s.layers <= 0 || s.heads <= 0 || s.kvHeads <= 0 || s.headDim <= 0 ||
        s.intermediate <= 0 || s.vocab <= 0)
        throw std::invalid_argument("decoder shape: every dimension must be positive");
    if (s.heads % s.kvHeads != 0)
        throw std::invalid_argument("decoder shape: heads must be a multiple of kv_heads");
    if (s.headDim % 2 != 0) throw std::invalid_argument("decoder shape: head_dim must be even");
    return s;
}

ModelShape ModelShape::shard(int ranks) const {
    if (ranks < 1 || heads % ranks != 0 || kvHeads % ranks != 0 || intermediate % ranks != 0)
        throw std::invalid_argument("decoder shape: heads " + std::to_string(heads) +
                                    ", kv_heads " + std::to_string(kvHeads) +
                                    " and intermediate_size " + std::to_string(intermediate) +
                                    " cannot be split over " + std::to_string(ranks) + " ranks");
    ModelShape s = *this;
    s.heads /= ranks;
    s.kvHeads /= ranks;
    s.intermediate /= ranks;
    return s;
}

std::int64_t ModelShape::layerMatrixElements() const {
    std::int64_t h = hidden;
    std::int64_t attn = h * qkvWidth() + std::int64_t(heads) * headDim * h;
    std::int64_t mlp = 3 * h * intermediate;
    return attn + mlp;
}

std::int64_t ModelShape::parameters() const {
    std::int64_t norms = std::int64_t(layers) * 2 * hidden + hidden;
    std::int64_t head = tiedEmbeddings ? 0 : embeddingElements();
    return embeddingElements() + layers * layerMatrixElements() + norms + head;
}

std::int64_t ModelShape::matmulParameters() const {
    return layers * layerMatrixElements() + embeddingElements();  // the LM head, tied or not
}

std::int64_t ModelShape::weightBytes(WeightPrecision p) const {
    std::int64_t norms = (std::int64_t(layers) * 2 * hidden + hidden) * 2;
    std::int64_t layerElems = layers * layerMatrixElements();
    std::int64_t embed = embeddingElements() * 2;
    std::int64_t head = tiedEmbeddings ? 0 : embeddingElements() * 2;  // the LM head stays bf16
    if (p == WeightPrecision::Bf16) return embed + head + layerElems * 2 + norms;
    // int8 matrices with one float scale per output row
    std::int64_t rows =
        std::int64_t(layers) * (qkvWidth() + hidden + 2 * std::int64_t(intermediate) + hidden);
    return embed + head + layerElems + rows * 4 + norms;
}

std::int64_t ModelShape::decodeWeightBytes(WeightPrecision p) const {
    std::int64_t embedRow = std::int64_t(hidden) * 2;
    // Everything but the embedding table, plus the LM head (= the table when tied).
    std::int64_t all = weightBytes(p) - embeddingElements() * 2 + embedRow;
    if (tiedEmbeddings) all += embeddingElements() * 2;
    return all;
}

}  // namespace ws
