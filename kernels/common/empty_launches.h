// Launches of a kernel that does nothing: what launching itself costs, and so
// what tracing adds to each launch (warpscope-workload launch-cost).
#pragma once

#include <cuda_runtime.h>

namespace ws::kernels {

// `count` launches of a one-thread empty kernel on `s`, then a synchronize.
void launchEmptyKernels(int count, cudaStream_t s = nullptr);

}  // namespace ws::kernels
