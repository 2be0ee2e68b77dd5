#include "model/query_calls.h"

#include <algorithm>
#include <array>

namespace ws {

namespace {

// Sorted, for binary search. Left in on purpose: calls that can take long or
// that users look for (cudaGetDeviceProperties, cudaMemGetInfo, cudaEventQuery
// and cudaStreamQuery polling, cudaSetDevice creating a context), and the
// look-ups that may load a module under lazy loading (cuModuleGetFunction,
// cuLibraryGetKernel, cuKernelGetFunction, cu/cudaFuncGetAttribute(s), …) or
// that cold-start detection counts (cuModuleGetLoadingMode).
constexpr std::array<std::string_view, 57> kQueryCalls = {
    "cuCtxGetApiVersion",
    "cuCtxGetCurrent",
    "cuCtxGetDevice",
    "cuCtxGetFlags",
    "cuCtxGetId",
    "cuCtxGetLimit",
    "cuCtxGetStreamPriorityRange",
    "cuDeviceGet",
    "cuDeviceGetAttribute",
    "cuDeviceGetCount",
    "cuDeviceGetName",
    "cuDeviceGetUuid",
    "cuDevicePrimaryCtxGetState",
    "cuDriverGetVersion",
    "cuFuncGetModule",
    "cuFuncGetName",
    "cuFuncGetParamInfo",
    "cuGetErrorName",
    "cuGetErrorString",
    "cuGetExportTable",
    "cuGetProcAddress",
    "cuKernelGetAttribute",
    "cuKernelGetLibrary",
    "cuKernelGetName",
    "cuKernelGetParamInfo",
    "cuPointerGetAttribute",
    "cuPointerGetAttributes",
    "cuStreamGetCaptureInfo",
    "cuStreamGetCtx",
    "cuStreamGetDevice",
    "cuStreamGetFlags",
    "cuStreamGetId",
    "cuStreamGetPriority",
    "cuStreamIsCapturing",
    "cudaDeviceGetAttribute",
    "cudaDeviceGetStreamPriorityRange",
    "cudaDriverGetVersion",
    "cudaFuncGetName",
    "cudaFuncGetParamInfo",
    "cudaGetDevice",
    "cudaGetDeviceCount",
    "cudaGetDeviceFlags",
    "cudaGetDriverEntryPoint",
    "cudaGetDriverEntryPointByVersion",
    "cudaGetErrorName",
    "cudaGetErrorString",
    "cudaGetExportTable",
    "cudaGetLastError",
    "cudaPeekAtLastError",
    "cudaPointerGetAttributes",
    "cudaRuntimeGetVersion",
    "cudaStreamGetCaptureInfo",
    "cudaStreamGetDevice",
    "cudaStreamGetFlags",
    "cudaStreamGetId",
    "cudaStreamGetPriority",
    "cudaStreamIsCapturing",
};
static_assert(std::is_sorted(kQueryCalls.begin(), kQueryCalls.end()));

}  // namespace

bool isQueryCall(std::string_view name) {
    // CUDA's own names have no underscore: what follows one is CUPTI's
    // version (_v3020, _v2) or the per-thread stream variant (_ptsz, _ptds).
    name = name.substr(0, name.find('_'));
    return std::binary_search(kQueryCalls.begin(), kQueryCalls.end(), name);
}

}  // namespace ws
