// Softmax over rows too long for one block: a thread-block cluster holds a
// row, each block a slice of it, so every element is still read once and
// written once. Each block reduces its slice to a (max, sum relative to that
// max) pair and pushes it into every block's shared memory, so one blocking
// cluster barrier separates the loads from the stores. (The first version
// read the other blocks' maxima, then their sums, then waited for all reads to
// finish: three barriers, during which the SM had no loads in flight.)
//
// Two ways to hold a slice: in registers (THREADS × CHUNKS × 8 columns), or
// staged in shared memory by bulk copies (TMA), where a block needs almost no
// registers and an SM holds more slices, so more bytes are in flight.
#include <cooperative_groups.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "common/cluster_occupancy.h"
#include "common/cuda_check.h"
#include "common/mbarrier.cuh"
#include "common/vector_math.cuh"
#include "elementwise/softmax_cluster.h"
#include "elementwise/softmax_slice.cuh"

namespace ws::kernels {

namespace {

namespace cg = cooperative_groups;

constexpr int kMaxCluster = 8;  // the portable cluster size

// The row's max and sum of exponentials from every block's (max, sum): one
// cluster barrier. The caller arrived (relaxed) at the cluster barrier when it
// started, so that no block writes into a block that is not running yet.
__device__ __forceinline__ float2 clusterRowStats(float m, float s) {
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank(), blocks = cluster.num_blocks();
    __shared__ float2 stats[2 * kMaxCluster];  // (max, sum) of each block of the cluster
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
    return make_float2(rowMax, total);
}

struct SliceRange {
    std::size_t row;
    int first, chunks;  // in 8-column chunks
};

__device__ __forceinline__ SliceRange sliceOfThisBlock(int cols) {
    asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
    cg::cluster_group cluster = cg::this_cluster();
    const int blocks = int(cluster.num_blocks()), rank = int(cluster.block_rank());
    const int slice = (cols / 8 + blocks - 1) / blocks;
    const int first = rank * slice;
    return {blockIdx.x / unsigned(blocks), first, max(0, min(cols / 8 - first, slice))};
}

template <int THREADS, int CHUNKS>
__global__ void __launch_bounds__(THREADS)
    softmaxCluster(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, int cols) {
    const SliceRange r = sliceOfThisBlock(cols);
    uint4 raw[CHUNKS];
    loadSlice<THREADS>(raw, x + r.row * cols + std::size_t(r.first) * 8, r.chunks);
    const float m = blockMax(sliceMax<THREADS>(raw, r.chunks));
    const float s = m == -INFINITY ? 0.0f : blockSum(sliceExpSum<THREADS>(raw, r.chunks, m));
    const float2 row = clusterRowStats(m, s);
    storeSliceSoftmax<THREADS>(raw, r.chunks, y + r.row * cols + std::size_t(r.first) * 8, row.x,
                               1.0f / row.y);
}

// The slice arrives in kPieces bulk copies, each on its own barrier, so the
// max over the first piece runs while the later ones are still in flight.
constexpr int kPieces = 4;
constexpr int kStagedThreads = 256;

__device__ __forceinline__ float staged8Max(uint4 v) {
    const auto* h = reinterpret_cast<const __nv_bfloat162*>(&v);
    float m = -INFINITY;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        float2 f = __bfloat1622float2(h[j]);
        m = fmaxf(m, fmaxf(f.x, f.y));
    }
    return m;
}

__global__ void __launch_bounds__(kStagedThreads)
    softmaxClusterStaged(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y,
                         int cols) {
    const SliceRange r = sliceOfThisBlock(cols);
    extern __shared__ __align__(128) uint4 staged[];
    __shared__ __align__(8) unsigned long long arrived[kPieces];
    const int perPiece = (r.chunks + kPieces - 1) / kPieces;
    if (threadIdx.x == 0) {
        const auto* src = reinterpret_cast<const uint4*>(x + r.row * cols) + r.first;
        for (int p = 0; p < kPieces; ++p)
            barrierInit(&arrived[p], 1);
        barrierInitFence();
        for (int p = 0; p < kPieces; ++p) {
            const int begin = p * perPiece, n = max(0, min(r.chunks - begin, perPiece));
            barrierExpect(&arrived[p], unsigned(n) * 16);
            if (n > 0) bulkCopy(staged + begin, src + begin, unsigned(n) * 16, &arrived[p]);
        }
    }
    __syncthreads();  // the barriers are initialized before anyone waits on them
    float m = -INFINITY;
    for (int p = 0; p < kPieces; ++p) {
        barrierWait(&arrived[p], 0);
        const int end = min(r.chunks, (p + 1) * perPiece);
        for (int c = p * perPiece + int(threadIdx.x); c < end; c += kStagedThreads)
            m = fmaxf(m, staged8Max(staged[c]));
    }
    m = blockMax(m);
    float s = 0;
    if (m != -INFINITY)
        for (int c = threadIdx.x; c < r.chunks; c += kStagedThreads) {
            float v[8];
            unpackBf16x8(staged[c], v);
#pragma unroll
            for (int j = 0; j < 8; ++j)
                s += __expf(v[j] - m);
        }
    s = blockSum(s);
    const float2 row = clusterRowStats(m, s);
    const float inv = 1.0f / row.y;
    auto* out = reinterpret_cast<uint4*>(y + r.row * cols) + r.first;
    for (int c = threadIdx.x; c < r.chunks; c += kStagedThreads) {
        float v[8];
        unpackBf16x8(staged[c], v);
#pragma unroll
        for (int j = 0; j < 8; ++j)
            v[j] = __expf(v[j] - row.x) * inv;
        storeBf16x8(reinterpret_cast<__nv_bfloat16*>(out + c), v);
    }
}

bool clustersAvailable() {  // thread-block clusters: compute capability 9.0 and later
    static const bool available = deviceAttribute(cudaDevAttrComputeCapabilityMajor) >= 9;
    return available;
}

// Launches `kernel` with a cluster of `blocks` blocks per row; false (nothing
// launched) when the GPU cannot hold a cluster that large. Whether a size fits
// is asked once per kernel, size and shared memory, not per launch.
template <typename Kernel>
bool launchCluster(Kernel kernel, int threads, int smemBytes, const __nv_bfloat16* x,
                   __nv_bfloat16* y, int rows, int cols, int blocks, cudaStream_t s) {
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(unsigned(rows) * unsigned(blocks));
    config.blockDim = dim3(unsigned(threads));
    config.dynamicSmemBytes = std::size_t(smemBytes);
    config.stream = s;
    cudaLaunchAttribute cluster{};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim = {unsigned(blocks), 1, 1};
    config.attrs = &cluster;
    config.numAttrs = 1;
    if (residentClusters(kernel, config) == 0) return false;
    WS_CUDA(cudaLaunchKernelEx(&config, kernel, x, y, cols));
    return true;
}

// How a block holds its slice: "staged" (shared memory, stagedBytes a block)
// or in registers (threads × chunks × 8 columns). WARPSCOPE_SOFTMAX_CLUSTER
// picks one (256x8, 512x8, 256x4, 512x4, staged16k … staged128k) to
// compare them side by side.
struct ClusterShape {
    int threads, chunks, stagedBytes;
    std::string name() const {
        return stagedBytes ? "staged" + std::to_string(stagedBytes / 1024) + "k"
                           : std::to_string(threads) + "x" + std::to_string(chunks);
    }
    int columnsPerBlock() const { return stagedBytes ? stagedBytes / 2 : threads * chunks * 8; }
};

ClusterShape clusterShape() {
    static const ClusterShape shape = [] {
        const char* env = std::getenv("WARPSCOPE_SOFTMAX_CLUSTER");
        std::string v = env ? env : "";
        for (ClusterShape c :
             {ClusterShape{256, 8, 0}, ClusterShape{512, 8, 0}, ClusterShape{256, 4, 0},
              ClusterShape{512, 4, 0}, ClusterShape{kStagedThreads, 0, 16 << 10},
              ClusterShape{kStagedThreads, 0, 32 << 10}, ClusterShape{kStagedThreads, 0, 64 << 10},
              ClusterShape{kStagedThreads, 0, 96 << 10},
              ClusterShape{kStagedThreads, 0, 128 << 10}})
            if (v == c.name()) return c;
        // Fastest on the H200 at 512 × 131072 and 1024 × 65536 (3008 and 3202
        // GB/s; registers 256x8: 2930 and 3053; staged32k 2856 and 2950).
        return ClusterShape{kStagedThreads, 0, 64 << 10};
    }();
    return shape;
}

}  // namespace

