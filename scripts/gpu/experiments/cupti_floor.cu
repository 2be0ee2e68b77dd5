// CUPTI's own cost on a launch-bound loop, without Warpscope: the same 200,000
// ~1 µs launches as capture_fixture, in-process CUPTI with the given activity
// kinds enabled and every completed buffer discarded unread. Separates what
// CUPTI's tracing costs per launch from what the collector adds.
// Built (C++17) with -DWARPSCOPE_BUILD_EXPERIMENTS=ON into BUILD_DIR/exp.
// Usage: cupti_floor none|kernel|kernel+runtime|kernel+runtime+driver|all|all+systid [N]
#include <cuda_runtime.h>
#include <cupti.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

__global__ void tiny_kernel(int* sink) {
    if (threadIdx.x == 0) sink[blockIdx.x] += 1;
}

static void CUPTIAPI requested(uint8_t** buffer, size_t* size, size_t* maxRecords) {
    *size = 1 << 20;
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
    *maxRecords = 0;
}
static size_t completedBuffers = 0;
static void CUPTIAPI completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t) {
    ++completedBuffers;
    std::free(buffer);
}

int main(int argc, char** argv) {
    std::string mode = argc > 1 ? argv[1] : "none";
    int n = argc > 2 ? std::atoi(argv[2]) : 200000;
    std::vector<CUpti_ActivityKind> kinds;
    if (mode != "none") kinds.push_back(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    bool all = mode.rfind("all", 0) == 0;
    if (mode.find("runtime") != std::string::npos || all)
        kinds.push_back(CUPTI_ACTIVITY_KIND_RUNTIME);
    if (mode.find("driver") != std::string::npos || all)
        kinds.push_back(CUPTI_ACTIVITY_KIND_DRIVER);
    if (all)
        for (auto k :
             {CUPTI_ACTIVITY_KIND_DEVICE, CUPTI_ACTIVITY_KIND_CONTEXT, CUPTI_ACTIVITY_KIND_MEMCPY,
              CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MARKER,
              CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_OVERHEAD})
            kinds.push_back(k);
    if (!kinds.empty()) {
        if (mode == "all+systid") cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
        cuptiActivityRegisterCallbacks(requested, completed);
        for (auto k : kinds)
            if (cuptiActivityEnable(k) != CUPTI_SUCCESS)
                std::printf("cannot enable kind %d\n", int(k));
    }
    int* sink;
    cudaMalloc(&sink, 1024 * sizeof(int));
    tiny_kernel<<<1, 32>>>(sink);
    cudaDeviceSynchronize();
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i)
        tiny_kernel<<<1, 32>>>(sink);
    cudaDeviceSynchronize();
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!kinds.empty()) cuptiActivityFlushAll(1);
    std::printf("%s WALL_MS %.3f (%.2f us/launch, %zu buffers)\n", mode.c_str(), ms, ms * 1e3 / n,
                completedBuffers);
    return 0;
}
