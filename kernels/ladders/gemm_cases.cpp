// GEMM and GEMV ladders (prefill and decode matrix products).
#include <cublas_v2.h>

#include "common/cuda_check.h"
#include "gemm/gemm.h"
#include "gemv/gemv.h"
#include "ladders/ladder_cases.h"
#include "ladders/ladder_support.h"

namespace ws::kernels {

namespace {

class CublasHandle {
  public:
    CublasHandle() { WS_CUBLAS(cublasCreate(&handle_)); }
    ~CublasHandle() { cublasDestroy(handle_); }
    CublasHandle(const CublasHandle&) = delete;
    CublasHandle& operator=(const CublasHandle&) = delete;
    cublasHandle_t on(cudaStream_t s) {
        WS_CUBLAS(cublasSetStream(handle_, s));
        return handle_;
    }

  private:
    cublasHandle_t handle_ = nullptr;
};

// Compares the GPU's rows `rows` of C[m×n] with the reference for those rows.
ref::Agreement compareRows(const std::vector<float>& c, const ref::Bf16Vec& a,
                           const ref::Bf16Vec& b, const std::vector<int>& rows, int n, int k) {
    ref::Bf16Vec aRows;
    std::vector<float> gpuRows;
    for (int r : rows) {
        aRows.insert(aRows.end(), a.begin() + std::size_t(r) * k,
                     a.begin() + std::size_t(r + 1) * k);
        gpuRows.insert(gpuRows.end(), c.begin() + std::size_t(r) * n,
                       c.begin() + std::size_t(r + 1) * n);
    }
    return ref::compare(gpuRows, ref::gemm(aRows, b, int(rows.size()), n, k));
}

class GemmCase : public LadderCase {
  public:
    GemmCase(const Shape& s, int copies, std::uint64_t seed)
        : m_(int(shapeValue(s, "m"))),
          n_(int(shapeValue(s, "n"))),
          k_(int(shapeValue(s, "k"))),
          seed_(seed),
          a_(copies, std::size_t(m_) * k_, seed, 1.0f),
          b_(copies, std::size_t(n_) * k_, seed + 1, 1.0f),
          c_(std::size_t(m_) * n_) {}
    std::string name() const override { return "gemm_bf16"; }
    KernelCost cost(const std::string&) const override { return gemmCost(m_, n_, k_); }
    void run(const std::string& rung, int copy, cudaStream_t s) override {
        gemmBf16(parseGemmRung(rung), a_.at(copy), b_.at(copy), c_.get(), m_, n_, k_, s,
                 parseGemmRung(rung) == GemmRung::Cublas ? cublas_.on(s) : nullptr);
    }
    ref::Agreement verify(const std::string& rung, cudaStream_t s) override {
        poison(c_.get(), c_.size(), s);
        run(rung, 0, s);
        WS_CUDA(cudaStreamSynchronize(s));
        return compareRows(deviceToFloat(c_), hostUniform(seed_, a_.buffers[0].size(), 1.0f),
                           hostUniform(seed_ + 1, b_.buffers[0].size(), 1.0f), sampleRows(m_, 16),
                           n_, k_);
    }

  private:
    int m_, n_, k_;
    std::uint64_t seed_;
    InputCopies a_, b_;
    Bf16Buffer c_;
    CublasHandle cublas_;
};

class GemvCase : public LadderCase {
  public:
    GemvCase(const Shape& s, int copies, std::uint64_t seed)
        : batch_(int(shapeValue(s, "batch"))),
          n_(int(shapeValue(s, "n"))),
          k_(int(shapeValue(s, "k"))),
          seed_(seed),
          x_(copies, std::size_t(batch_) * k_, seed, 1.0f),
          w_(copies, std::size_t(n_) * k_, seed + 1, 1.0f),
          y_(std::size_t(batch_) * n_) {
        for (int c = 0; c < copies; ++c) {
            wq_.emplace_back(std::size_t(n_) * k_);
            fillUniformInt8(wq_.back().get(), wq_.back().size(), seed + 2 + 1000003ull * c);
        }
        scales_ = DeviceBuffer<float>(n_);
        fillUniformFloat(scales_.get(), n_, seed + 3, 0.002f, 0.01f);
    }
    std::string name() const override { return "gemv_bf16"; }
    KernelCost cost(const std::string& rung) const override {
        return gemvCost(batch_, n_, k_, rung == "int8" ? 1 : 2);
    }
    void run(const std::string& rung, int copy, cudaStream_t s) override {
        if (rung == "int8")
            gemvInt8(x_.at(copy), wq_[copy % wq_.size()].get(), scales_.get(), y_.get(), batch_, n_,
                     k_, s);
        else if (rung == "cublas")
            gemmBf16(GemmRung::Cublas, x_.at(copy), w_.at(copy), y_.get(), batch_, n_, k_, s,
                     cublas_.on(s));
        else
            gemvBf16(parseGemvRung(rung), x_.at(copy), w_.at(copy), y_.get(), batch_, n_, k_, s);
    }
    ref::Agreement verify(const std::string& rung, cudaStream_t s) override {
        poison(y_.get(), y_.size(), s);
        run(rung, 0, s);
        WS_CUDA(cudaStreamSynchronize(s));
        auto x = hostUniform(seed_, x_.buffers[0].size(), 1.0f);
        if (rung == "int8") {
            auto w = wq_[0].toHost<std::int8_t>();
            auto scales = scales_.toHost();
            return ref::compare(deviceToFloat(y_), ref::gemvInt8(x, w, scales, batch_, n_, k_));
        }
        auto w = hostUniform(seed_ + 1, w_.buffers[0].size(), 1.0f);
        return ref::compare(deviceToFloat(y_), ref::gemm(x, w, batch_, n_, k_));
    }

  private:
    int batch_, n_, k_;
    std::uint64_t seed_;
    InputCopies x_, w_;
    std::vector<DeviceBuffer<std::int8_t>> wq_;
    DeviceBuffer<float> scales_;
    Bf16Buffer y_;
    CublasHandle cublas_;
};

}  // namespace

std::unique_ptr<LadderCase> makeGemmCase(const Shape& s, int copies, std::uint64_t seed) {
    return std::make_unique<GemmCase>(s, copies, seed);
}
std::unique_ptr<LadderCase> makeGemvCase(const Shape& s, int copies, std::uint64_t seed) {
    return std::make_unique<GemvCase>(s, copies, seed);
}

}  // namespace ws::kernels
