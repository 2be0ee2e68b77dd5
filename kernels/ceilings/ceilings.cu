#include "ceilings/ceilings.h"
#include "common/device_buffer.h"
#include "common/fill.h"
#include "common/timing.h"
#include "gemm/gemm.h"

namespace ws::kernels {

namespace {

__global__ void copy16(const uint4* __restrict__ src, uint4* __restrict__ dst, std::size_t n) {
    std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {  // four loads in flight per thread
        uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
        dst[i] = a;
        dst[i + stride] = b;
        dst[i + 2 * stride] = c;
        dst[i + 3 * stride] = d;
    }
    for (; i < n; i += stride)
        dst[i] = src[i];
}

}  // namespace

void copyKernel(const void* src, void* dst, std::size_t bytes, cudaStream_t s) {
    int sms = deviceAttribute(cudaDevAttrMultiProcessorCount);
    copy16<<<sms * 8, 512, 0, s>>>(static_cast<const uint4*>(src), static_cast<uint4*>(dst),
                                   bytes / 16);
    WS_CUDA_LAUNCHED();
}

CopyBandwidth measureCopyBandwidth(std::size_t bytes, int iterations, cudaStream_t s) {
    bytes = bytes / 16 * 16;
    DeviceBuffer<unsigned char> a(bytes), b(bytes);
    WS_CUDA(cudaMemsetAsync(a.get(), 1, bytes, s));
    double moved = 2.0 * double(bytes);
    auto gbs = [&](double ms) { return moved / (ms * 1e-3) / 1e9; };
    CopyBandwidth bw;
    bw.memcpyGBs = gbs(median(timeLaunches(
        [&](int) {
            WS_CUDA(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, s));
        },
        3, iterations, s)));
    bw.kernelGBs = gbs(median(
        timeLaunches([&](int) { copyKernel(a.get(), b.get(), bytes, s); }, 3, iterations, s)));
    return bw;
}

double measureCublasBf16Tflops(int n, int iterations, cublasHandle_t handle, cudaStream_t s) {
    std::size_t elems = std::size_t(n) * n;
    DeviceBuffer<__nv_bfloat16> a(elems), b(elems), c(elems);
    fillUniform(a.get(), elems, 1, 1.0f, s);
    fillUniform(b.get(), elems, 2, 1.0f, s);
    double ms = median(timeLaunches(
        [&](int) { gemmBf16(GemmRung::Cublas, a.get(), b.get(), c.get(), n, n, n, s, handle); }, 5,
        iterations, s));
    return 2.0 * double(n) * n * n / (ms * 1e-3) / 1e12;
}

}  // namespace ws::kernels
