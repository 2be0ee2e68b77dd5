// A Llama-architecture decoder (RMSNorm, GQA attention with RoPE, SwiGLU MLP,
// KV cache) built from the kernel ladders. The variant picks the rungs:
//   reference  naive GEMM/GEMV/attention/elementwise kernels
//   optimized  mma GEMM, split-K GEMV, tensor-core flash prefill, split-KV decode,
//              fused kernels
//   cublas     cuBLAS for every matrix product, the rest as optimized
// Greedy decoding; positions live on the device, so one captured CUDA graph
// replays every decode step.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "attention/attention.h"
#include "collectives/all_reduce.h"
#include "decoder/decoder_weights.h"
#include "elementwise/elementwise.h"
#include "gemm/gemm.h"
#include "gemv/gemv.h"

namespace ws::kernels {

enum class DecoderVariant { Reference, Optimized, Cublas };
DecoderVariant parseDecoderVariant(const std::string& text);  // throws std::invalid_argument
const char* toString(DecoderVariant v);

struct DecoderOptions {
    ModelShape shape;
    WeightPrecision precision = WeightPrecision::Bf16;
    DecoderVariant variant = DecoderVariant::Optimized;
    int batch = 1;             // concurrent requests, 1–16
    int capacity = 0;          // KV-cache positions per request (prompt + output)
    int maxPrefillTokens = 0;  // prompt length per request
    std::uint64_t seed = 0;
    std::string weightsPath;  // empty: deterministic random weights
    float ropeTheta = 10000.0f;
    float rmsEps = 1e-5f;
    int logitSlots = 0;  // decode steps whose request-0 logits are kept (quality check)
    // Tensor parallelism: this is rank `rank` of `ranks`, holding its share of
    // heads and MLP (ModelShape::shard; `shape` stays the whole model's) and
    // summing partial outputs through `allReduce` after attention and after
    // the MLP. Every rank runs the same calls in the same order.
    int rank = 0, ranks = 1;
    AllReduce* allReduce = nullptr;  // required when ranks > 1
};

class Decoder {
  public:
    Decoder(const DecoderOptions& options, cudaStream_t stream);
    ~Decoder();
    Decoder(const Decoder&) = delete;
    Decoder& operator=(const Decoder&) = delete;

    // Runs the prompts (batch × tokensPerRequest ids, row-major) and samples
    // each request's first output token (step 0). Asynchronous.
    void prefill(const std::vector<int>& prompts, int tokensPerRequest);
    // One decode step for every request: the next token. Asynchronous; replays
    // the captured graph once captureDecodeGraph() was called.
    void decodeStep();
    void captureDecodeGraph();
    bool graphCaptured() const { return graph_ != nullptr; }
    // Destroys the captured graph (decode steps run eagerly again). NCCL frees
    // a communicator only once no graph that captured it is left.
    void releaseDecodeGraph();

    // Teacher forcing (batch 1): runs `tokens` as one prompt and returns the
    // logits predicting each of the last `lastN` positions' next token, [lastN × vocab].
    std::vector<float> promptLogits(const std::vector<int>& tokens, int lastN);

    std::vector<int> generated(int steps) const;  // [steps × batch]
    std::vector<float> logitSlots() const;        // [logitSlots × vocab] of request 0

    const DecoderOptions& options() const { return opt_; }
    std::int64_t kvCacheBytes() const;  // this rank's
    std::int64_t weightBytes() const;   // this rank's, on its device

  private:
    void forward(int rows, int tokensPerRequest, bool decode);
    void linear(const LinearWeight& w, const __nv_bfloat16* x, __nv_bfloat16* y, int rows);
    GemvRung gemvRungFor(int rows) const;
    void lmHead(const __nv_bfloat16* x, __nv_bfloat16* y, int rows);
    void setCounters(int step, int position, int context);
    void sumAcrossRanks(__nv_bfloat16* data, int rows);

    DecoderOptions opt_;
    ModelShape local_;  // this rank's share of opt_.shape (all of it without tensor parallelism)
    cudaStream_t stream_;
    cublasHandle_t cublas_ = nullptr;
    DecoderWeights weights_;
    GemmRung gemmRung_;
    GemvRung gemvRung_;
    PrefillAttentionRung prefillRung_;
    DecodeAttentionRung decodeRung_;
    ElementwiseRung elementwiseRung_;

    DeviceBuffer<__nv_bfloat16> x_, h_, o_, qkv_, attn_, gateUp_, act_, last_, logits_, dequant_;
    std::vector<DeviceBuffer<__nv_bfloat16>> kCache_, vCache_;
    DeviceBuffer<float> attnWorkspace_;
    DeviceBuffer<unsigned char> cublasWorkspace_;
    DeviceBuffer<int> ids_, tokens_, generated_, counters_;  // counters: step, position, context
    DeviceBuffer<__nv_bfloat16> slots_;
    DeviceBuffer<float> argmaxValues_;
    DeviceBuffer<int> argmaxIndices_;
    int maxRows_ = 0;
    cudaGraph_t graph_ = nullptr;
    cudaGraphExec_t graphExec_ = nullptr;
};

}  // namespace ws::kernels
