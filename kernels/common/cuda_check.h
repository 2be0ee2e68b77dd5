// CUDA and cuBLAS errors become exceptions that name the call and where it was.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace ws::kernels {

class CudaError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

inline void checkCuda(cudaError_t e, const char* call, const char* file, int line) {
    if (e != cudaSuccess)
        throw CudaError(std::string(file) + ":" + std::to_string(line) + ": " + call + ": " +
                        cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

inline void checkCublas(cublasStatus_t s, const char* call, const char* file, int line) {
    if (s != CUBLAS_STATUS_SUCCESS)
        throw CudaError(std::string(file) + ":" + std::to_string(line) + ": " + call +
                        ": cuBLAS status " + std::to_string(int(s)));
}

// An attribute of the current device (SM count, compute capability, …).
inline int deviceAttribute(cudaDeviceAttr attribute) {
    int device = 0, value = 0;
    checkCuda(cudaGetDevice(&device), "cudaGetDevice", __FILE__, __LINE__);
    checkCuda(cudaDeviceGetAttribute(&value, attribute, device), "cudaDeviceGetAttribute", __FILE__,
              __LINE__);
    return value;
}

}  // namespace ws::kernels

#define WS_CUDA(call) ::ws::kernels::checkCuda((call), #call, __FILE__, __LINE__)
#define WS_CUBLAS(call) ::ws::kernels::checkCublas((call), #call, __FILE__, __LINE__)
// After a kernel launch: configuration errors surface here, not later.
#define WS_CUDA_LAUNCHED() WS_CUDA(cudaGetLastError())
