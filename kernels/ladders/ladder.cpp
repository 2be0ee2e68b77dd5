#include "ladders/ladder.h"

#include <functional>
#include <stdexcept>

#include "ceilings/ceilings.h"
#include "common/cuda_check.h"
#include "common/device_buffer.h"
#include "ladders/ladder_cases.h"
#include "model/ladder_catalog.h"

namespace ws::kernels {

namespace {

// Device-to-device copy: the bandwidth ceiling as a ladder of its own.
class CopyCase : public LadderCase {
  public:
    CopyCase(const Shape& s, int copies)
        : bytes_(std::size_t(s.at("bytes")) / 16 * 16),
          src_(std::size_t(copies) * bytes_),
          dst_(bytes_),
          copies_(copies) {
        WS_CUDA(cudaMemset(src_.get(), 7, src_.bytes()));
    }
    std::string name() const override { return "copy"; }
    KernelCost cost(const std::string&) const override { return copyCost(std::int64_t(bytes_)); }
    void run(const std::string& rung, int copy, cudaStream_t s) override {
        auto* src = src_.get() + std::size_t(copy % copies_) * bytes_;
        if (rung == "memcpy")
            WS_CUDA(cudaMemcpyAsync(dst_.get(), src, bytes_, cudaMemcpyDeviceToDevice, s));
        else
            copyKernel(src, dst_.get(), bytes_, s);
    }
    ref::Agreement verify(const std::string& rung, cudaStream_t s) override {
        WS_CUDA(cudaMemsetAsync(dst_.get(), 0, bytes_, s));
        run(rung, 0, s);
        auto out = dst_.toHost();
        ref::Agreement a;
        a.compared = std::int64_t(out.size());
        for (unsigned char b : out)
            if (b != 7) a.maxScaledError = a.maxAbsError = 1;
        return a;
    }

  private:
    std::size_t bytes_;
    DeviceBuffer<unsigned char> src_, dst_;
    int copies_;
};

using Factory = std::function<std::unique_ptr<LadderCase>(const Shape&, int, std::uint64_t)>;

struct Entry {
    const char* name;
    Factory make;
};

const std::vector<Entry>& entries() {
    static const std::vector<Entry> list = {
        {"gemm_bf16", makeGemmCase},
        {"gemv_bf16", makeGemvCase},
        {"rmsnorm", makeRmsnormCase},
        {"softmax", makeSoftmaxCase},
        {"silu_mul", makeSiluMulCase},
        {"rope", makeRopeCase},
        {"attention_decode", makeDecodeAttentionCase},
        {"attention_prefill", makePrefillAttentionCase},
        {"copy",
         [](const Shape& s, int c, std::uint64_t) -> std::unique_ptr<LadderCase> {
             return std::make_unique<CopyCase>(s, c);
         }},
    };
    return list;
}

const LadderSpec& specOf(const std::string& kernel) {
    const LadderSpec* spec = findLadder(kernel);
    if (!spec) throw std::logic_error(kernel + " is not in the ladder catalog");
    return *spec;
}

}  // namespace

std::vector<std::string> ladderNames() {
    std::vector<std::string> names;
    for (const auto& e : entries())
        names.push_back(e.name);
    return names;
}

Shape ladderDefaultShape(const std::string& kernel) {
    for (const auto& e : entries())
        if (kernel == e.name) {
            const auto& defaults = specOf(kernel).shape;
            return Shape(defaults.begin(), defaults.end());
        }
    throw std::invalid_argument("unknown kernel '" + kernel + "'");
}

std::vector<std::string> LadderCase::rungs() const {
    return specOf(name()).rungs;
}

std::string LadderCase::baseline() const {
    return specOf(name()).baseline;
}

std::unique_ptr<LadderCase> makeLadderCase(const std::string& kernel, const Shape& shape,
                                           int copies, std::uint64_t seed) {
    for (const auto& e : entries()) {
        if (kernel != e.name) continue;
        const Shape defaults = ladderDefaultShape(kernel);
        Shape full = defaults;
        for (const auto& [key, value] : shape) {
            if (!full.count(key)) {
                std::string keys;
                for (const auto& [k, v] : defaults)
                    keys += (keys.empty() ? "" : ", ") + k;
                throw std::invalid_argument(kernel + ": unknown shape key '" + key + "' (" + keys +
                                            ")");
            }
            full[key] = value;
        }
        return e.make(full, copies < 1 ? 1 : copies, seed);
    }
    std::string names;
    for (const auto& n : ladderNames())
        names += (names.empty() ? "" : ", ") + n;
    throw std::invalid_argument("unknown kernel '" + kernel + "' (" + names + ")");
}

}  // namespace ws::kernels
