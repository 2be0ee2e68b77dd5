// Decode-time GEMV / skinny GEMM: y[batch×n] = x[batch×k] · W[n×k]ᵀ, batch 1–16,
// weights stored out × in (as PyTorch's Linear). The ladder:
//   naive       a thread per output, each walking its weight row alone (uncoalesced)
//   vectorized  a warp per row: 16-byte coalesced loads, warp-shuffle reduction
//   splitk      4 rows per 256-thread block, K split over its 8 warps and
//               reduced in shared memory: more loads in flight, more blocks
//   mma         batch 2–16 on tensor cores: 16 weight rows × the batch per
//               mma.sync, K over 8 warps (at batch 1 it wastes 7/8 of the mma)
//   int8        splitk on int8 weights with a float scale per output row
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace ws::kernels {

enum class GemvRung { Naive, Vectorized, SplitK, Mma };
GemvRung parseGemvRung(const std::string& name);  // throws std::invalid_argument

constexpr int kGemvMaxBatch = 16;

void gemvBf16(GemvRung rung, const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y,
              int batch, int n, int k, cudaStream_t stream);
void gemvInt8(const __nv_bfloat16* x, const std::int8_t* w, const float* scales, __nv_bfloat16* y,
              int batch, int n, int k, cudaStream_t stream);

}  // namespace ws::kernels
