#include "decoder/decoder_weights.h"

#include <cmath>

#include "common/fill.h"
#include "decoder/decoder_kernels.h"
#include "host/safetensors.h"

namespace ws::kernels {

namespace {

using Bf16Buffer = DeviceBuffer<__nv_bfloat16>;

LinearWeight linear(int out, int in) {
    LinearWeight l;
    l.out = out;
    l.in = in;
    l.w = Bf16Buffer(std::size_t(out) * in);
    return l;
}

Bf16Buffer ones(int n, cudaStream_t s) {
    Bf16Buffer b(n);
    fillConstant(b.get(), n, 1.0f, s);
    return b;
}

void quantize(LinearWeight& l, cudaStream_t s) {
    l.q = DeviceBuffer<std::int8_t>(l.w.size());
    l.scales = DeviceBuffer<float>(l.out);
    quantizeRows(l.w.get(), l.q.get(), l.scales.get(), l.out, l.in, s);
    WS_CUDA(cudaStreamSynchronize(s));
    l.w = Bf16Buffer();
}

DecoderWeights allocate(const ModelShape& m, cudaStream_t s) {
    DecoderWeights w;
    w.embedding = Bf16Buffer(std::size_t(m.vocab) * m.hidden);
    w.finalNorm = ones(m.hidden, s);
    if (!m.tiedEmbeddings) w.lmHead = linear(m.vocab, m.hidden);
    w.lmHead.out = m.vocab;
    w.lmHead.in = m.hidden;
    for (int l = 0; l < m.layers; ++l) {
        LayerWeights lw;
        lw.attnNorm = ones(m.hidden, s);
        lw.mlpNorm = ones(m.hidden, s);
        lw.qkv = linear(m.qkvWidth(), m.hidden);
        lw.o = linear(m.hidden, m.heads * m.headDim);
        lw.gateUp = linear(2 * m.intermediate, m.hidden);
        lw.down = linear(m.hidden, m.intermediate);
        w.layers.push_back(std::move(lw));
    }
    return w;
}

}  // namespace

void quantizeLinears(DecoderWeights& w, WeightPrecision p, cudaStream_t s) {
    if (p != WeightPrecision::Int8WeightOnly) return;
    for (auto& l : w.layers)
        for (auto* lin : {&l.qkv, &l.o, &l.gateUp, &l.down})
            quantize(*lin, s);
}

DecoderWeights makeRandomWeights(const ModelShape& m, std::uint64_t seed, WeightPrecision p,
                                 cudaStream_t s) {
    DecoderWeights w = allocate(m, s);
    std::uint64_t tensor = seed * 1000003ull;
    // Unit-variance-preserving linear layers; embeddings scaled so that tied
    // logits have a spread of ~10, which keeps greedy decoding decisive.
    fillUniform(w.embedding.get(), w.embedding.size(), ++tensor, 0.5f, s);
    if (w.lmHead.w.size())
        fillUniform(w.lmHead.w.get(), w.lmHead.w.size(), ++tensor, std::sqrt(3.0f / m.hidden) * 8,
                    s);
    for (auto& l : w.layers)
        for (auto* lin : {&l.qkv, &l.o, &l.gateUp, &l.down})
            fillUniform(lin->w.get(), lin->w.size(), ++tensor, std::sqrt(3.0f / lin->in), s);
    WS_CUDA(cudaStreamSynchronize(s));
    quantizeLinears(w, p, s);
    return w;
}

DecoderWeights loadSafetensorsWeights(const std::string& path, const ModelShape& m,
                                      WeightPrecision p, cudaStream_t s) {
    SafetensorsFile file(path);
    std::int64_t h = m.hidden;
    // Check every tensor before allocating or copying anything.
    struct Part {
        std::string name;
        std::vector<std::int64_t> shape;
    };
    auto layerName = [](int l, const char* rest) {
        return "model.layers." + std::to_string(l) + "." + rest;
    };
    std::vector<Part> parts = {{"model.embed_tokens.weight", {m.vocab, h}},
                               {"model.norm.weight", {h}}};
    if (!m.tiedEmbeddings) parts.push_back({"lm_head.weight", {m.vocab, h}});
    for (int l = 0; l < m.layers; ++l) {
        parts.push_back({layerName(l, "input_layernorm.weight"), {h}});
        parts.push_back({layerName(l, "post_attention_layernorm.weight"), {h}});
        parts.push_back(
            {layerName(l, "self_attn.q_proj.weight"), {std::int64_t(m.heads) * m.headDim, h}});
        parts.push_back(
            {layerName(l, "self_attn.k_proj.weight"), {std::int64_t(m.kvHeads) * m.headDim, h}});
        parts.push_back(
            {layerName(l, "self_attn.v_proj.weight"), {std::int64_t(m.kvHeads) * m.headDim, h}});
        parts.push_back(
            {layerName(l, "self_attn.o_proj.weight"), {h, std::int64_t(m.heads) * m.headDim}});
        parts.push_back({layerName(l, "mlp.gate_proj.weight"), {m.intermediate, h}});
        parts.push_back({layerName(l, "mlp.up_proj.weight"), {m.intermediate, h}});
        parts.push_back({layerName(l, "mlp.down_proj.weight"), {h, m.intermediate}});
    }
    for (const auto& part : parts)
        file.require(part.name, "BF16", part.shape);

    DecoderWeights w = allocate(m, s);
    std::vector<char> staging;
    // Copies consecutive tensors into one device buffer (fusing q|k|v, gate|up).
    auto load = [&](__nv_bfloat16* dst, std::initializer_list<std::string> names) {
        std::size_t offset = 0;
        for (const auto& name : names) {
            const auto& t = *file.find(name);
            staging.resize(t.bytes);
            file.read(t, staging.data());
            WS_CUDA(cudaMemcpy(reinterpret_cast<char*>(dst) + offset, staging.data(), t.bytes,
                               cudaMemcpyHostToDevice));
            offset += t.bytes;
        }
    };
    load(w.embedding.get(), {"model.embed_tokens.weight"});
    load(w.finalNorm.get(), {"model.norm.weight"});
    if (!m.tiedEmbeddings) load(w.lmHead.w.get(), {"lm_head.weight"});
    for (int l = 0; l < m.layers; ++l) {
        auto& lw = w.layers[l];
        load(lw.attnNorm.get(), {layerName(l, "input_layernorm.weight")});
        load(lw.mlpNorm.get(), {layerName(l, "post_attention_layernorm.weight")});
        load(lw.qkv.w.get(),
             {layerName(l, "self_attn.q_proj.weight"), layerName(l, "self_attn.k_proj.weight"),
              layerName(l, "self_attn.v_proj.weight")});
        load(lw.o.w.get(), {layerName(l, "self_attn.o_proj.weight")});
        load(lw.gateUp.w.get(),
             {layerName(l, "mlp.gate_proj.weight"), layerName(l, "mlp.up_proj.weight")});
        load(lw.down.w.get(), {layerName(l, "mlp.down_proj.weight")});
    }
    quantizeLinears(w, p, s);
    return w;
}

}  // namespace ws::kernels
