// A CUDA program whose kernels, copies and NVTX ranges are known exactly, for
// checking what `warpscope-cli record` stores. Modes:
//   capture_fixture fixture   known kernels and memcpys on two streams; prints
//                             the expected rows as JSON on stdout
//   capture_fixture timing N  N serial spin kernels timed with CUDA events
//   capture_fixture launches N   N ~1 µs kernels back to back (launch-bound)
//   capture_fixture large N   N kernels of >= 100 µs each
//   capture_fixture forever   launches kernels until killed
//   capture_fixture queries N    N ~1 µs kernels, each after the state reads
//                             PyTorch makes per kernel (8 cudaGetDevice, one
//                             cudaGetLastError): what tracing those costs
//   capture_fixture streams N S   N ~1 µs kernels from S threads, each on its own
//                             stream (a serving process at full launch rate)
//   capture_fixture windows   inside_kernel only between cudaProfilerStart and
//                             Stop (two windows, and a third left open at
//                             exit), outside_kernel elsewhere: 14 inside, 18
//                             outside, one 1 MiB copy inside
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#define CHECK(call)                                                                            \
    do {                                                                                       \
        cudaError_t err_ = (call);                                                             \
        if (err_ != cudaSuccess) {                                                             \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            std::exit(2);                                                                      \
        }                                                                                      \
    } while (0)

__global__ void fill_kernel(float* out, float value, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = value;
}

__global__ void stencil_kernel(const float* in, float* out, int n) {
    __shared__ float tile[256];
    extern __shared__ float dynamic[];
    int i = blockIdx.x * blockDim.x + threadIdx.x + blockIdx.y * gridDim.x * blockDim.x;
    tile[threadIdx.x % 256] = i < n ? in[i] : 0.f;
    dynamic[threadIdx.x] = tile[threadIdx.x % 256] * 0.5f;
    __syncthreads();
    if (i < n) out[i] = dynamic[threadIdx.x] + tile[(threadIdx.x + 1) % 256];
}

__global__ void reduce_kernel(const float* in, float* out, int n) {
    extern __shared__ float partial[];
    float sum = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        sum += in[i];
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

// Spins for `cycles` clock cycles: a kernel of known, tunable duration.
__global__ void spin_kernel(long long cycles, int* sink) {
    long long start = clock64();
    while (clock64() - start < cycles) {
    }
    if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(sink, 1);
}

__global__ void tiny_kernel(int* sink) {
    if (threadIdx.x == 0) sink[blockIdx.x] += 1;
}

static double nowMs() {
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

static int fixture() {
    const int n = 1 << 20;
    float *dA, *dB, *dC, *hPinned;
    CHECK(cudaMalloc(&dA, 4 * n * sizeof(float)));
    CHECK(cudaMalloc(&dB, 4 * n * sizeof(float)));
    CHECK(cudaMalloc(&dC, 4 * n * sizeof(float)));
    CHECK(cudaMallocHost(&hPinned, 4 * n * sizeof(float)));
    std::memset(hPinned, 0, 4 * n * sizeof(float));
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));

    nvtxRangePushA("ws.request:0:prompt=16");
    nvtxRangePushA("fixture");
    CHECK(cudaMemcpyAsync(dA, hPinned, 1 << 20, cudaMemcpyHostToDevice, s1));  // 1 MiB HtoD
    for (int i = 0; i < 10; ++i)
        fill_kernel<<<64, 256, 0, s1>>>(dA, 1.f, n);
    nvtxMarkA("ws.token:0");
    for (int i = 0; i < 5; ++i)
        stencil_kernel<<<dim3(32, 2, 1), 128, 4096, s2>>>(dB, dC, n);
    CHECK(cudaMemsetAsync(dC, 0, 1 << 20, s2));
    nvtxMarkA("ws.token:0");
    for (int i = 0; i < 3; ++i)
        reduce_kernel<<<16, 512, 2048, s1>>>(dA, dB, n);
    CHECK(cudaMemcpyAsync(dB, dA, 2 << 20, cudaMemcpyDeviceToDevice, s1));  // 2 MiB DtoD
    CHECK(cudaMemcpyAsync(dB, dA, 2 << 20, cudaMemcpyDeviceToDevice, s1));
    CHECK(cudaMemcpyAsync(hPinned, dC, 4 << 20, cudaMemcpyDeviceToHost, s2));  // 4 MiB DtoH
    nvtxMarkA("ws.token:0");
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaStreamSynchronize(s2));
    CHECK(cudaGetLastError());
    nvtxMarkA("ws.token:0");
    nvtxRangePop();
    nvtxRangePop();
    // What a recording must hold, stream by stream (streams as numbered in s1, s2 order).
    std::printf(
        "{\"kernels\": ["
        "{\"name\": \"fill_kernel\", \"stream\": 1, \"count\": 10, \"grid\": [64,1,1], "
        "\"block\": [256,1,1], \"static_smem\": 0, \"dynamic_smem\": 0},"
        "{\"name\": \"stencil_kernel\", \"stream\": 2, \"count\": 5, \"grid\": [32,2,1], "
        "\"block\": [128,1,1], \"static_smem\": 1024, \"dynamic_smem\": 4096},"
        "{\"name\": \"reduce_kernel\", \"stream\": 1, \"count\": 3, \"grid\": [16,1,1], "
        "\"block\": [512,1,1], \"static_smem\": 0, \"dynamic_smem\": 2048}],"
        " \"memcpys\": ["
        "{\"kind\": \"HtoD\", \"stream\": 1, \"bytes\": 1048576, \"count\": 1},"
        "{\"kind\": \"DtoD\", \"stream\": 1, \"bytes\": 2097152, \"count\": 2},"
        "{\"kind\": \"DtoH\", \"stream\": 2, \"bytes\": 4194304, \"count\": 1}],"
        " \"memsets\": [{\"stream\": 2, \"bytes\": 1048576, \"count\": 1}],"
        " \"ranges\": [\"ws.request:0:prompt=16\", \"fixture\"], \"tokens\": 4}\n");
    return 0;
}

