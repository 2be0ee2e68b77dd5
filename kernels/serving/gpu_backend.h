// The serving engine's GPU backend: the built-in Llama decoder (its weights,
// linear-layer rungs and elementwise kernels) over a paged KV cache.
//
// Each step is one varlen batch: every scheduled token is a row (decode
// tokens first, then the prefill chunks), the linear layers run over all
// rows at once, RoPE'd K/V go to the slots the block tables give, decode
// rows attend through the paged split-KV kernel and prefill chunks through
// the paged flash kernel, and the sampled rows go through the LM head and
// the sampler. Pure-decode steps replay a CUDA graph captured per batch
// bucket (the batch padded up to it); steps with prefill run eagerly. The
// step's metadata lives on the device at fixed addresses (StepMetaLayout),
// copied in one piece per step, so the graphs replay with new contents.
//
// Tokens: prompts may use the model's whole vocabulary; the byte tokenizer's
// EOS (256) is EOS; with `textOnly` (the server) the sampled tokens are those
// the byte tokenizer renders as text (docs/serving.md).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "attention/paged_attention.h"
#include "decoder/decoder.h"
#include "model/decoder_params.h"
#include "serving/backend.h"
#include "serving/linear_tuning.h"
#include "serving/step_batch.h"

namespace ws::serving {

struct GpuBackendOptions {
    ModelShape shape;
    WeightPrecision precision = WeightPrecision::Bf16;
    // optimized (the decoder's own rungs) or cublas (cuBLAS for the matrices).
    kernels::DecoderVariant variant = kernels::DecoderVariant::Optimized;
    std::uint64_t seed = 0;   // random weights, as the offline decoder's
    std::string weightsPath;  // a .safetensors file; empty: random weights
    float ropeTheta = 10000.0f;
    float rmsEps = 1e-5f;
    bool cudaGraphs = true;
    // Every linear layer through the GEMM rung and 128-key decode splits at
    // any batch, so a sequence's tokens do not depend on what is batched with
    // it (vLLM's batch-invariant mode). Off: the decoder's choice per row
    // count (split-K GEMV for 1-2 rows, ...), faster, equal only up to bf16
    // rounding across batch sizes.
    bool batchInvariant = false;
    // 128-key decode splits at any batch, the linear layers as without
    // batchInvariant: the attention rung of that mode alone.
    bool fixedDecodeSplits = false;
    // Sample only tokens the byte tokenizer renders as text (printable ASCII
    // 32-126 and EOS 256), as the server does: its tokenizer has no text for
    // the model's other ids. The LM head still computes every logit. Off: the
    // whole vocabulary, as the offline decoder.
    bool textOnly = false;
    // Time the decoder's rung against cuBLAS for every matrix shape at each
    // decode batch bucket when prepared, and run each at the faster
    // (serve.linear = "tuned"); only for the optimized variant, not when
    // batch-invariant. Off: the decoder's choice at every row count.
    bool tuneLinear = false;

    // From a workload's [decoder] table (throws std::invalid_argument on a
    // variant the backend has no paged kernels for).
    static GpuBackendOptions from(const DecoderParams& params);
};

class GpuBackend : public Backend {
  public:
    explicit GpuBackend(GpuBackendOptions options);
    ~GpuBackend() override;
    GpuBackend(const GpuBackend&) = delete;
    GpuBackend& operator=(const GpuBackend&) = delete;

    std::string name() const override { return "gpu"; }
    int vocabSize() const override { return opt_.shape.vocab; }
    TokenId eosToken() const override;
    void prepare(const EngineConfig& config) override;
    std::vector<TokenId> execute(const StepPlan& plan) override;
    // "linear 4096×4096: cuBLAS at rows 4, 8; own rung at rows 1, 2" per matrix shape when tuned.
    std::vector<std::string> preparedNotes() const override;

    // KV blocks that `fraction` of the device memory left free once the
    // weights and a step's buffers for `config` are allocated would hold.
    // Call before prepare (it reads the memory free now).
    static int blocksThatFit(const GpuBackendOptions& options, const EngineConfig& config,
                             double fraction);
    // Bytes of one KV block over all layers (K and V).
    static std::int64_t blockBytes(const ModelShape& shape, int blockSize);

    const GpuBackendOptions& options() const { return opt_; }
    int graphsCaptured() const { return static_cast<int>(graphs_.size()); }
    std::int64_t graphSteps() const { return graphSteps_; }
    std::int64_t eagerSteps() const { return eagerSteps_; }
    // What tuneLinear chose (empty when it did not run).
    const LinearTuning& linearTuning() const { return tuning_; }

  private:
    struct Counts {
        int tokens = 0, decodeSeqs = 0, prefillSeqs = 0, maxQueries = 0, sampled = 0;
    };
    void allocate(const EngineConfig& config);
    void forward(const Counts& c);
    void linear(const kernels::LinearWeight& w, const __nv_bfloat16* x, __nv_bfloat16* y, int rows);
    void lmHead(const __nv_bfloat16* x, __nv_bfloat16* y, int rows);
    void matmul(const __nv_bfloat16* w, const __nv_bfloat16* x, __nv_bfloat16* y, int rows, int out,
                int in, bool viaCublas);
    void tuneLinear(const std::vector<int>& rowCounts);  // gpu_backend_tuning.cpp
    void captureGraphs();
    std::vector<TokenId> run(const StepBatch& batch, bool graph);

    template <typename T>
    T* meta(std::size_t offset) const {
        return reinterpret_cast<T*>(metaDevice_.get() + offset);
    }

    GpuBackendOptions opt_;
    EngineConfig config_;
    StepLimits limits_;
    std::optional<StepMetaLayout> layout_;
    kernels::PagedKvShape kvShape_;
    std::vector<int> buckets_;
    kernels::GemmRung gemmRung_ = kernels::GemmRung::Mma;
    LinearTuning tuning_;

    cudaStream_t stream_ = nullptr;
    cublasHandle_t cublas_ = nullptr;
    kernels::DecoderWeights weights_;
    kernels::DeviceBuffer<__nv_bfloat16> x_, h_, o_, qkv_, attn_, gateUp_, act_, last_, logits_,
        dequant_;
    std::vector<kernels::DeviceBuffer<__nv_bfloat16>> kPool_, vPool_;
    kernels::DeviceBuffer<float> attnWorkspace_;
    kernels::DeviceBuffer<unsigned char> cublasWorkspace_;
    kernels::DeviceBuffer<std::uint32_t> metaDevice_, samplePartial_;
    kernels::DeviceBuffer<std::int32_t> tokensDevice_;
    std::uint32_t* metaHost_ = nullptr;                        // pinned, layout_->total words
    std::int32_t* tokensHost_ = nullptr;                       // pinned, maxSeqs
    std::map<int, cudaGraphExec_t> graphs_;                    // by bucket
    std::atomic<std::int64_t> graphSteps_{0}, eagerSteps_{0};  // read from other threads
};

}  // namespace ws::serving
