// RMSNorm, softmax, SiLU·mul and RoPE ladders: naive → fused.
#include "common/cuda_check.h"
#include "elementwise/elementwise.h"
#include "ladders/ladder_cases.h"
#include "ladders/ladder_support.h"

namespace ws::kernels {

namespace {

class RmsnormCase : public LadderCase {
  public:
    RmsnormCase(const Shape& s, int copies, std::uint64_t seed)
        : rows_(int(shapeValue(s, "rows"))),
          cols_(int(shapeValue(s, "cols"))),
          seed_(seed),
          x_(copies, size(), seed, 1.0f),
          residual_(copies, size(), seed + 1, 1.0f),
          weight_(1, cols_, seed + 2, 1.0f),
          y_(size()) {}
    std::string name() const override { return "rmsnorm"; }
    KernelCost cost(const std::string&) const override { return rmsnormCost(rows_, cols_, true); }
    void run(const std::string& rung, int copy, cudaStream_t s) override {
        rmsnorm(parseElementwiseRung(rung), x_.at(copy), residual_.at(copy), weight_.at(0),
                y_.get(), rows_, cols_, 1e-5f, s);
    }
    ref::Agreement verify(const std::string& rung, cudaStream_t s) override {
        fillUniform(residual_.at(0), size(), seed_ + 1, 1.0f, s);  // run() adds into it
        poison(y_.get(), y_.size(), s);
        run(rung, 0, s);
        WS_CUDA(cudaStreamSynchronize(s));
        auto residual = hostUniform(seed_ + 1, size(), 1.0f);
        return ref::compare(deviceToFloat(y_),
                            ref::rmsnorm(hostUniform(seed_, size(), 1.0f), &residual,
                                         hostUniform(seed_ + 2, cols_, 1.0f), rows_, cols_, 1e-5f));
    }

  private:
    std::size_t size() const { return std::size_t(rows_) * cols_; }
    int rows_, cols_;
    std::uint64_t seed_;
    InputCopies x_, residual_, weight_;
    Bf16Buffer y_;
};

class SoftmaxCase : public LadderCase {
  public:
    SoftmaxCase(const Shape& s, int copies, std::uint64_t seed)
        : rows_(int(shapeValue(s, "rows"))),
          cols_(int(shapeValue(s, "cols"))),
          seed_(seed),
          x_(copies, std::size_t(rows_) * cols_, seed, 8.0f),
          y_(std::size_t(rows_) * cols_) {}
    std::string name() const override { return "softmax"; }
    KernelCost cost(const std::string&) const override { return softmaxCost(rows_, cols_); }
    void run(const std::string& rung, int copy, cudaStream_t s) override {
        softmax(parseElementwiseRung(rung), x_.at(copy), y_.get(), rows_, cols_, s);
    }
    ref::Agreement verify(const std::string& rung, cudaStream_t s) override {
        poison(y_.get(), y_.size(), s);
        run(rung, 0, s);
        WS_CUDA(cudaStreamSynchronize(s));
        return ref::compare(deviceToFloat(y_),
                            ref::softmax(hostUniform(seed_, y_.size(), 8.0f), rows_, cols_));
    }

  private:
    int rows_, cols_;
    std::uint64_t seed_;
    InputCopies x_;
    Bf16Buffer y_;
};

class SiluMulCase : public LadderCase {
  public:
    SiluMulCase(const Shape& s, int copies, std::uint64_t seed)
        : rows_(int(shapeValue(s, "rows"))),
          cols_(int(shapeValue(s, "cols"))),
          seed_(seed),
          in_(copies, std::size_t(rows_) * cols_ * 2, seed, 4.0f),
          out_(std::size_t(rows_) * cols_) {}
    std::string name() const override { return "silu_mul"; }
    KernelCost cost(const std::string&) const override { return siluMulCost(rows_, cols_); }
    void run(const std::string& rung, int copy, cudaStream_t s) override {
        siluMul(parseElementwiseRung(rung), in_.at(copy), out_.get(), rows_, cols_, s);
    }
    ref::Agreement verify(const std::string& rung, cudaStream_t s) override {
        poison(out_.get(), out_.size(), s);
        run(rung, 0, s);
        WS_CUDA(cudaStreamSynchronize(s));
        return ref::compare(deviceToFloat(out_),
                            ref::siluMul(hostUniform(seed_, out_.size() * 2, 4.0f), rows_, cols_));
    }

  private:
    int rows_, cols_;
    std::uint64_t seed_;
    InputCopies in_;
    Bf16Buffer out_;
};

// RoPE in place on a q|k buffer (tokens × heads × head_dim, all rotated).
class RopeCase : public LadderCase {
  public:
    RopeCase(const Shape& s, int copies, std::uint64_t seed)
        : tokens_(int(shapeValue(s, "tokens"))),
          heads_(int(shapeValue(s, "heads"))),
          headDim_(int(shapeValue(s, "head_dim"))),
          seed_(seed),
          x_(copies, std::size_t(tokens_) * heads_ * headDim_, seed, 1.0f),
          zero_(1) {
        WS_CUDA(cudaMemset(zero_.get(), 0, sizeof(int)));
    }
    std::string name() const override { return "rope"; }
    KernelCost cost(const std::string&) const override {
        return ropeCost(tokens_, heads_, headDim_);
    }
    void run(const std::string& rung, int copy, cudaStream_t s) override {
        rope(parseElementwiseRung(rung), x_.at(copy), tokens_, heads_ * headDim_, heads_, headDim_,
             tokens_, zero_.get(), 500000.0f, s);
    }
    ref::Agreement verify(const std::string& rung, cudaStream_t s) override {
        std::size_t n = x_.buffers[0].size();
        fillUniform(x_.at(0), n, seed_, 1.0f, s);  // earlier runs rotated it in place
        run(rung, 0, s);
        WS_CUDA(cudaStreamSynchronize(s));
        std::vector<int> positions(tokens_);
        for (int t = 0; t < tokens_; ++t)
            positions[t] = t;
        return ref::compare(
            deviceToFloat(x_.buffers[0]),
            ref::rope(hostUniform(seed_, n, 1.0f), positions, heads_, headDim_, 500000.0));
    }

  private:
    int tokens_, heads_, headDim_;
    std::uint64_t seed_;
    InputCopies x_;
    DeviceBuffer<int> zero_;
};

}  // namespace

std::unique_ptr<LadderCase> makeRmsnormCase(const Shape& s, int c, std::uint64_t seed) {
    return std::make_unique<RmsnormCase>(s, c, seed);
}
std::unique_ptr<LadderCase> makeSoftmaxCase(const Shape& s, int c, std::uint64_t seed) {
    return std::make_unique<SoftmaxCase>(s, c, seed);
}
std::unique_ptr<LadderCase> makeSiluMulCase(const Shape& s, int c, std::uint64_t seed) {
    return std::make_unique<SiluMulCase>(s, c, seed);
}
std::unique_ptr<LadderCase> makeRopeCase(const Shape& s, int c, std::uint64_t seed) {
    return std::make_unique<RopeCase>(s, c, seed);
}

}  // namespace ws::kernels
