// The subcommands that need CUDA: the kernel ladders, the decoder and the
// kernel bench. Built only where CUDA is (no_gpu_commands.cpp otherwise).
#include <cuda_runtime.h>

#include <chrono>
#include <iostream>

#include "common/empty_launches.h"
#include "kernel_workload.h"
#include "ladders/ladder.h"
#include "workload_commands.h"

namespace ws::workload {

namespace {

int list() {
    for (const auto& name : kernels::ladderNames()) {
        std::cout << name << "  shape:";
        for (const auto& [k, v] : kernels::ladderDefaultShape(name))
            std::cout << ' ' << k << '=' << v;
        std::cout << '\n';
    }
    return 0;
}

bool haveDevice() {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::cerr << "warpscope-workload: no CUDA device is available on this machine\n";
        return false;
    }
    return true;
}

}  // namespace

int launchCostCommand(int launches, int queriesPerLaunch) {
    if (!haveDevice()) return 3;
    // Context, module and first-launch costs out of the way.
    constexpr int kWarmUp = 1000;
    kernels::launchEmptyKernels(kWarmUp, nullptr, queriesPerLaunch);
    auto start = std::chrono::steady_clock::now();
    kernels::launchEmptyKernels(launches, nullptr, queriesPerLaunch);
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::steady_clock::now() - start)
                  .count();
    std::cout << "LAUNCH_LOOP_NS " << ns << " LAUNCHES " << launches << " QUERIES_PER_LAUNCH "
              << queriesPerLaunch << " WARM_UP_LAUNCHES " << kWarmUp << '\n';
    return 0;
}

int gpuCommand(const std::string& command, bool quick) {
    if (command == "list") return list();
    if (!haveDevice()) return 3;
    if (command == "bench") return benchCommand(quick);
    return 2;
}

int runGpuWorkload(const WorkloadConfig& config) {
    if (!haveDevice()) return 3;
    if (config.kind == WorkloadKind::Kernel) return runKernelWorkload(config);
    return runDecoderWorkload(config);
}

}  // namespace ws::workload
