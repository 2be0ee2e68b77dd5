// The subcommands that need CUDA: the kernel ladders, the decoder and the
// kernel bench. Built only where CUDA is (no_gpu_commands.cpp otherwise).
#include <cuda_runtime.h>

#include <iostream>

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
