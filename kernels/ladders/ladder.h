// A kernel ladder at one shape with its inputs on the device: every rung can
// be launched, timed and verified against the CPU reference. Inputs exist in
// several copies (timing rotates through them so L2 never serves a rung).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "host/cpu_reference.h"
#include "host/kernel_cost.h"

namespace ws::kernels {

using Shape = std::map<std::string, std::int64_t>;

class LadderCase {
  public:
    virtual ~LadderCase() = default;
    virtual std::string name() const = 0;
    // Reference first, best last; and the rung that is not ours (cublas), if
    // any: both from the ladder catalog (model/ladder_catalog.h).
    std::vector<std::string> rungs() const;
    std::string baseline() const;
    virtual KernelCost cost(const std::string& rung) const = 0;
    // Launches `rung` once on input copy `copy % copies`.
    virtual void run(const std::string& rung, int copy, cudaStream_t stream) = 0;
    // Poisons the output, runs `rung` on copy 0 and compares with the CPU reference.
    virtual ref::Agreement verify(const std::string& rung, cudaStream_t stream) = 0;
    virtual double tolerance(const std::string&) const { return ref::kBf16Tolerance; }
};

// Kernels: gemm_bf16, gemv_bf16, rmsnorm, softmax, silu_mul, rope,
// attention_decode, attention_prefill, copy. Shape keys per kernel are in
// ladderShapeKeys(); missing keys take the defaults. Throws
// std::invalid_argument naming an unknown kernel, rung or shape key.
std::unique_ptr<LadderCase> makeLadderCase(const std::string& kernel, const Shape& shape,
                                           int copies, std::uint64_t seed);
std::vector<std::string> ladderNames();
Shape ladderDefaultShape(const std::string& kernel);

}  // namespace ws::kernels
