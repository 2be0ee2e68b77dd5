// How many thread-block clusters of a launch can be resident at once: the
// question both the softmax cluster rung and split-KV decode attention ask
// before choosing clusters.
#pragma once

#include <cuda_runtime.h>

namespace ws::kernels {

// cudaOccupancyMaxActiveClusters for `config` (its block size, dynamic shared
// memory and cluster dimension along x), asked of CUDA once per kernel and
// shape; 0 where no cluster fits or the GPU refuses the size. On the first ask
// the kernel is allowed `config`'s shared memory and, above 8 blocks, a
// non-portable cluster size: the limit is only ever raised, so every shape
// answered before can still be launched.
int residentClusters(const void* kernel, const cudaLaunchConfig_t& config);

template <typename... Params>
int residentClusters(void (*kernel)(Params...), const cudaLaunchConfig_t& config) {
    return residentClusters(reinterpret_cast<const void*>(kernel), config);
}

}  // namespace ws::kernels
