#include <cstdlib>
#include <stdexcept>
#include <string>

#include "common/cuda_check.h"
#include "common/vector_math.cuh"
#include "elementwise/elementwise.h"
#include "elementwise/softmax_cluster.h"
#include "elementwise/softmax_slice.cuh"

namespace ws::kernels {

namespace {

__global__ void softmaxNaive(const __nv_bfloat16* x, __nv_bfloat16* y, int cols) {
    const __nv_bfloat16* row = x + std::size_t(blockIdx.x) * cols;
    float mx = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        mx = fmaxf(mx, __bfloat162float(row[c]));
    mx = blockMax(mx);
    float sum = 0;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        sum += __expf(__bfloat162float(row[c]) - mx);
    float inv = 1.0f / blockSum(sum);
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        y[std::size_t(blockIdx.x) * cols + c] =
            __float2bfloat16(__expf(__bfloat162float(row[c]) - mx) * inv);
}

// Merges running (max, sum) pairs: sum is relative to max.
__device__ __forceinline__ void mergeOnline(float& m, float& s, float om, float os) {
    float nm = fmaxf(m, om);
    if (nm == -INFINITY) return;
    s = s * __expf(m - nm) + os * __expf(om - nm);
    m = nm;
}

__global__ void __launch_bounds__(512)
    softmaxOnline(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, int cols) {
    std::size_t base = std::size_t(blockIdx.x) * cols;
    int chunks = cols / 8;
    float m = -INFINITY, s = 0;
    for (int c = threadIdx.x; c < chunks; c += blockDim.x) {
        float v[8];
        loadBf16x8(x + base + c * 8, v);
        float cm = v[0];
#pragma unroll
        for (int j = 1; j < 8; ++j)
            cm = fmaxf(cm, v[j]);
        float cs = 0;
#pragma unroll
        for (int j = 0; j < 8; ++j)
            cs += __expf(v[j] - cm);
        mergeOnline(m, s, cm, cs);
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        float om = __shfl_xor_sync(0xffffffffu, m, o), os = __shfl_xor_sync(0xffffffffu, s, o);
        mergeOnline(m, s, om, os);
    }
    __shared__ float ms[32], ss[32];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    if (lane == 0) {
        ms[warp] = m;
        ss[warp] = s;
    }
    __syncthreads();
    m = -INFINITY;
    s = 0;
    for (int i = 0; i < warps; ++i)
        mergeOnline(m, s, ms[i], ss[i]);
    float inv = 1.0f / s;
    for (int c = threadIdx.x; c < chunks; c += blockDim.x) {
        float v[8];
        loadBf16x8(x + base + c * 8, v);
#pragma unroll
        for (int j = 0; j < 8; ++j)
            v[j] = __expf(v[j] - m) * inv;
        storeBf16x8(y + base + c * 8, v);
    }
}

// Rows of up to 512 × 8 × CHUNKS elements stay in registers: one read, one
// write. (The online rung reads every row twice; measured at 0.57–0.63 of
// copy bandwidth on the H200.)
template <int CHUNKS>
__global__ void __launch_bounds__(512)
    softmaxRegisters(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, int cols) {
    std::size_t base = std::size_t(blockIdx.x) * cols;
    const int chunks = cols / 8;
    uint4 raw[CHUNKS];
    loadSlice<512>(raw, x + base, chunks);
    float m = blockMax(sliceMax<512>(raw, chunks));
    float inv = 1.0f / blockSum(sliceExpSum<512>(raw, chunks, m));
    storeSliceSoftmax<512>(raw, chunks, y + base, m, inv);
}

// Rows of 32769–65536 columns fit one 512-thread block's registers, but then
// an SM holds one block and nothing overlaps its reductions with loads: the
// cluster rung is faster on the H200 (1024 × 65536: 3202 GB/s against 2961).
// WARPSCOPE_SOFTMAX_LONG=registers|cluster picks the path, to compare them.
bool rowsUpTo65536TakeCluster() {
    static const bool cluster = [] {
        const char* env = std::getenv("WARPSCOPE_SOFTMAX_LONG");
        return !env || std::string(env) != "registers";
    }();
    return cluster;
}

}  // namespace

void softmax(ElementwiseRung rung, const __nv_bfloat16* x, __nv_bfloat16* y, int rows, int cols,
             cudaStream_t s) {
    if (rows < 1 || cols < 1) throw std::invalid_argument("softmax: empty shape");
    if (rung == ElementwiseRung::Naive) {
        softmaxNaive<<<rows, 256, 0, s>>>(x, y, cols);
    } else {
        if (cols % 8 != 0)
            throw std::invalid_argument("softmax online: cols must be a multiple of 8");
        int perThread = (cols / 8 + 511) / 512;
        if (perThread <= 2)
            softmaxRegisters<2><<<rows, 512, 0, s>>>(x, y, cols);
        else if (perThread <= 4)
            softmaxRegisters<4><<<rows, 512, 0, s>>>(x, y, cols);
        else if (perThread <= 8)
            softmaxRegisters<8><<<rows, 512, 0, s>>>(x, y, cols);
        else if (perThread <= 16 && !rowsUpTo65536TakeCluster())
            softmaxRegisters<16><<<rows, 512, 0, s>>>(x, y, cols);
        else if (!tryLaunchSoftmaxCluster(x, y, rows, cols, s)) {
            // No clusters on this GPU, or a row longer than 16 blocks hold.
            if (perThread <= 16)
                softmaxRegisters<16><<<rows, 512, 0, s>>>(x, y, cols);
            else
                softmaxOnline<<<rows, 512, 0, s>>>(x, y, cols);
        }
    }
    WS_CUDA_LAUNCHED();
}

}  // namespace ws::kernels
