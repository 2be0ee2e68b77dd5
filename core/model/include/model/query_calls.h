// CUDA API calls that only read state (the current device, the last error, a
// kernel's name or attribute, whether a stream is capturing): no GPU work, no
// allocation, no synchronization, nothing a timeline or summary is read for.
// PyTorch makes about eight cudaGetDevice calls per kernel; tracing each costs
// the program more than the kernel's own record (docs/benchmarks.md, "Overhead
// on a PyTorch decode"), so a recording leaves these out unless `record
// --all-apis` asks for every call. torch.profiler leaves out cudaGetDevice,
// cuKernelGetAttribute, cuDevicePrimaryCtxGetState and cuCtxGetCurrent the
// same way; this list is longer.
#pragma once

#include <string_view>

namespace ws {

// `name` as CUPTI spells a runtime or driver call: a version or stream suffix
// ("cudaGetDevice_v3020", "cuGetProcAddress_v2", "…_ptsz") is ignored.
bool isQueryCall(std::string_view name);

// Run property: how many such calls were made while traced (left out of the
// records unless --all-apis); what the capture-cost estimate charges.
inline constexpr const char* kQueryCallCountProperty = "capture.query_call_count";

}  // namespace ws
