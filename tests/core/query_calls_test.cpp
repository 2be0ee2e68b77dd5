#include "model/query_calls.h"

#include <gtest/gtest.h>

namespace ws {
namespace {

TEST(QueryCalls, StateReadsAreQueriesWhateverCuptisSuffix) {
    // As CUPTI names them in a PyTorch decode's records (the most frequent first).
    for (const char* name :
         {"cudaGetDevice_v3020", "cuDevicePrimaryCtxGetState", "cudaGetLastError_v3020",
          "cuKernelGetName", "cuKernelGetAttribute", "cuCtxGetCurrent", "cuGetErrorString",
          "cuGetProcAddress_v2", "cudaStreamIsCapturing_v10000", "cudaStreamIsCapturing_ptsz",
          "cuStreamGetCaptureInfo_v3", "cudaGetDevice"})
        EXPECT_TRUE(isQueryCall(name)) << name;
}

TEST(QueryCalls, WorkAllocationSynchronizationAndSlowReadsAreKept) {
    for (const char* name :
         {"cudaLaunchKernel_v7000", "cudaLaunchKernelExC_v11060", "cuLaunchKernelEx",
          "cuLaunchKernel", "cudaGraphLaunch_v10000", "cudaMemcpyAsync_v3020",
          "cudaMemsetAsync_ptsz", "cudaMalloc_v3020", "cudaFree_v3020",
          "cudaStreamSynchronize_v3020", "cudaDeviceSynchronize_v3020", "cudaEventQuery_v3020",
          "cudaStreamQuery_v3020", "cudaEventRecord_v3020", "cudaStreamBeginCapture_v10000",
          "cudaSetDevice_v3020", "cudaGetDeviceProperties_v12000", "cudaMemGetInfo_v3020",
          "cuLibraryLoadData", "cuModuleLoadData", "cuKernelSetAttribute", "cbid_4242", "",
          // look-ups that may load a module under lazy loading
          "cuModuleGetFunction", "cuLibraryGetKernel", "cuKernelGetFunction", "cuFuncGetAttribute",
          "cudaFuncGetAttributes_v3020"})
        EXPECT_FALSE(isQueryCall(name)) << name;
}

TEST(QueryCalls, APrefixOfAQueryIsNotOne) {
    EXPECT_FALSE(isQueryCall("cudaGet"));
    EXPECT_FALSE(isQueryCall("cudaGetDevicePointer"));
    EXPECT_FALSE(isQueryCall("cuDeviceGetAttributes"));
}

}  // namespace
}  // namespace ws
