// The device's measured roofline ceilings: device-to-device copy bandwidth
// (the best of cudaMemcpyAsync and a 16-byte grid-stride copy kernel, bytes
// read + written) and dense bf16 tensor-core FLOP/s from cuBLAS.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>

namespace ws::kernels {

struct CopyBandwidth {
    double memcpyGBs = 0;
    double kernelGBs = 0;
    double best() const { return memcpyGBs > kernelGBs ? memcpyGBs : kernelGBs; }
};
CopyBandwidth measureCopyBandwidth(std::size_t bytes, int iterations, cudaStream_t stream);

// cuBLAS bf16 GEMM n×n×n, fp32 accumulation: TFLOP/s of the median launch.
double measureCublasBf16Tflops(int n, int iterations, cublasHandle_t handle, cudaStream_t stream);

// Copies `count` 16-byte vectors (exposed for the ceilings ladder).
void copyKernel(const void* src, void* dst, std::size_t bytes, cudaStream_t stream);

}  // namespace ws::kernels
