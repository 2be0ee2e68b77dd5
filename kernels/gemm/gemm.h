// Prefill GEMM, bf16 in and out with fp32 accumulation:
// C[m×n] = A[m×k] · B[n×k]ᵀ (activations × weights stored out × in). The ladder:
//   naive     a thread per output, straight from global memory
//   tiled     32×32 shared-memory tiles (conflict-free by padding)
//   regblock  64×64 tiles, 4×4 outputs per thread from registers, 16-byte loads
//   mma       tensor cores: mma.sync m16n8k16 from ldmatrix, 128×128×32 tiles,
//             a 3-stage cp.async pipeline
//   mma_wide  the same with 128×256 tiles, 64×64 per warp, a 4-stage pipeline
//   wgmma     Hopper: TMA into swizzled shared memory, wgmma.mma_async m64n256k16,
//             a producer and two consumer warpgroups (sm_90a only)
//   cublas    cublasGemmEx, the baseline
#pragma once

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <string>

namespace ws::kernels {

enum class GemmRung { Naive, Tiled, RegBlock, Mma, MmaWide, Wgmma, Cublas };
GemmRung parseGemmRung(const std::string& name);  // throws std::invalid_argument
const char* toString(GemmRung rung);
// Shape rules of a rung; empty when (m, n, k) is supported, else why not.
std::string gemmShapeProblem(GemmRung rung, int m, int n, int k);

// `cublas` must be a handle bound to `stream` when rung is Cublas.
void gemmBf16(GemmRung rung, const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c,
              int m, int n, int k, cudaStream_t stream, cublasHandle_t cublas = nullptr);

// The tensor-core rung on its own (gemm_mma.cu).
void gemmMma(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int m, int n, int k,
             cudaStream_t stream, bool wide);
// The Hopper rung on its own (gemm_wgmma.cu); needs a compute capability 9.0 GPU.
bool gemmWgmmaAvailable();
void gemmWgmma(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int m, int n,
               int k, cudaStream_t stream);

}  // namespace ws::kernels
