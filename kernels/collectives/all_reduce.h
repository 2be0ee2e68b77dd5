// The sum across tensor-parallel ranks that follows a row-parallel linear
// layer. The decoder sees only this interface: NCCL across processes
// (nccl_all_reduce.h), or anything else that sums the ranks' buffers in place
// on `stream` (the GPU tests pair two ranks in one process).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>

namespace ws::kernels {

class AllReduce {
  public:
    virtual ~AllReduce() = default;
    // Every rank's `count` values summed, in place on each; enqueued on
    // `stream` (capturable into a CUDA graph), every rank calls it in the same order.
    virtual void sum(__nv_bfloat16* data, std::size_t count, cudaStream_t stream) = 0;
};

}  // namespace ws::kernels
