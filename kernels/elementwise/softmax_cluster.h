// The softmax rung for rows longer than one block holds: a thread-block
// cluster per row (sm_90 and later).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace ws::kernels {

// True when it launched: clusters exist on this GPU and the row fits a cluster
// of at most 16 blocks (sizes above 8 only where the GPU allows them).
bool tryLaunchSoftmaxCluster(const __nv_bfloat16* x, __nv_bfloat16* y, int rows, int cols,
                             cudaStream_t s);

}  // namespace ws::kernels
