// warpscope-workload: runs the built-in workloads (kernel ladders, the LLM
// decoder) and the kernel bench. Normally started by `warpscope-cli record
// --workload CONFIG`, which injects the capture library; runs standalone too.
#include <cuda_runtime.h>

#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <iostream>
#include <string>

#include "config/workload_config.h"
#include "kernel_workload.h"
#include "ladders/ladder.h"
#include "workload_commands.h"

namespace {

const char* kUsage =
    "usage: warpscope-workload run CONFIG.toml     run a kernel or decoder workload\n"
    "       warpscope-workload bench [--quick]      kernel performance targets on this GPU\n"
    "       warpscope-workload list                 kernels, rungs and default shapes\n";

int list() {
    for (const auto& name : ws::kernels::ladderNames()) {
        std::cout << name << "  shape:";
        for (const auto& [k, v] : ws::kernels::ladderDefaultShape(name))
            std::cout << ' ' << k << '=' << v;
        std::cout << '\n';
    }
    return 0;
}

int run(const std::string& path) {
    auto loaded = ws::loadWorkloadConfig(path);
    if (!loaded.ok()) {
        for (const auto& e : loaded.errors)
            std::cerr << e.toString() << '\n';
        std::cerr << path << ": invalid workload config; nothing was run\n";
        return 2;
    }
    const auto& config = *loaded.config;
    switch (config.kind) {
        case ws::WorkloadKind::Kernel:
            return ws::workload::runKernelWorkload(config);
        case ws::WorkloadKind::Decoder:
            return ws::workload::runDecoderWorkload(config);
        case ws::WorkloadKind::Command:
            break;
    }
    std::cerr << path << ": kind = \"command\" runs a program of yours: use warpscope-cli record\n";
    return 2;
}

// A crash prints its stack (library + offset, for addr2line) into the run's
// log before the process dies as it would have: the run is then marked
// failed with the signal, and the log says where.
void onCrash(int signal) {
    void* frames[64];
    int n = backtrace(frames, 64);
    const char header[] = "warpscope-workload: crashed; stack:\n";
    [[maybe_unused]] auto w = ::write(2, header, sizeof header - 1);
    backtrace_symbols_fd(frames, n, 2);
    ::signal(signal, SIG_DFL);
    ::raise(signal);
}

}  // namespace

int main(int argc, char** argv) {
    for (int s : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL})
        ::signal(s, onCrash);
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
        std::cout << kUsage;
        return argc < 2 ? 2 : 0;
    }
    std::string command = argv[1];
    try {
        if (command == "list") return list();
        int devices = 0;
        if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
            std::cerr << "warpscope-workload: no CUDA device is available on this machine\n";
            return 3;
        }
        if (command == "run" && argc == 3) return run(argv[2]);
        if (command == "bench")
            return ws::workload::benchCommand(argc == 3 && !std::strcmp(argv[2], "--quick"));
        std::cerr << kUsage;
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "warpscope-workload: " << e.what() << '\n';
        return 1;
    }
}
