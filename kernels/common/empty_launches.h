// Launches of a kernel that does nothing: what launching itself costs, and so
// what tracing adds to each launch (warpscope-workload launch-cost).
#pragma once

#include <cuda_runtime.h>

namespace ws::kernels {

// `count` launches of a one-thread empty kernel on `s`, then a synchronize.
// `queriesPerLaunch` cudaGetDevice calls before each launch stand for a
// framework's device guards (PyTorch makes 9 to 21 state-reading calls per
// kernel): calls a tracer hooks even where it records nothing of them.
void launchEmptyKernels(int count, cudaStream_t s = nullptr, int queriesPerLaunch = 0);

}  // namespace ws::kernels
