#include <cooperative_groups.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "common/cuda_check.h"
#include "common/vector_math.cuh"
#include "elementwise/elementwise.h"

namespace ws::kernels {

namespace {

namespace cg = cooperative_groups;

bool clustersAvailable() {  // thread-block clusters: compute capability 9.0 and later
    static const bool available = deviceAttribute(cudaDevAttrComputeCapabilityMajor) >= 9;
    return available;
}

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

// A row slice of up to THREADS × 8 × CHUNKS elements held in registers: each
// thread keeps chunks threadIdx.x, + THREADS, … of 8 bf16 (one 16-byte load
// each); `chunks` of the slice's 8-element chunks are valid.
template <int THREADS, int CHUNKS>
__device__ __forceinline__ void loadSlice(uint4 (&raw)[CHUNKS], const __nv_bfloat16* in,
                                          int chunks) {
#pragma unroll
    for (int i = 0; i < CHUNKS; ++i) {
        int c = threadIdx.x + i * THREADS;
        raw[i] = c < chunks ? __ldg(reinterpret_cast<const uint4*>(in) + c) : uint4{0, 0, 0, 0};
    }
}

// Calls f(pair) for each pair of elements this thread holds.
template <int THREADS, int CHUNKS, typename F>
__device__ __forceinline__ void forEachPair(const uint4 (&raw)[CHUNKS], int chunks, F&& f) {
#pragma unroll
    for (int i = 0; i < CHUNKS; ++i) {
        if (threadIdx.x + i * THREADS >= chunks) break;
        const auto* h = reinterpret_cast<const __nv_bfloat162*>(&raw[i]);
#pragma unroll
        for (int j = 0; j < 4; ++j)
            f(__bfloat1622float2(h[j]));
    }
}

template <int THREADS, int CHUNKS>
__device__ __forceinline__ float sliceMax(const uint4 (&raw)[CHUNKS], int chunks) {
    float m = -INFINITY;
    forEachPair<THREADS>(raw, chunks, [&](float2 v) { m = fmaxf(m, fmaxf(v.x, v.y)); });
    return m;
}

template <int THREADS, int CHUNKS>
__device__ __forceinline__ float sliceExpSum(const uint4 (&raw)[CHUNKS], int chunks, float m) {
    float s = 0;
    forEachPair<THREADS>(raw, chunks, [&](float2 v) { s += __expf(v.x - m) + __expf(v.y - m); });
    return s;
}

template <int THREADS, int CHUNKS>
__device__ __forceinline__ void storeSliceSoftmax(const uint4 (&raw)[CHUNKS], int chunks,
                                                  __nv_bfloat16* out, float m, float inv) {
#pragma unroll
    for (int i = 0; i < CHUNKS; ++i) {
        int c = threadIdx.x + i * THREADS;
        if (c >= chunks) break;
        uint4 packed = raw[i];
        auto* h = reinterpret_cast<__nv_bfloat162*>(&packed);
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            float2 f = __bfloat1622float2(h[j]);
            h[j] = __floats2bfloat162_rn(__expf(f.x - m) * inv, __expf(f.y - m) * inv);
        }
        reinterpret_cast<uint4*>(out)[c] = packed;
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

// Rows too long for one block's registers: a cluster of up to 16 blocks
// (above 8 only where the GPU allows) holds one row, each block a slice of
// THREADS × CHUNKS × 8 columns in registers. Still one read and one write per
// element. Each block reduces its slice to a (max, sum relative to that max)
// pair and pushes it into every block's shared memory, so one blocking cluster
// barrier separates the load from the store: the earlier version read the
// other blocks' max, then their sums, then waited for all reads to finish
// (three barriers, during which the SM had no loads in flight).
constexpr int kMaxCluster = 8;  // the portable cluster size

template <int THREADS, int CHUNKS>
__global__ void __launch_bounds__(THREADS)
    softmaxCluster(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, int cols) {
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank(), blocks = cluster.num_blocks();
    // Another block's shared memory may be written only once it runs: this
    // arrival is waited for after the loads, by when it has long completed.
    asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
    const std::size_t row = blockIdx.x / blocks;
    const int slice = (cols / 8 + int(blocks) - 1) / int(blocks);  // in 8-column chunks
    const int first = int(rank) * slice, chunks = max(0, min(cols / 8 - first, slice));
    uint4 raw[CHUNKS];
    loadSlice<THREADS>(raw, x + row * cols + std::size_t(first) * 8, chunks);
    __shared__ float2 stats[2 * kMaxCluster];  // (max, sum) of each block of the cluster
    const float m = blockMax(sliceMax<THREADS>(raw, chunks));
    const float s = m == -INFINITY ? 0.0f : blockSum(sliceExpSum<THREADS>(raw, chunks, m));
    asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory");
    if (threadIdx.x < blocks)
        *cluster.map_shared_rank(&stats[rank], threadIdx.x) = make_float2(m, s);
    asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
    asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
    float rowMax = -INFINITY, total = 0;
    for (unsigned r = 0; r < blocks; ++r)
        rowMax = fmaxf(rowMax, stats[r].x);
    for (unsigned r = 0; r < blocks; ++r)
        if (stats[r].x != -INFINITY) total += stats[r].y * __expf(stats[r].x - rowMax);
    auto* out = y + row * cols + std::size_t(first) * 8;
    storeSliceSoftmax<THREADS>(raw, chunks, out, rowMax, 1.0f / total);
}

// False (nothing launched) when the GPU cannot hold a cluster that large:
// sizes above 8 are not portable.
template <int THREADS, int CHUNKS>
bool launchCluster(const __nv_bfloat16* x, __nv_bfloat16* y, int rows, int cols, int blocks,
                   cudaStream_t s) {
    auto kernel = softmaxCluster<THREADS, CHUNKS>;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(unsigned(rows) * unsigned(blocks));
    config.blockDim = dim3(THREADS);
    config.stream = s;
    cudaLaunchAttribute cluster{};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = unsigned(blocks);
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = 1;
    config.attrs = &cluster;
    config.numAttrs = 1;
    // Whether a non-portable size fits is asked once per size, not per launch
    // (0: not asked yet, 1: fits, -1: does not).
    static int fitsBySize[2 * kMaxCluster + 1] = {};
    if (blocks > kMaxCluster && fitsBySize[blocks] == 0) {
        int fits = 0;
        if (cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) !=
                cudaSuccess ||
            cudaOccupancyMaxActiveClusters(&fits, kernel, &config) != cudaSuccess || fits == 0) {
            cudaGetLastError();  // the failed query left a (non-sticky) error behind
            fits = -1;
        }
        fitsBySize[blocks] = fits > 0 ? 1 : -1;
    }
    if (blocks > kMaxCluster && fitsBySize[blocks] < 0) return false;
    WS_CUDA(cudaLaunchKernelEx(&config, kernel, x, y, cols));
    return true;
}

// Block shape of the cluster rung; WARPSCOPE_SOFTMAX_CLUSTER (512x8, 256x8,
// 512x4, 256x4) overrides it to compare them side by side.
struct ClusterShape {
    int threads, chunks;
    int columnsPerBlock() const { return threads * chunks * 8; }
};

ClusterShape clusterShape() {
    static const ClusterShape shape = [] {
        const char* env = std::getenv("WARPSCOPE_SOFTMAX_CLUSTER");
        std::string v = env ? env : "";
        for (ClusterShape c : {ClusterShape{512, 8}, ClusterShape{256, 8}, ClusterShape{512, 4},
                               ClusterShape{256, 4}})
            if (v == std::to_string(c.threads) + "x" + std::to_string(c.chunks)) return c;
        return ClusterShape{256, 8};  // fastest of the four on 512 × 131072 (H200)
    }();
    return shape;
}

// True when it launched: the row fits a cluster of at most 16 blocks.
bool tryLaunchCluster(const __nv_bfloat16* x, __nv_bfloat16* y, int rows, int cols,
                      cudaStream_t s) {
    if (!clustersAvailable()) return false;
    ClusterShape c = clusterShape();
    int blocks = (cols + c.columnsPerBlock() - 1) / c.columnsPerBlock();
    if (blocks > 2 * kMaxCluster) return false;
    if (c.threads == 256 && c.chunks == 8)
        return launchCluster<256, 8>(x, y, rows, cols, blocks, s);
    if (c.threads == 512 && c.chunks == 4)
        return launchCluster<512, 4>(x, y, rows, cols, blocks, s);
    if (c.threads == 256 && c.chunks == 4)
        return launchCluster<256, 4>(x, y, rows, cols, blocks, s);
    return launchCluster<512, 8>(x, y, rows, cols, blocks, s);
}

// Rows of 32769–65536 columns fit one 512-thread block's registers, but then
// an SM holds one block and nothing overlaps its reductions with loads.
// WARPSCOPE_SOFTMAX_LONG=cluster|registers picks the path, to compare them.
bool clusterFrom65536() {
    static const bool cluster = [] {
        const char* env = std::getenv("WARPSCOPE_SOFTMAX_LONG");
        return env && std::string(env) == "cluster";
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
        else if (perThread <= 16 && !(clusterFrom65536() && tryLaunchCluster(x, y, rows, cols, s)))
            softmaxRegisters<16><<<rows, 512, 0, s>>>(x, y, cols);
        else if (perThread > 16 && !tryLaunchCluster(x, y, rows, cols, s))
            softmaxOnline<<<rows, 512, 0, s>>>(x, y, cols);
    }
    WS_CUDA_LAUNCHED();
}

}  // namespace ws::kernels
