#include "decoder/weight_shards.h"

#include <stdexcept>
#include <utility>

#include "common/cuda_check.h"

namespace ws::kernels {

namespace {

using Bf16 = __nv_bfloat16;

// Rows [first, first + count) of `from` ([out × in], row-major) to `to` at row `at`.
void copyRows(const LinearWeight& from, int first, int count, LinearWeight& to, int at,
              cudaStream_t s) {
    std::size_t row = std::size_t(from.in) * sizeof(Bf16);
    WS_CUDA(cudaMemcpyAsync(to.w.get() + std::size_t(at) * to.in,
                            from.w.get() + std::size_t(first) * from.in, count * row,
                            cudaMemcpyDeviceToDevice, s));
}

// Columns [first, first + to.in) of every row of `from` to `to`.
void copyColumns(const LinearWeight& from, int first, LinearWeight& to, cudaStream_t s) {
    WS_CUDA(cudaMemcpy2DAsync(to.w.get(), std::size_t(to.in) * sizeof(Bf16), from.w.get() + first,
                              std::size_t(from.in) * sizeof(Bf16),
                              std::size_t(to.in) * sizeof(Bf16), to.out, cudaMemcpyDeviceToDevice,
                              s));
}

LinearWeight empty(int out, int in) {
    LinearWeight l;
    l.out = out;
    l.in = in;
    l.w = DeviceBuffer<Bf16>(std::size_t(out) * in);
    return l;
}

}  // namespace

DecoderWeights shardWeights(DecoderWeights&& whole, const ModelShape& m, int rank, int ranks,
                            cudaStream_t s) {
    if (rank < 0 || rank >= ranks)
        throw std::invalid_argument("weight shards: rank " + std::to_string(rank) + " of " +
                                    std::to_string(ranks));
    const ModelShape part = m.shard(ranks);
    for (const auto& l : whole.layers)
        for (const auto* lin : {&l.qkv, &l.o, &l.gateUp, &l.down})
            if (lin->quantized())
                throw std::invalid_argument("weight shards: cut bf16 weights, then quantize");
    DecoderWeights w;
    w.embedding = std::move(whole.embedding);
    w.finalNorm = std::move(whole.finalNorm);
    w.lmHead = std::move(whole.lmHead);
    const int hd = m.headDim;
    for (auto& l : whole.layers) {
        LayerWeights p;
        p.attnNorm = std::move(l.attnNorm);
        p.mlpNorm = std::move(l.mlpNorm);
        // q | k | v rows: this rank's query heads, then its KV heads' k and v.
        p.qkv = empty(part.qkvWidth(), m.hidden);
        copyRows(l.qkv, rank * part.heads * hd, part.heads * hd, p.qkv, 0, s);
        copyRows(l.qkv, (m.heads + rank * part.kvHeads) * hd, part.kvHeads * hd, p.qkv,
                 part.heads * hd, s);
        copyRows(l.qkv, (m.heads + m.kvHeads + rank * part.kvHeads) * hd, part.kvHeads * hd, p.qkv,
                 (part.heads + part.kvHeads) * hd, s);
        // o: the columns that multiply this rank's heads' outputs.
        p.o = empty(m.hidden, part.heads * hd);
        copyColumns(l.o, rank * part.heads * hd, p.o, s);
        // gate | up rows, then down's matching columns.
        p.gateUp = empty(2 * part.intermediate, m.hidden);
        copyRows(l.gateUp, rank * part.intermediate, part.intermediate, p.gateUp, 0, s);
        copyRows(l.gateUp, m.intermediate + rank * part.intermediate, part.intermediate, p.gateUp,
                 part.intermediate, s);
        p.down = empty(m.hidden, part.intermediate);
        copyColumns(l.down, rank * part.intermediate, p.down, s);
        WS_CUDA(cudaStreamSynchronize(s));
        l = LayerWeights();  // the whole layer's memory back before the next is cut
        w.layers.push_back(std::move(p));
    }
    return w;
}

}  // namespace ws::kernels
