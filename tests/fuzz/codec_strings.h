// The string table the event codec harness resolves ids against (id = index
// + 1); the seed generator interns the same strings so its chunks decode.
#pragma once

namespace ws::fuzz {

inline constexpr const char* kCodecStrings[] = {
    "gemm_bf16", "cudaLaunchKernel", "ws.token:0",   "decode step",
    "",          "torch.op",         "ws.request:0", "NVTX"};

}  // namespace ws::fuzz