static int timing(int count) {
    int* sink;
    CHECK(cudaMalloc(&sink, sizeof(int)));
    spin_kernel<<<1, 32>>>(1000, sink);  // warm-up, not timed
    CHECK(cudaDeviceSynchronize());
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    nvtxRangePushA("timed");
    float totalMs = 0;
    for (int i = 0; i < count; ++i) {
        // Each kernel timed alone: the event pair brackets exactly one kernel.
        CHECK(cudaEventRecord(start));
        spin_kernel<<<132, 128>>>(2'000'000, sink);  // ~1 ms at 1.98 GHz
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        totalMs += ms;
    }
    nvtxRangePop();
    std::printf("EVENT_MS %.6f\n", totalMs);
    return 0;
}

static int launches(int count) {
    int* sink;
    CHECK(cudaMalloc(&sink, 1024 * sizeof(int)));
    tiny_kernel<<<1, 32>>>(sink);
    CHECK(cudaDeviceSynchronize());
    double t0 = nowMs();
    for (int i = 0; i < count; ++i)
        tiny_kernel<<<1, 32>>>(sink);
    CHECK(cudaDeviceSynchronize());
    double t1 = nowMs();
    std::printf("WALL_MS %.3f\nKERNELS_PER_S %.0f\n", t1 - t0, count / ((t1 - t0) / 1000.0));
    return 0;
}

static int queries(int count) {
    int* sink;
    CHECK(cudaMalloc(&sink, 1024 * sizeof(int)));
    tiny_kernel<<<1, 32>>>(sink);
    CHECK(cudaDeviceSynchronize());
    int device = 0;
    double t0 = nowMs();
    for (int i = 0; i < count; ++i) {
        for (int q = 0; q < 8; ++q)
            CHECK(cudaGetDevice(&device));
        tiny_kernel<<<1, 32>>>(sink);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaDeviceSynchronize());
    double t1 = nowMs();
    std::printf("WALL_MS %.3f\nKERNELS_PER_S %.0f\n", t1 - t0, count / ((t1 - t0) / 1000.0));
    return 0;
}