bool tryLaunchSoftmaxCluster(const __nv_bfloat16* x, __nv_bfloat16* y, int rows, int cols,
                             cudaStream_t s) {
    if (!clustersAvailable()) return false;
    const ClusterShape c = clusterShape();
    const int blocks = (cols + c.columnsPerBlock() - 1) / c.columnsPerBlock();
    if (blocks > 2 * kMaxCluster) return false;
    if (c.stagedBytes) {
        const int sliceBytes = (cols / 8 + blocks - 1) / blocks * 16;
        return launchCluster(softmaxClusterStaged, kStagedThreads, sliceBytes, x, y, rows, cols,
                             blocks, s);
    }
    if (c.threads == 256 && c.chunks == 8)
        return launchCluster(softmaxCluster<256, 8>, 256, 0, x, y, rows, cols, blocks, s);
    if (c.threads == 512 && c.chunks == 4)
        return launchCluster(softmaxCluster<512, 4>, 512, 0, x, y, rows, cols, blocks, s);
    if (c.threads == 256 && c.chunks == 4)
        return launchCluster(softmaxCluster<256, 4>, 256, 0, x, y, rows, cols, blocks, s);
    return launchCluster(softmaxCluster<512, 8>, 512, 0, x, y, rows, cols, blocks, s);
}

}  // namespace ws::kernels
