#include "kernel_cost.h"

namespace ws::kernels {

namespace {
constexpr double kBf16 = 2;
}

KernelCost gemmCost(std::int64_t m, std::int64_t n, std::int64_t k) {
    return {2.0 * m * n * k, kBf16 * (double(m) * k + double(n) * k + double(m) * n)};
}

KernelCost gemvCost(std::int64_t batch, std::int64_t n, std::int64_t k, int weightBytes) {
    double weights = double(n) * k * weightBytes + (weightBytes == 1 ? 4.0 * n : 0.0);
    return {2.0 * batch * n * k, weights + kBf16 * (double(batch) * k + double(batch) * n)};
}

KernelCost rmsnormCost(std::int64_t rows, std::int64_t cols, bool withResidual) {
    double elems = double(rows) * cols;
    // read x (and the residual, written back as the new x), write y, read the weights
    double tensors = withResidual ? 4 : 2;
    return {4.0 * elems, kBf16 * (tensors * elems + cols)};
}

KernelCost softmaxCost(std::int64_t rows, std::int64_t cols) {
    double elems = double(rows) * cols;
    return {5.0 * elems, kBf16 * 2 * elems};
}

KernelCost siluMulCost(std::int64_t rows, std::int64_t cols) {
    double elems = double(rows) * cols;
    return {6.0 * elems, kBf16 * 3 * elems};
}

KernelCost ropeCost(std::int64_t tokens, std::int64_t heads, std::int64_t headDim) {
    double elems = double(tokens) * heads * headDim;
    return {3.0 * elems, kBf16 * 2 * elems};
}

KernelCost decodeAttentionCost(std::int64_t batch, std::int64_t heads, std::int64_t kvHeads,
                               std::int64_t headDim, std::int64_t context) {
    double flops = 4.0 * batch * heads * headDim * context;  // QKᵀ and PV
    double kv = 2.0 * batch * kvHeads * context * headDim * kBf16;
    return {flops, kv + 2.0 * batch * heads * headDim * kBf16};
}

KernelCost prefillAttentionCost(std::int64_t batch, std::int64_t heads, std::int64_t kvHeads,
                                std::int64_t headDim, std::int64_t tokens) {
    double pairs = double(tokens) * (tokens + 1) / 2;
    double flops = 4.0 * batch * heads * headDim * pairs;
    double q = double(batch) * heads * tokens * headDim * kBf16;
    double kv = 2.0 * batch * kvHeads * tokens * headDim * kBf16;
    return {flops, 2 * q + kv};  // q read, output written
}

KernelCost copyCost(std::int64_t bytes) {
    return {0, 2.0 * bytes};
}

}  // namespace ws::kernels