static int streams(long count, int streamCount) {
    int* sink;
    CHECK(cudaMalloc(&sink, 1024 * sizeof(int)));
    tiny_kernel<<<1, 32>>>(sink);
    CHECK(cudaDeviceSynchronize());
    std::vector<cudaStream_t> s(static_cast<std::size_t>(streamCount));
    for (auto& stream : s)
        CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    double t0 = nowMs();
    std::vector<std::thread> threads;
    for (int t = 0; t < streamCount; ++t)
        threads.emplace_back([&, t] {
            for (long i = t; i < count; i += streamCount)
                tiny_kernel<<<1, 32, 0, s[static_cast<std::size_t>(t)]>>>(sink);
            CHECK(cudaStreamSynchronize(s[static_cast<std::size_t>(t)]));
        });
    for (auto& thread : threads)
        thread.join();
    double t1 = nowMs();
    std::printf("WALL_MS %.3f\nKERNELS_PER_S %.0f\n", t1 - t0, count / ((t1 - t0) / 1000.0));
    return 0;
}

static int large(int count) {
    int* sink;
    CHECK(cudaMalloc(&sink, sizeof(int)));
    spin_kernel<<<132, 256>>>(1000, sink);
    CHECK(cudaDeviceSynchronize());
    double t0 = nowMs();
    for (int i = 0; i < count; ++i)
        spin_kernel<<<132, 256>>>(400'000, sink);  // ~200 µs
    CHECK(cudaDeviceSynchronize());
    std::printf("WALL_MS %.3f\n", nowMs() - t0);
    return 0;
}

__global__ void inside_kernel(int* sink) {
    sink[threadIdx.x] += 1;
}
__global__ void outside_kernel(int* sink) {
    sink[threadIdx.x] += 2;
}

// For record --capture-range cudaProfilerApi (capture_gpu_test.cpp).
static int windows() {
    int* sink;
    CHECK(cudaMalloc(&sink, 1 << 20));
    std::vector<char> host(1 << 20);
    auto launch = [&](bool inside, int count) {
        for (int i = 0; i < count; ++i) {
            if (inside)
                inside_kernel<<<1, 32>>>(sink);
            else
                outside_kernel<<<1, 32>>>(sink);
        }
        CHECK(cudaDeviceSynchronize());
    };
    launch(false, 5);
    CHECK(cudaProfilerStart());
    launch(true, 7);
    CHECK(cudaMemcpy(host.data(), sink, host.size(), cudaMemcpyDeviceToHost));
    CHECK(cudaProfilerStop());
    launch(false, 11);
    CHECK(cudaMemcpy(host.data(), sink, host.size(), cudaMemcpyDeviceToHost));
    CHECK(cudaProfilerStart());
    CHECK(cudaProfilerStart());  // a second start inside a window changes nothing
    launch(true, 3);
    CHECK(cudaProfilerStop());
    CHECK(cudaProfilerStop());
    launch(false, 2);
    CHECK(cudaProfilerStart());
    launch(true, 4);  // the program exits with this window open
    return 0;
}

static int forever() {
    int* sink;
    CHECK(cudaMalloc(&sink, sizeof(int)));
    for (long i = 0;; ++i) {
        spin_kernel<<<1, 32>>>(20'000, sink);  // ~10 µs
        if (i % 1000 == 0) {
            CHECK(cudaDeviceSynchronize());
            std::printf("launched %ld\n", i);
            std::fflush(stdout);
        }
    }
}

int main(int argc, char** argv) {
    std::string mode = argc > 1 ? argv[1] : "fixture";
    int n = argc > 2 ? std::atoi(argv[2]) : 0;
    if (mode == "fixture") return fixture();
    if (mode == "timing") return timing(n ? n : 50);
    if (mode == "launches") return launches(n ? n : 200000);
    if (mode == "large") return large(n ? n : 200);
    if (mode == "queries") return queries(n ? n : 100000);
    if (mode == "forever") return forever();
    if (mode == "windows") return windows();
    if (mode == "streams")
        return streams(argc > 2 ? std::atol(argv[2]) : 10'000'000,
                       argc > 3 ? std::atoi(argv[3]) : 16);
    std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
    return 2;
}
