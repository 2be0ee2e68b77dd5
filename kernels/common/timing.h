// Per-launch GPU times from CUDA events, and the L2-defeating input rotation
// every bandwidth figure relies on: the H200's 50 MB L2 would otherwise serve
// a repeated kernel's inputs and flatter it.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <vector>

#include "common/cuda_check.h"

namespace ws::kernels {

// Enough input copies that consecutive launches never find their inputs in L2.
inline int copiesToDefeatL2(std::size_t footprintBytes, std::size_t l2Bytes = 50u << 20) {
    if (footprintBytes == 0) return 1;
    std::size_t copies = (4 * l2Bytes + footprintBytes - 1) / footprintBytes;
    return int(std::clamp<std::size_t>(copies, 1, 64));
}

inline double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Runs launch(i) warmup + iterations times; returns each timed launch in ms.
template <typename Launch>
std::vector<double> timeLaunches(Launch&& launch, int warmup, int iterations, cudaStream_t s) {
    for (int i = 0; i < warmup; ++i)
        launch(i);
    std::vector<cudaEvent_t> events(iterations + 1);
    for (auto& e : events)
        WS_CUDA(cudaEventCreate(&e));
    WS_CUDA(cudaEventRecord(events[0], s));
    for (int i = 0; i < iterations; ++i) {
        launch(warmup + i);
        WS_CUDA(cudaEventRecord(events[i + 1], s));
    }
    WS_CUDA(cudaEventSynchronize(events[iterations]));
    std::vector<double> ms(iterations);
    for (int i = 0; i < iterations; ++i) {
        float t = 0;
        WS_CUDA(cudaEventElapsedTime(&t, events[i], events[i + 1]));
        ms[i] = t;
    }
    for (auto& e : events)
        cudaEventDestroy(e);
    return ms;
}

// Per-launch GPU time of `count` launches replayed from one CUDA graph, the
// median of `replays` replays: the cost of a launch without the host-side
// boundary that separates two per-call launches (about 3 µs on the H200),
// which is how the decoder replays its decode step. 0 when the launches
// cannot be captured into a graph.
template <typename Launch>
double timeGraphLaunches(Launch&& launch, int count, int replays, cudaStream_t s) {
    cudaGraph_t graph = nullptr;
    WS_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    bool captured = true;
    try {
        for (int i = 0; i < count; ++i)
            launch(i);
    } catch (const std::exception&) {
        captured = false;
    }
    captured = cudaStreamEndCapture(s, &graph) == cudaSuccess && captured && graph;
    cudaGraphExec_t exec = nullptr;
    if (captured) captured = cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess;
    if (graph) cudaGraphDestroy(graph);
    if (!captured) {
        cudaGetLastError();  // what the failed capture left behind is not sticky
        return 0;
    }
    auto ms = timeLaunches([&](int) { WS_CUDA(cudaGraphLaunch(exec, s)); }, 1, replays, s);
    WS_CUDA(cudaGraphExecDestroy(exec));
    return median(ms) / count;
}

}  // namespace ws::kernels
