// Float64-accumulating CPU references for every kernel ladder, on the same
// bf16 inputs the GPU saw. Layouts match the CUDA kernels (kernels/*.h).
#pragma once

#include <cstdint>
#include <vector>

#include "bf16.h"

namespace ws::kernels::ref {

using Bf16Vec = std::vector<bf16_bits>;

// C[m×n] = A[m×k] · B[n×k]ᵀ (GEMM and GEMV, weights stored out × in).
std::vector<float> gemm(const Bf16Vec& a, const Bf16Vec& b, int m, int n, int k);
// Weight-only int8: W[n×k] int8 with a float scale per output row.
std::vector<float> gemvInt8(const Bf16Vec& x, const std::vector<std::int8_t>& w,
                            const std::vector<float>& scales, int batch, int n, int k);
// y = x / rms(x) · weight per row; with a residual, x = x + residual first.
std::vector<float> rmsnorm(const Bf16Vec& x, const Bf16Vec* residual, const Bf16Vec& weight,
                           int rows, int cols, float eps);
std::vector<float> softmax(const Bf16Vec& x, int rows, int cols);
// in[rows × 2·cols] holds gate then up; out = silu(gate) · up.
std::vector<float> siluMul(const Bf16Vec& gateUp, int rows, int cols);
// Rotate-half RoPE (Llama / Hugging Face layout) of x[tokens × heads × headDim],
// token t at position positions[t].
std::vector<float> rope(const Bf16Vec& x, const std::vector<int>& positions, int heads, int headDim,
                        double theta);
// Causal GQA attention. q[batch × queries × heads × headDim]; the caches are
// [batch × kvHeads × capacity × headDim]; query i of a batch row sits at
// position firstPosition + i and attends keys 0 … its position.
std::vector<float> attention(const Bf16Vec& q, const Bf16Vec& kCache, const Bf16Vec& vCache,
                             int batch, int queries, int heads, int kvHeads, int headDim,
                             int capacity, int firstPosition);

// How far a GPU output is from its reference. Passing means every element is
// within tolerance · (|ref| + rms(ref)) and none is NaN or infinite.
struct Agreement {
    double maxAbsError = 0;
    double maxScaledError = 0;  // max |gpu − ref| / (|ref| + rms(ref))
    std::int64_t nonFinite = 0;
    std::int64_t compared = 0;
    bool ok(double tolerance) const {
        return nonFinite == 0 && compared > 0 && maxScaledError <= tolerance;
    }
};
Agreement compare(const std::vector<float>& gpu, const std::vector<float>& reference);

// Tolerance for outputs rounded to bf16 after fp32 accumulation.
constexpr double kBf16Tolerance = 1.0 / 64;

}  // namespace ws::kernels::ref
