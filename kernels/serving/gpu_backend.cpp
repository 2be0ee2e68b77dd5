#include "serving/gpu_backend.h"

#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "common/cuda_check.h"
#include "decoder/decoder_kernels.h"
#include "elementwise/elementwise.h"
#include "gemm/gemm.h"
#include "gemv/gemv.h"
#include "serving/byte_tokenizer.h"
#include "serving/gpu_step_kernels.h"

namespace ws::serving {

using namespace ws::kernels;

namespace {

constexpr std::size_t kCublasWorkspace = 32u << 20;
// Held back from the pool for what prepare allocates after sizing it and
// the driver takes on the side (graphs, cuBLAS, module loading).
constexpr std::int64_t kReserveBytes = 1ll << 30;

// "engine.step:<step>;running=…;…": the step's statistics in the range's
// name (what every NVTX consumer keeps), keys as in docs/serving.md.
std::string stepRangeName(const StepStats& s) {
    return "engine.step:" + std::to_string(s.step) + ";running=" + std::to_string(s.running) +
           ";waiting=" + std::to_string(s.waiting) +
           ";prefill_seqs=" + std::to_string(s.prefillSeqs) +
           ";prefill_tokens=" + std::to_string(s.prefillTokens) +
           ";decode_seqs=" + std::to_string(s.decodeSeqs) +
           ";decode_tokens=" + std::to_string(s.decodeTokens) +
           ";kv_blocks_used=" + std::to_string(s.kvBlocksUsed) +
           ";kv_blocks_total=" + std::to_string(s.kvBlocksTotal) +
           ";preemptions=" + std::to_string(s.preemptions) +
           ";preemptions_total=" + std::to_string(s.preemptionsTotal) +
           ";kv_read_tokens=" + std::to_string(s.kvReadTokens) +
           ";attention_pairs=" + std::to_string(s.attentionPairs);
}

struct NvtxStep {
    explicit NvtxStep(const StepStats& s) { nvtxRangePushA(stepRangeName(s).c_str()); }
    ~NvtxStep() { nvtxRangePop(); }
};

StepLimits limitsFor(const EngineConfig& c) {
    StepLimits l;
    l.maxSeqs = c.maxNumSeqs;
    l.maxTokens = std::max(c.maxNumBatchedTokens, c.maxNumSeqs);
    l.blockSize = c.blockSize;
    l.maxBlocksPerSeq = (c.maxModelLen + c.blockSize - 1) / c.blockSize;
    return l;
}

// Device bytes of a step's buffers (activations, logits, workspaces) for `c`.
std::int64_t stepBufferBytes(const ModelShape& m, const EngineConfig& c) {
    const StepLimits l = limitsFor(c);
    const std::int64_t rows = l.maxTokens, seqs = l.maxSeqs;
    std::int64_t elements =
        rows * (3 * m.hidden + m.qkvWidth() + m.heads * m.headDim + 3 * m.intermediate) +
        seqs * (m.hidden + m.vocab);
    return 2 * elements + std::int64_t(kCublasWorkspace);
}

}  // namespace

GpuBackendOptions GpuBackendOptions::from(const DecoderParams& p) {
    GpuBackendOptions o;
    o.shape = ModelShape::from(p);
    o.precision = parsePrecision(p.precision);
    o.variant = parseDecoderVariant(p.variant);
    if (o.variant == DecoderVariant::Reference)
        throw std::invalid_argument(
            "decoder.variant = \"reference\": the GPU backend runs the optimized or cublas "
            "variant (its paged attention kernels are the optimized rungs)");
    o.seed = std::uint64_t(p.seed);
    o.weightsPath = p.weights;
    o.ropeTheta = float(p.ropeTheta);
    o.rmsEps = float(p.rmsNormEps);
    o.cudaGraphs = p.cudaGraphs;
    return o;
}

GpuBackend::GpuBackend(GpuBackendOptions options) : opt_(std::move(options)) {}

GpuBackend::~GpuBackend() {
    if (stream_) cudaStreamSynchronize(stream_);
    for (auto& [bucket, exec] : graphs_)
        cudaGraphExecDestroy(exec);
    if (cublas_) cublasDestroy(cublas_);
    if (metaHost_) cudaFreeHost(metaHost_);
    if (tokensHost_) cudaFreeHost(tokensHost_);
    if (stream_) cudaStreamDestroy(stream_);
}

TokenId GpuBackend::eosToken() const {
    return ByteTokenizer::kEos;
}

std::int64_t GpuBackend::blockBytes(const ModelShape& m, int blockSize) {
    return m.kvBytesPerToken() * blockSize;
}

int GpuBackend::blocksThatFit(const GpuBackendOptions& o, const EngineConfig& c, double fraction) {
    std::size_t free = 0, total = 0;
    WS_CUDA(cudaMemGetInfo(&free, &total));
    std::int64_t left = std::int64_t(free) - o.shape.weightBytes(o.precision) -
                        stepBufferBytes(o.shape, c) - kReserveBytes;
    if (left <= 0) return 0;
    return int(std::min<std::int64_t>(
        std::int64_t(double(left) * fraction) / blockBytes(o.shape, c.blockSize),
        std::numeric_limits<int>::max()));
}

void GpuBackend::allocate(const EngineConfig& c) {
    const auto& m = opt_.shape;
    const std::size_t rows = std::size_t(limits_.maxTokens), seqs = std::size_t(limits_.maxSeqs);
    x_ = DeviceBuffer<__nv_bfloat16>(rows * m.hidden);
    h_ = DeviceBuffer<__nv_bfloat16>(rows * m.hidden);
    o_ = DeviceBuffer<__nv_bfloat16>(rows * m.hidden);
    qkv_ = DeviceBuffer<__nv_bfloat16>(rows * m.qkvWidth());
    attn_ = DeviceBuffer<__nv_bfloat16>(rows * m.heads * m.headDim);
    gateUp_ = DeviceBuffer<__nv_bfloat16>(rows * 2 * m.intermediate);
    act_ = DeviceBuffer<__nv_bfloat16>(rows * m.intermediate);
    last_ = DeviceBuffer<__nv_bfloat16>(seqs * m.hidden);
    logits_ = DeviceBuffer<__nv_bfloat16>(seqs * m.vocab);
    if (opt_.precision == WeightPrecision::Int8WeightOnly) {
        std::size_t biggest = std::max({std::size_t(m.qkvWidth()) * m.hidden,
                                        std::size_t(2) * m.intermediate * m.hidden,
                                        std::size_t(m.hidden) * m.intermediate});
        dequant_ = DeviceBuffer<__nv_bfloat16>(biggest);
    }
    const std::size_t pool = pagedPoolElements(kvShape_, c.numBlocks);
    for (int l = 0; l < m.layers; ++l) {
        kPool_.emplace_back(pool);
        vPool_.emplace_back(pool);
        // Deterministic contents: padding rows of a graph read block 0.
        WS_CUDA(cudaMemsetAsync(kPool_.back().get(), 0, kPool_.back().bytes(), stream_));
        WS_CUDA(cudaMemsetAsync(vPool_.back().get(), 0, vPool_.back().bytes(), stream_));
    }
    attnWorkspace_ =
        DeviceBuffer<float>(pagedDecodeWorkspaceFloats(kvShape_, limits_.maxSeqs, c.maxModelLen));
    WS_CUDA(cudaMemsetAsync(attnWorkspace_.get(), 0, attnWorkspace_.bytes(), stream_));
    metaDevice_ = DeviceBuffer<std::uint32_t>(layout_->total);
    WS_CUDA(cudaMemsetAsync(metaDevice_.get(), 0, metaDevice_.bytes(), stream_));
    samplePartial_ = DeviceBuffer<std::uint32_t>(gpu::sampleWorkspaceWords(limits_.maxSeqs));
    tokensDevice_ = DeviceBuffer<std::int32_t>(seqs);
    WS_CUDA(cudaMallocHost(&metaHost_, layout_->total * sizeof(std::uint32_t)));
    WS_CUDA(cudaMallocHost(&tokensHost_, seqs * sizeof(std::int32_t)));
}

void GpuBackend::prepare(const EngineConfig& config) {
    config_ = config;
    const auto& m = opt_.shape;
    if (config.blockSize % 16 != 0)
        throw std::invalid_argument(
            "serve.block_size: the GPU backend needs a multiple of 16 (got " +
            std::to_string(config.blockSize) + ")");
    if (m.headDim != 64 && m.headDim != 128)
        throw std::invalid_argument("the GPU backend's attention needs head_dim 64 or 128");
    if (m.vocab <= ByteTokenizer::kEos)
        throw std::invalid_argument("the GPU backend needs a vocabulary of more than 256 tokens");
    limits_ = limitsFor(config);
    layout_.emplace(limits_);
    kvShape_ =
        PagedKvShape{m.heads, m.kvHeads, m.headDim, config.blockSize, limits_.maxBlocksPerSeq};
    buckets_ = opt_.cudaGraphs ? decodeBuckets(config.maxNumSeqs) : std::vector<int>{};
    gemmRung_ = opt_.variant == DecoderVariant::Cublas
                    ? GemmRung::Cublas
                    : (gemmWgmmaAvailable() ? GemmRung::Wgmma : GemmRung::Mma);

    WS_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    WS_CUBLAS(cublasCreate(&cublas_));
    WS_CUBLAS(cublasSetStream(cublas_, stream_));
    cublasWorkspace_ = DeviceBuffer<unsigned char>(kCublasWorkspace);
    // A fixed workspace: cuBLAS must not allocate while a graph is captured.
    WS_CUBLAS(cublasSetWorkspace(cublas_, cublasWorkspace_.get(), kCublasWorkspace));
    weights_ = opt_.weightsPath.empty()
                   ? makeRandomWeights(m, opt_.seed, opt_.precision, stream_)
                   : loadSafetensorsWeights(opt_.weightsPath, m, opt_.precision, stream_);
    allocate(config);
    WS_CUDA(cudaStreamSynchronize(stream_));
    if (opt_.tuneLinear && opt_.variant == DecoderVariant::Optimized && !opt_.batchInvariant)
        tuneLinear(decodeBuckets(config.maxNumSeqs));
    if (!buckets_.empty()) captureGraphs();
}

// The decoder's linear-layer choice (Decoder::linear), cuBLAS where the
// start-up timing found it faster for this shape and row count, or one GEMM
// rung for every row count when batch-invariant.
void GpuBackend::linear(const LinearWeight& w, const __nv_bfloat16* x, __nv_bfloat16* y, int rows) {
    if (w.quantized()) {
        if (rows <= kGemvMaxBatch && !opt_.batchInvariant) {
            gemvInt8(x, w.q.get(), w.scales.get(), y, rows, w.out, w.in, stream_);
            return;
        }
        dequantizeRows(w.q.get(), w.scales.get(), dequant_.get(), w.out, w.in, stream_);
        gemmBf16(gemmRung_, x, dequant_.get(), y, rows, w.out, w.in, stream_, cublas_);
        return;
    }
    matmul(w.w.get(), x, y, rows, w.out, w.in, tuning_.useCublas(w.out, w.in, rows));
}

void GpuBackend::lmHead(const __nv_bfloat16* x, __nv_bfloat16* y, int rows) {
    const auto& m = opt_.shape;
    matmul(weights_.lmHeadWeights(), x, y, rows, m.vocab, m.hidden,
           tuning_.useCublas(m.vocab, m.hidden, rows));
}

void GpuBackend::matmul(const __nv_bfloat16* w, const __nv_bfloat16* x, __nv_bfloat16* y, int rows,
                        int out, int in, bool viaCublas) {
    const bool gemv = rows <= kGemvMaxBatch && !opt_.batchInvariant;
    if (viaCublas || opt_.variant == DecoderVariant::Cublas)
        gemmBf16(GemmRung::Cublas, x, w, y, rows, out, in, stream_, cublas_);
    else if (gemv)
        gemvBf16(rows >= 3 ? GemvRung::Mma : GemvRung::SplitK, x, w, y, rows, out, in, stream_);
    else
        gemmBf16(gemmRung_, x, w, y, rows, out, in, stream_, cublas_);
}

// One step on the device from the metadata already there; stream-ordered, no
// host synchronization (so a pure-decode step can be captured as a graph).
void GpuBackend::forward(const Counts& c) {
    const auto& m = opt_.shape;
    const auto& L = *layout_;
    const auto rung = ElementwiseRung::Fused;
    const int rows = c.tokens;
    embed(weights_.embedding.get(), meta<int>(L.ids), x_.get(), rows, m.hidden, stream_);
    const int* decodeTables = meta<int>(L.blockTables);
    const int* prefillTables = decodeTables + std::size_t(c.decodeSeqs) * limits_.maxBlocksPerSeq;
    for (int l = 0; l < m.layers; ++l) {
        auto& lw = weights_.layers[std::size_t(l)];
        if (l == 0)
            rmsnorm(rung, x_.get(), nullptr, lw.attnNorm.get(), h_.get(), rows, m.hidden,
                    opt_.rmsEps, stream_);
        else
            rmsnorm(rung, o_.get(), x_.get(), lw.attnNorm.get(), h_.get(), rows, m.hidden,
                    opt_.rmsEps, stream_);
        linear(lw.qkv, h_.get(), qkv_.get(), rows);
        pagedRopeAppendKv(qkv_.get(), rows, m.qkvWidth(), kvShape_, meta<int>(L.positions),
                          meta<int>(L.slots), opt_.ropeTheta, kPool_[std::size_t(l)].get(),
                          vPool_[std::size_t(l)].get(), stream_);
        if (c.decodeSeqs > 0)
            pagedDecodeAttention(
                qkv_.get(), m.qkvWidth(), kPool_[std::size_t(l)].get(),
                vPool_[std::size_t(l)].get(), decodeTables, meta<int>(L.contextLens), attn_.get(),
                kvShape_, c.decodeSeqs, limits_.maxSeqs, config_.maxModelLen,
                opt_.batchInvariant || opt_.fixedDecodeSplits, attnWorkspace_.get(), stream_);
        if (c.prefillSeqs > 0)
            pagedPrefillAttention(qkv_.get(), m.qkvWidth(), kPool_[std::size_t(l)].get(),
                                  vPool_[std::size_t(l)].get(), prefillTables,
                                  meta<int>(L.rowStart), meta<int>(L.queries),
                                  meta<int>(L.firstPositions), attn_.get(), kvShape_, c.prefillSeqs,
                                  c.maxQueries, stream_);
        linear(lw.o, attn_.get(), o_.get(), rows);
        rmsnorm(rung, o_.get(), x_.get(), lw.mlpNorm.get(), h_.get(), rows, m.hidden, opt_.rmsEps,
                stream_);
        linear(lw.gateUp, h_.get(), gateUp_.get(), rows);
        siluMul(rung, gateUp_.get(), act_.get(), rows, m.intermediate, stream_);
        linear(lw.down, act_.get(), o_.get(), rows);
    }
    rmsnorm(rung, o_.get(), x_.get(), weights_.finalNorm.get(), h_.get(), rows, m.hidden,
            opt_.rmsEps, stream_);
    if (c.sampled < 1) return;
    gpu::gatherRows(h_.get(), meta<std::int32_t>(L.sampleRows), last_.get(), c.sampled, m.hidden,
                    stream_);
    lmHead(last_.get(), logits_.get(), c.sampled);
    gpu::sampleTokens(logits_.get(), c.sampled, m.vocab, opt_.textOnly, meta<float>(L.temperatures),
                      meta<std::uint32_t>(L.seeds), meta<std::int32_t>(L.outputIndex),
                      samplePartial_.get(), tokensDevice_.get(), stream_);
}

// Per bucket: one eager run first (module loading and the kernels' one-time
// setup must not happen inside a capture), then the capture. The warm-up
// batch is all padding: it stores nothing.
void GpuBackend::captureGraphs() {
    for (int bucket : buckets_) {
        StepBatch pad = buildStepBatch(StepPlan{}, limits_, bucket);
        run(pad, false);
        Counts c{bucket, bucket, 0, 0, bucket};
        WS_CUDA(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
        cudaGraph_t graph = nullptr;
        try {
            forward(c);
        } catch (...) {
            cudaStreamEndCapture(stream_, &graph);
            if (graph) cudaGraphDestroy(graph);
            throw;
        }
        WS_CUDA(cudaStreamEndCapture(stream_, &graph));
        cudaGraphExec_t exec = nullptr;
        cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
        cudaGraphDestroy(graph);
        WS_CUDA(made);
        graphs_[bucket] = exec;
    }
    eagerSteps_ = 0;
}

std::vector<TokenId> GpuBackend::run(const StepBatch& b, bool graph) {
    const auto& L = *layout_;
    L.pack(b, metaHost_);
    WS_CUDA(cudaMemcpyAsync(metaDevice_.get(), metaHost_, L.used(b) * sizeof(std::uint32_t),
                            cudaMemcpyHostToDevice, stream_));
    if (graph) {
        WS_CUDA(cudaGraphLaunch(graphs_.at(b.decodeSeqs), stream_));
        ++graphSteps_;
    } else {
        forward(Counts{b.tokens, b.decodeSeqs, b.prefillSeqs, b.maxQueries, b.sampled()});
        ++eagerSteps_;
    }
    const int real = b.sampled() - b.paddedSeqs;
    if (real > 0)
        WS_CUDA(cudaMemcpyAsync(tokensHost_, tokensDevice_.get(), std::size_t(real) * sizeof(int),
                                cudaMemcpyDeviceToHost, stream_));
    WS_CUDA(cudaStreamSynchronize(stream_));
    return std::vector<TokenId>(tokensHost_, tokensHost_ + std::max(real, 0));
}

std::vector<TokenId> GpuBackend::execute(const StepPlan& plan) {
    if (!layout_) throw std::logic_error("GpuBackend::execute before prepare");
    NvtxStep range(plan.stats);
    if (plan.empty()) return {};
    bool pureDecode = std::none_of(plan.seqs.begin(), plan.seqs.end(),
                                   [](const ScheduledSeq& s) { return s.prefill; });
    int bucket = pureDecode ? bucketFor(buckets_, int(plan.seqs.size())) : 0;
    bool graph = bucket > 0 && graphs_.count(bucket) > 0;
    return run(buildStepBatch(plan, limits_, graph ? bucket : 0), graph);
}

}  // namespace ws::serving
