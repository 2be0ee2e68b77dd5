#include "common/cluster_occupancy.h"

#include <mutex>
#include <vector>

namespace ws::kernels {

namespace {

constexpr unsigned kPortableClusterBlocks = 8;

unsigned clusterBlocks(const cudaLaunchConfig_t& config) {
    for (unsigned i = 0; i < config.numAttrs; ++i)
        if (config.attrs[i].id == cudaLaunchAttributeClusterDimension)
            return config.attrs[i].val.clusterDim.x;
    return 1;
}

int ask(const void* kernel, const cudaLaunchConfig_t& config) {
    cudaFuncAttributes attributes{};
    bool ok = cudaFuncGetAttributes(&attributes, kernel) == cudaSuccess;
    const int smem = static_cast<int>(config.dynamicSmemBytes);
    if (ok && attributes.maxDynamicSharedSizeBytes < smem)
        ok = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) ==
             cudaSuccess;
    if (ok && clusterBlocks(config) > kPortableClusterBlocks)
        ok = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) ==
             cudaSuccess;
    int clusters = 0;
    if (ok && cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) != cudaSuccess)
        clusters = 0;
    cudaGetLastError();  // a refused size leaves a (non-sticky) error behind
    return ok ? clusters : 0;
}

}  // namespace

int residentClusters(const void* kernel, const cudaLaunchConfig_t& config) {
    struct Asked {
        const void* kernel;
        unsigned threads, clusterBlocks;
        std::size_t smem;
        int clusters;
    };
    static std::mutex mutex;
    static std::vector<Asked> asked;
    const unsigned threads = config.blockDim.x * config.blockDim.y * config.blockDim.z;
    const unsigned blocks = clusterBlocks(config);
    std::lock_guard lock(mutex);
    for (const auto& a : asked)
        if (a.kernel == kernel && a.threads == threads && a.clusterBlocks == blocks &&
            a.smem == config.dynamicSmemBytes)
            return a.clusters;
    int clusters = ask(kernel, config);
    asked.push_back({kernel, threads, blocks, config.dynamicSmemBytes, clusters});
    return clusters;
}

}  // namespace ws::kernels
