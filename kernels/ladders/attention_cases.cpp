// Attention ladders: decode (one query per request against a long cache) and
// causal prefill, both GQA.
#include "attention/attention.h"
#include "common/cuda_check.h"
#include "ladders/ladder_cases.h"
#include "ladders/ladder_support.h"

namespace ws::kernels {

namespace {

AttentionShape attentionShape(const Shape& s, const char* lengthKey) {
    AttentionShape a;
    a.batch = int(shapeValue(s, "batch"));
    a.heads = int(shapeValue(s, "heads"));
    a.kvHeads = int(shapeValue(s, "kv_heads"));
    a.headDim = int(shapeValue(s, "head_dim"));
    a.capacity = int(shapeValue(s, lengthKey));
    if (a.batch < 1 || a.heads < 1 || a.kvHeads < 1 || a.capacity < 1 || a.heads % a.kvHeads)
        throw std::invalid_argument(
            "attention shape: positive sizes, heads a multiple of kv_heads");
    return a;
}

// Pulls the q heads of token rows `first … first+count` out of a qkv matrix.
ref::Bf16Vec qRows(const ref::Bf16Vec& qkv, const AttentionShape& a, int tokensPerRequest,
                   int first, int count) {
    int stride = (a.heads + 2 * a.kvHeads) * a.headDim, width = a.heads * a.headDim;
    ref::Bf16Vec q;
    for (int b = 0; b < a.batch; ++b)
        for (int t = first; t < first + count; ++t) {
            auto row = qkv.begin() + (std::size_t(b) * tokensPerRequest + t) * stride;
            q.insert(q.end(), row, row + width);
        }
    return q;
}

std::vector<float> outRows(const std::vector<float>& out, const AttentionShape& a,
                           int tokensPerRequest, int first, int count) {
    int width = a.heads * a.headDim;
    std::vector<float> rows;
    for (int b = 0; b < a.batch; ++b)
        for (int t = first; t < first + count; ++t) {
            auto row = out.begin() + (std::size_t(b) * tokensPerRequest + t) * width;
            rows.insert(rows.end(), row, row + width);
        }
    return rows;
}

class AttentionCaseBase : public LadderCase {
  protected:
    AttentionCaseBase(AttentionShape a, int tokens, int copies, std::uint64_t seed)
        : a_(a),
          tokens_(tokens),
          seed_(seed),
          qkv_(copies, std::size_t(a.batch) * tokens * stride(), seed, 1.0f),
          k_(copies, cacheSize(), seed + 1, 1.0f),
          v_(copies, cacheSize(), seed + 2, 1.0f),
          out_(std::size_t(a.batch) * tokens * a.heads * a.headDim) {}
    int stride() const { return (a_.heads + 2 * a_.kvHeads) * a_.headDim; }
    std::size_t cacheSize() const {
        return std::size_t(a_.batch) * a_.kvHeads * a_.capacity * a_.headDim;
    }
    ref::Agreement compareQueries(int first, int count) {
        auto qkv = hostUniform(seed_, qkv_.buffers[0].size(), 1.0f);
        auto expected = ref::attention(
            qRows(qkv, a_, tokens_, first, count), hostUniform(seed_ + 1, cacheSize(), 1.0f),
            hostUniform(seed_ + 2, cacheSize(), 1.0f), a_.batch, count, a_.heads, a_.kvHeads,
            a_.headDim, a_.capacity, tokens_ == 1 ? a_.capacity - 1 : first);
        return ref::compare(outRows(deviceToFloat(out_), a_, tokens_, first, count), expected);
    }
    AttentionShape a_;
    int tokens_;
    std::uint64_t seed_;
    InputCopies qkv_, k_, v_;
    Bf16Buffer out_;
};

class DecodeAttentionCase : public AttentionCaseBase {
  public:
    DecodeAttentionCase(const Shape& s, int copies, std::uint64_t seed)
        : AttentionCaseBase(attentionShape(s, "context"), 1, copies, seed),
          context_(1),
          workspace_(decodeWorkspaceFloats(a_)) {
        int ctx = a_.capacity;
        WS_CUDA(cudaMemcpy(context_.get(), &ctx, sizeof ctx, cudaMemcpyHostToDevice));
        WS_CUDA(cudaMemset(workspace_.get(), 0, workspace_.size() * sizeof(float)));
    }
    std::string name() const override { return "attention_decode"; }
    KernelCost cost(const std::string&) const override {
        return decodeAttentionCost(a_.batch, a_.heads, a_.kvHeads, a_.headDim, a_.capacity);
    }
    void run(const std::string& rung, int copy, cudaStream_t s) override {
        decodeAttention(parseDecodeAttentionRung(rung), qkv_.at(copy), stride(), k_.at(copy),
                        v_.at(copy), out_.get(), a_, context_.get(), workspace_.get(), s);
    }
    ref::Agreement verify(const std::string& rung, cudaStream_t s) override {
        poison(out_.get(), out_.size(), s);
        run(rung, 0, s);
        WS_CUDA(cudaStreamSynchronize(s));
        return compareQueries(0, 1);
    }

  private:
    DeviceBuffer<int> context_;
    DeviceBuffer<float> workspace_;
};

class PrefillAttentionCase : public AttentionCaseBase {
  public:
    PrefillAttentionCase(const Shape& s, int copies, std::uint64_t seed)
        : AttentionCaseBase(attentionShape(s, "tokens"), int(shapeValue(s, "tokens")), copies,
                            seed) {}
    std::string name() const override { return "attention_prefill"; }
    KernelCost cost(const std::string&) const override {
        return prefillAttentionCost(a_.batch, a_.heads, a_.kvHeads, a_.headDim, tokens_);
    }
    void run(const std::string& rung, int copy, cudaStream_t s) override {
        prefillAttention(parsePrefillAttentionRung(rung), qkv_.at(copy), stride(), k_.at(copy),
                         v_.at(copy), out_.get(), a_, tokens_, 0, s);
    }
    ref::Agreement verify(const std::string& rung, cudaStream_t s) override {
        poison(out_.get(), out_.size(), s);
        run(rung, 0, s);
        WS_CUDA(cudaStreamSynchronize(s));
        // The first and the last queries: the shortest and the longest causal windows.
        int count = std::min(tokens_, 8);
        auto head = compareQueries(0, count), tail = compareQueries(tokens_ - count, count);
        return head.maxScaledError >= tail.maxScaledError || head.nonFinite ? head : tail;
    }
};

}  // namespace

std::unique_ptr<LadderCase> makeDecodeAttentionCase(const Shape& s, int c, std::uint64_t seed) {
    return std::make_unique<DecodeAttentionCase>(s, c, seed);
}
std::unique_ptr<LadderCase> makePrefillAttentionCase(const Shape& s, int c, std::uint64_t seed) {
    return std::make_unique<PrefillAttentionCase>(s, c, seed);
}

}  // namespace ws::kernels
