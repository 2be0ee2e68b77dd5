// The decoder's memory-bound kernels, each as naive → fused/vectorized:
//   rmsnorm   naive: a separate residual add, then two scalar passes over the row;
//             fused: residual add + norm in one pass, the row kept in registers,
//             16-byte loads and stores
//   softmax   naive: three scalar passes (max, sum, write);
//             fused: rows up to 32768 held in one block's registers (one read,
//             one write); up to 16 × 32768 in a thread-block cluster, each
//             block a slice staged in shared memory (still one read, one write);
//             longer rows (or no clusters): running max and sum, then a write pass
//   silu_mul  silu(gate) · up of a fused gate|up projection; scalar vs 16-byte
//   rope      rotate-half RoPE in place on the q and k heads of a fused qkv row;
//             a thread per pair with powf vs eight pairs per thread with 16-byte accesses
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <string>

namespace ws::kernels {

enum class ElementwiseRung { Naive, Fused };
ElementwiseRung parseElementwiseRung(const std::string& name);  // "naive" | "fused"

// With `residual`: residual = x + residual (stored back), then y = rmsnorm(residual).
void rmsnorm(ElementwiseRung rung, const __nv_bfloat16* x, __nv_bfloat16* residual,
             const __nv_bfloat16* weight, __nv_bfloat16* y, int rows, int cols, float eps,
             cudaStream_t stream);

void softmax(ElementwiseRung rung, const __nv_bfloat16* x, __nv_bfloat16* y, int rows, int cols,
             cudaStream_t stream);

// gateUp[rows × 2·cols] = gate | up; out[rows × cols].
void siluMul(ElementwiseRung rung, const __nv_bfloat16* gateUp, __nv_bfloat16* out, int rows,
             int cols, cudaStream_t stream);

// qkv[tokens × rowStride]: the first `rotatedHeads` heads of each row are
// rotated. Token t sits at position *positionBase + t % tokensPerSequence, read
// on the device so a captured CUDA graph replays at the next position.
void rope(ElementwiseRung rung, __nv_bfloat16* qkv, int tokens, int rowStride, int rotatedHeads,
          int headDim, int tokensPerSequence, const int* positionBase, float theta,
          cudaStream_t stream);

}  // namespace ws::kernels
