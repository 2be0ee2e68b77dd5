#include "common/cuda_check.h"
#include "common/empty_launches.h"

namespace ws::kernels {

namespace {
__global__ void emptyKernel() {}
}  // namespace

void launchEmptyKernels(int count, cudaStream_t s, int queriesPerLaunch) {
    int device = 0;
    for (int i = 0; i < count; ++i) {
        for (int q = 0; q < queriesPerLaunch; ++q)
            WS_CUDA(cudaGetDevice(&device));
        emptyKernel<<<1, 1, 0, s>>>();
    }
    WS_CUDA(cudaGetLastError());
    WS_CUDA(cudaStreamSynchronize(s));
}

}  // namespace ws::kernels
