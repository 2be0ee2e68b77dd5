#include "decoder/decoder.h"

#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "common/cuda_check.h"
#include "decoder/decoder_kernels.h"
#include "decoder/weight_shards.h"
#include "host/bf16.h"

namespace ws::kernels {

namespace {

// An NVTX range around one part of the forward pass ("layer 3" > "attention"),
// so kernels are credited to layer and operation, also when replayed from the
// decode graph: the ranges open while it is captured stay with its nodes.
// Without a profiler attached a push/pop costs a few nanoseconds.
class OpRange {
  public:
    explicit OpRange(const char* name) { nvtxRangePushA(name); }
    explicit OpRange(const std::string& name) : OpRange(name.c_str()) {}
    ~OpRange() { nvtxRangePop(); }
    OpRange(const OpRange&) = delete;
    OpRange& operator=(const OpRange&) = delete;
};

}  // namespace

DecoderVariant parseDecoderVariant(const std::string& text) {
    if (text == "reference") return DecoderVariant::Reference;
    if (text == "optimized") return DecoderVariant::Optimized;
    if (text == "cublas") return DecoderVariant::Cublas;
    throw std::invalid_argument("unknown decoder variant '" + text +
                                "' (reference, optimized, cublas)");
}

const char* toString(DecoderVariant v) {
    switch (v) {
        case DecoderVariant::Reference:
            return "reference";
        case DecoderVariant::Optimized:
            return "optimized";
        case DecoderVariant::Cublas:
            return "cublas";
    }
    return "?";
}

namespace {
constexpr std::size_t kCublasWorkspace = 32u << 20;
}

Decoder::Decoder(const DecoderOptions& o, cudaStream_t stream)
    : opt_(o), local_(o.shape.shard(o.ranks)), stream_(stream) {
    const auto& m = local_;
    if (opt_.ranks > 1 && (!opt_.allReduce || opt_.rank < 0 || opt_.rank >= opt_.ranks))
        throw std::invalid_argument("decoder: rank " + std::to_string(opt_.rank) + " of " +
                                    std::to_string(opt_.ranks) + " needs an all-reduce");
    if (opt_.batch < 1 || opt_.batch > kGemvMaxBatch)
        throw std::invalid_argument("decoder: batch must be 1–16 (got " +
                                    std::to_string(opt_.batch) + ")");
    if (opt_.maxPrefillTokens < 1 || opt_.capacity < opt_.maxPrefillTokens)
        throw std::invalid_argument("decoder: capacity must hold the prompt");
    bool ref = opt_.variant == DecoderVariant::Reference;
    // The optimized variant's own GEMM: the Hopper rung where the GPU has it.
    gemmRung_ = ref ? GemmRung::Naive
                    : (opt_.variant == DecoderVariant::Cublas
                           ? GemmRung::Cublas
                           : (gemmWgmmaAvailable() ? GemmRung::Wgmma : GemmRung::Mma));
    gemvRung_ = ref ? GemvRung::Naive : GemvRung::SplitK;
    prefillRung_ = ref ? PrefillAttentionRung::Naive : PrefillAttentionRung::FlashMma;
    decodeRung_ = ref ? DecodeAttentionRung::Naive : DecodeAttentionRung::SplitKvMma;
    elementwiseRung_ = ref ? ElementwiseRung::Naive : ElementwiseRung::Fused;

    WS_CUBLAS(cublasCreate(&cublas_));
    WS_CUBLAS(cublasSetStream(cublas_, stream_));
    cublasWorkspace_ = DeviceBuffer<unsigned char>(kCublasWorkspace);
    // A fixed workspace: cuBLAS must not allocate while a decode graph is captured.
    WS_CUBLAS(cublasSetWorkspace(cublas_, cublasWorkspace_.get(), kCublasWorkspace));

    // The whole model's bf16 weights (the same on every rank), this rank's
    // share cut from them, then quantized when the precision says so.
    const auto bf16 = WeightPrecision::Bf16;
    weights_ = opt_.weightsPath.empty()
                   ? makeRandomWeights(opt_.shape, opt_.seed, bf16, stream_)
                   : loadSafetensorsWeights(opt_.weightsPath, opt_.shape, bf16, stream_);
    if (opt_.ranks > 1)
        weights_ = shardWeights(std::move(weights_), opt_.shape, opt_.rank, opt_.ranks, stream_);
    quantizeLinears(weights_, opt_.precision, stream_);

    maxRows_ = std::max(opt_.batch * opt_.maxPrefillTokens, opt_.batch);
    std::size_t rows = maxRows_;
    x_ = DeviceBuffer<__nv_bfloat16>(rows * m.hidden);
    h_ = DeviceBuffer<__nv_bfloat16>(rows * m.hidden);
    o_ = DeviceBuffer<__nv_bfloat16>(rows * m.hidden);
    qkv_ = DeviceBuffer<__nv_bfloat16>(rows * m.qkvWidth());
    attn_ = DeviceBuffer<__nv_bfloat16>(rows * m.heads * m.headDim);
    gateUp_ = DeviceBuffer<__nv_bfloat16>(rows * 2 * m.intermediate);
    act_ = DeviceBuffer<__nv_bfloat16>(rows * m.intermediate);
    int logitRows = std::max(opt_.batch, std::min(maxRows_, std::max(opt_.logitSlots, 1)));
    last_ = DeviceBuffer<__nv_bfloat16>(std::size_t(logitRows) * m.hidden);
    logits_ = DeviceBuffer<__nv_bfloat16>(std::size_t(logitRows) * m.vocab);
    if (opt_.precision == WeightPrecision::Int8WeightOnly) {
        std::size_t biggest = std::max({std::size_t(m.qkvWidth()) * m.hidden,
                                        std::size_t(2) * m.intermediate * m.hidden,
                                        std::size_t(m.hidden) * m.intermediate});
        dequant_ = DeviceBuffer<__nv_bfloat16>(biggest);
    }
    std::size_t cache = std::size_t(opt_.batch) * m.kvHeads * opt_.capacity * m.headDim;
    for (int l = 0; l < m.layers; ++l) {
        kCache_.emplace_back(cache);
        vCache_.emplace_back(cache);
    }
    attnWorkspace_ = DeviceBuffer<float>(decodeWorkspaceFloats(
        AttentionShape{opt_.batch, m.heads, m.kvHeads, m.headDim, opt_.capacity}));
    WS_CUDA(cudaMemset(attnWorkspace_.get(), 0, attnWorkspace_.size() * sizeof(float)));
    ids_ = DeviceBuffer<int>(rows);
    tokens_ = DeviceBuffer<int>(opt_.batch);
    generated_ = DeviceBuffer<int>(std::size_t(opt_.capacity) * opt_.batch);
    counters_ = DeviceBuffer<int>(3);
    argmaxValues_ = DeviceBuffer<float>(std::size_t(kGemvMaxBatch) * kArgmaxBlocks);
    argmaxIndices_ = DeviceBuffer<int>(std::size_t(kGemvMaxBatch) * kArgmaxBlocks);
    if (opt_.logitSlots > 0)
        slots_ = DeviceBuffer<__nv_bfloat16>(std::size_t(opt_.logitSlots) * m.vocab);
    setCounters(0, 0, 0);
    WS_CUDA(cudaStreamSynchronize(stream_));
}

Decoder::~Decoder() {
    if (graphExec_) cudaGraphExecDestroy(graphExec_);
    if (graph_) cudaGraphDestroy(graph_);
    if (cublas_) cublasDestroy(cublas_);
}

std::int64_t Decoder::kvCacheBytes() const {
    return local_.kvCacheBytes(opt_.capacity, opt_.batch);
}

std::int64_t Decoder::weightBytes() const {
    // Embedding, norms and LM head whole on every rank, its share of the layers.
    return local_.weightBytes(opt_.precision);
}

// Row-parallel outputs are partial sums: completed across ranks, in place.
void Decoder::sumAcrossRanks(__nv_bfloat16* data, int rows) {
    if (opt_.ranks == 1) return;
    OpRange range("all-reduce");
    opt_.allReduce->sum(data, std::size_t(rows) * local_.hidden, stream_);
}

void Decoder::setCounters(int step, int position, int context) {
    int host[3] = {step, position, context};
    WS_CUDA(cudaMemcpyAsync(counters_.get(), host, sizeof host, cudaMemcpyHostToDevice, stream_));
    WS_CUDA(cudaStreamSynchronize(stream_));  // `host` goes out of scope
}

// From 3 rows on, tensor cores: on the H200 the CUDA-core splitk rung is
// faster at batch 2 (0.93 × cuBLAS against mma's 0.84) but falls to 0.69 ×
// at batch 4 and 0.47 × at batch 8, where mma holds 0.86 and 0.83.
GemvRung Decoder::gemvRungFor(int rows) const {
    return gemvRung_ == GemvRung::SplitK && rows >= 3 ? GemvRung::Mma : gemvRung_;
}

void Decoder::linear(const LinearWeight& w, const __nv_bfloat16* x, __nv_bfloat16* y, int rows) {
    bool gemv = rows <= kGemvMaxBatch;
    if (w.quantized()) {
        if (gemv && opt_.variant != DecoderVariant::Reference) {
            gemvInt8(x, w.q.get(), w.scales.get(), y, rows, w.out, w.in, stream_);
            return;
        }
        dequantizeRows(w.q.get(), w.scales.get(), dequant_.get(), w.out, w.in, stream_);
        const __nv_bfloat16* wd = dequant_.get();
        if (gemv)
            gemvBf16(gemvRung_, x, wd, y, rows, w.out, w.in, stream_);
        else
            gemmBf16(gemmRung_, x, wd, y, rows, w.out, w.in, stream_, cublas_);
        return;
    }
    if (gemv && opt_.variant != DecoderVariant::Cublas)
        gemvBf16(gemvRungFor(rows), x, w.w.get(), y, rows, w.out, w.in, stream_);
    else
        gemmBf16(gemv ? GemmRung::Cublas : gemmRung_, x, w.w.get(), y, rows, w.out, w.in, stream_,
                 cublas_);
}

void Decoder::lmHead(const __nv_bfloat16* x, __nv_bfloat16* y, int rows) {
    OpRange range("lm head");
    const auto& m = local_;
    const __nv_bfloat16* w = weights_.lmHeadWeights();
    if (rows <= kGemvMaxBatch && opt_.variant != DecoderVariant::Cublas)
        gemvBf16(gemvRungFor(rows), x, w, y, rows, m.vocab, m.hidden, stream_);
    else
        gemmBf16(opt_.variant == DecoderVariant::Cublas ? GemmRung::Cublas : gemmRung_, x, w, y,
                 rows, m.vocab, m.hidden, stream_, cublas_);
}

// Runs the layers on `rows` token rows (ids_ for prefill, tokens_ for decode)
// and leaves the final-normed hidden states in h_.
void Decoder::forward(int rows, int tokensPerRequest, bool decode) {
    const auto& m = local_;
    int requests = rows / tokensPerRequest;
    const int* position = counters_.get() + 1;  // 0 during prefill, set by setCounters
    {
        OpRange range("embed");
        embed(weights_.embedding.get(), decode ? tokens_.get() : ids_.get(), x_.get(), rows,
              m.hidden, stream_);
    }
    AttentionShape shape{requests, m.heads, m.kvHeads, m.headDim, opt_.capacity};
    for (int l = 0; l < m.layers; ++l) {
        OpRange layer("layer " + std::to_string(l));
        auto& lw = weights_.layers[l];
        std::optional<OpRange> op;
        op.emplace("attention");
        if (l == 0)
            rmsnorm(elementwiseRung_, x_.get(), nullptr, lw.attnNorm.get(), h_.get(), rows,
                    m.hidden, opt_.rmsEps, stream_);
        else
            rmsnorm(elementwiseRung_, o_.get(), x_.get(), lw.attnNorm.get(), h_.get(), rows,
                    m.hidden, opt_.rmsEps, stream_);
        linear(lw.qkv, h_.get(), qkv_.get(), rows);
        if (elementwiseRung_ == ElementwiseRung::Fused) {
            ropeAppendKv(qkv_.get(), rows, m.qkvWidth(), shape, tokensPerRequest, position,
                         opt_.ropeTheta, kCache_[l].get(), vCache_[l].get(), stream_);
        } else {
            rope(elementwiseRung_, qkv_.get(), rows, m.qkvWidth(), m.heads + m.kvHeads, m.headDim,
                 tokensPerRequest, position, opt_.ropeTheta, stream_);
            appendKv(qkv_.get(), rows, m.qkvWidth(), shape, tokensPerRequest, position,
                     kCache_[l].get(), vCache_[l].get(), stream_);
        }
        if (decode)
            decodeAttention(decodeRung_, qkv_.get(), m.qkvWidth(), kCache_[l].get(),
                            vCache_[l].get(), attn_.get(), shape, counters_.get() + 2,
                            attnWorkspace_.get(), stream_);
        else
            prefillAttention(prefillRung_, qkv_.get(), m.qkvWidth(), kCache_[l].get(),
                             vCache_[l].get(), attn_.get(), shape, tokensPerRequest, 0, stream_);
        linear(lw.o, attn_.get(), o_.get(), rows);
        sumAcrossRanks(o_.get(), rows);
        op.reset();
        op.emplace("mlp");
        rmsnorm(elementwiseRung_, o_.get(), x_.get(), lw.mlpNorm.get(), h_.get(), rows, m.hidden,
                opt_.rmsEps, stream_);
        linear(lw.gateUp, h_.get(), gateUp_.get(), rows);
        siluMul(elementwiseRung_, gateUp_.get(), act_.get(), rows, m.intermediate, stream_);
        linear(lw.down, act_.get(), o_.get(), rows);
        sumAcrossRanks(o_.get(), rows);
    }
    OpRange range("final norm");
    rmsnorm(elementwiseRung_, o_.get(), x_.get(), weights_.finalNorm.get(), h_.get(), rows,
            m.hidden, opt_.rmsEps, stream_);
}

void Decoder::prefill(const std::vector<int>& prompts, int tokensPerRequest) {
    int rows = int(prompts.size());
    if (tokensPerRequest < 1 || rows != opt_.batch * tokensPerRequest || rows > maxRows_)
        throw std::invalid_argument("decoder prefill: expected batch × prompt token ids");
    WS_CUDA(cudaMemcpyAsync(ids_.get(), prompts.data(), prompts.size() * sizeof(int),
                            cudaMemcpyHostToDevice, stream_));
    setCounters(0, 0, 0);  // prefill positions start at 0
    forward(rows, tokensPerRequest, false);
    gatherLastRows(h_.get(), last_.get(), opt_.batch, tokensPerRequest, local_.hidden, stream_);
    lmHead(last_.get(), logits_.get(), opt_.batch);
    SampleState st{tokens_.get(),
                   generated_.get(),
                   nullptr,
                   nullptr,
                   nullptr,
                   slots_.get(),
                   opt_.logitSlots,
                   argmaxValues_.get(),
                   argmaxIndices_.get()};
    OpRange range("sample");
    sampleGreedy(logits_.get(), opt_.batch, local_.vocab, st, stream_);
    // Decode continues at step 1, writing position tokensPerRequest.
    setCounters(1, tokensPerRequest, tokensPerRequest + 1);
}

void Decoder::decodeStep() {
    if (graphExec_) {
        WS_CUDA(cudaGraphLaunch(graphExec_, stream_));
        return;
    }
    forward(opt_.batch, 1, true);
    lmHead(h_.get(), logits_.get(), opt_.batch);
    int* c = counters_.get();
    SampleState st{
        tokens_.get(),       generated_.get(),    c, c + 1, c + 2, slots_.get(), opt_.logitSlots,
        argmaxValues_.get(), argmaxIndices_.get()};
    OpRange range("sample");
    sampleGreedy(logits_.get(), opt_.batch, local_.vocab, st, stream_);
}

void Decoder::captureDecodeGraph() {
    if (graphExec_) return;
    WS_CUDA(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    try {
        decodeStep();
    } catch (...) {
        cudaGraph_t broken = nullptr;
        cudaStreamEndCapture(stream_, &broken);
        if (broken) cudaGraphDestroy(broken);
        throw;
    }
    WS_CUDA(cudaStreamEndCapture(stream_, &graph_));
    WS_CUDA(cudaGraphInstantiate(&graphExec_, graph_, 0));
}

void Decoder::releaseDecodeGraph() {
    if (graphExec_) WS_CUDA(cudaGraphExecDestroy(graphExec_));
    if (graph_) WS_CUDA(cudaGraphDestroy(graph_));
    graphExec_ = nullptr;
    graph_ = nullptr;
}

std::vector<float> Decoder::promptLogits(const std::vector<int>& tokens, int lastN) {
    int rows = int(tokens.size());
    if (opt_.batch != 1 || rows > maxRows_ || lastN < 1 || lastN > rows ||
        lastN > int(last_.size() / local_.hidden))
        throw std::invalid_argument("decoder promptLogits: batch 1, prompt within capacity");
    const auto& m = local_;
    WS_CUDA(cudaMemcpyAsync(ids_.get(), tokens.data(), tokens.size() * sizeof(int),
                            cudaMemcpyHostToDevice, stream_));
    setCounters(0, 0, 0);
    forward(rows, rows, false);
    WS_CUDA(cudaMemcpyAsync(last_.get(), h_.get() + std::size_t(rows - lastN) * m.hidden,
                            std::size_t(lastN) * m.hidden * sizeof(__nv_bfloat16),
                            cudaMemcpyDeviceToDevice, stream_));
    lmHead(last_.get(), logits_.get(), lastN);
    WS_CUDA(cudaStreamSynchronize(stream_));
    auto raw = logits_.toHost<bf16_bits>();
    std::vector<float> out(std::size_t(lastN) * m.vocab);
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = bf16ToFloat(raw[i]);
    return out;
}

std::vector<int> Decoder::generated(int steps) const {
    std::vector<int> out(std::size_t(steps) * opt_.batch);
    WS_CUDA(
        cudaMemcpy(out.data(), generated_.get(), out.size() * sizeof(int), cudaMemcpyDeviceToHost));
    return out;
}

std::vector<float> Decoder::logitSlots() const {
    auto raw = slots_.toHost<bf16_bits>();
    std::vector<float> out(raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i)
        out[i] = bf16ToFloat(raw[i]);
    return out;
}

}  // namespace ws::kernels
