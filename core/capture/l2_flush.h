// Empties the GPU's L2 cache before a kernel whose DRAM traffic the counter
// pass measures, as Nsight Compute does with --cache-control all (its
// default): without it a kernel's DRAM reads miss what the kernel before it
// left in L2, and its DRAM writes include that kernel's dirty lines written
// back. CUPTI 13.0's range profiler has no cache control of its own.
//
// How: a kernel of ours reads a buffer twice the size of L2, which writes
// back and evicts every line there and leaves only clean lines of ours, so
// the next kernel neither hits old data nor pays for old writes. Its launch
// is a kernel like any other to CUPTI: the activity records drop it by name.
#pragma once

#include <cuda.h>

#include <string>

namespace ws::capture {

inline constexpr const char* kL2FlushKernelName = "warpscope_l2_flush";

class L2Flush {
  public:
    // In the context current on this thread; false with `error` set when the
    // flush cannot run there (then counters are taken without it).
    bool prepare(std::string& error);
    // Waits for the context's work, runs the flush and waits for it; returns
    // the kernels it launched (each a range to the profiler), 0 on failure.
    int run(std::string& error);
    // With the context current, before it goes.
    void release();

  private:
    CUmodule module_ = nullptr;
    CUfunction function_ = nullptr;
    CUdeviceptr buffer_ = 0;
    CUdeviceptr sink_ = 0;
    unsigned long long vectors_ = 0;  // 16-byte loads over the buffer
    unsigned blocks_ = 0;
};

}  // namespace ws::capture
