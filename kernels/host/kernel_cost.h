// FLOPs and DRAM bytes each kernel declares for a shape: the roofline's
// fallback when no hardware counters were collected, and the denominator of
// every bandwidth or FLOP/s ratio the bench prints. Bytes count each tensor
// once (the ideal traffic); a kernel that reads more shows up below its ceiling.
#pragma once

#include <cstdint>

namespace ws::kernels {

struct KernelCost {
    double flops = 0;
    double bytes = 0;
    double intensity() const { return bytes > 0 ? flops / bytes : 0; }
};

// C[m×n] = A[m×k] · B[n×k]ᵀ, bf16 in and out.
KernelCost gemmCost(std::int64_t m, std::int64_t n, std::int64_t k);
// y[batch×n] = x[batch×k] · W[n×k]ᵀ; weightBytes per weight element (2 bf16, 1 int8
// plus a float scale per row).
KernelCost gemvCost(std::int64_t batch, std::int64_t n, std::int64_t k, int weightBytes);
KernelCost rmsnormCost(std::int64_t rows, std::int64_t cols, bool withResidual);
KernelCost softmaxCost(std::int64_t rows, std::int64_t cols);
KernelCost siluMulCost(std::int64_t rows, std::int64_t cols);
KernelCost ropeCost(std::int64_t tokens, std::int64_t heads, std::int64_t headDim);
// One decode step: `batch` queries of `heads` heads against `context` cached
// keys and values of `kvHeads` heads.
KernelCost decodeAttentionCost(std::int64_t batch, std::int64_t heads, std::int64_t kvHeads,
                               std::int64_t headDim, std::int64_t context);
// Causal prefill of `tokens` positions (only the lower triangle is computed).
KernelCost prefillAttentionCost(std::int64_t batch, std::int64_t heads, std::int64_t kvHeads,
                                std::int64_t headDim, std::int64_t tokens);
KernelCost copyCost(std::int64_t bytes);

}  // namespace ws::kernels
