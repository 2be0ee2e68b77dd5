// warpscope-workload: runs the built-in workloads (kernel ladders, the LLM
// decoder, the OpenAI-compatible server) and the kernel bench. Normally
// started by `warpscope-cli record --workload CONFIG`, which injects the
// capture library; runs standalone too. Built in every build: without CUDA
// it serves with the CPU backend only.
#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "config/workload_config.h"
#include "workload_commands.h"

namespace {

const char* kUsage =
    "usage: warpscope-workload run CONFIG.toml     run a kernel, decoder or serve workload\n"
    "       warpscope-workload serve [--backend cpu|gpu] [--host ADDR] [--port N] [CONFIG.toml]\n"
    "                                               an OpenAI-compatible server (--port 0: any\n"
    "                                               free port, printed); Ctrl-C drains and stops\n"
    "       warpscope-workload bench [--quick]      kernel performance targets on this GPU\n"
    "       warpscope-workload list                 kernels, rungs and default shapes\n"
    "       warpscope-workload launch-cost [N [Q]]  time N launches of an empty kernel, each\n"
    "                                               after Q cudaGetDevice calls (default 20000\n"
    "                                               and 0; record calibrates with it)\n";

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
        case ws::WorkloadKind::Decoder:
            return ws::workload::runGpuWorkload(config);
        case ws::WorkloadKind::Serve:
            return ws::workload::serveWorkload(config);
        case ws::WorkloadKind::Command:
        case ws::WorkloadKind::Imported:  // never parsed from a config
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
        if (command == "serve") return ws::workload::serveCommand({argv + 2, argv + argc});
        if (command == "run" && argc == 3) return run(argv[2]);
        if (command == "list" && argc == 2) return ws::workload::gpuCommand(command, false);
        if (command == "launch-cost" && argc <= 4) {
            int n = argc >= 3 ? std::atoi(argv[2]) : 20000;
            int q = argc == 4 ? std::atoi(argv[3]) : 0;
            if (n < 1 || n > 10'000'000 || q < 0 || q > 1000) {
                std::cerr << "warpscope-workload: launch-cost N Q: N from 1 to 10000000, Q from 0 "
                             "to 1000\n";
                return 2;
            }
            return ws::workload::launchCostCommand(n, q);
        }
        if (command == "bench" && (argc == 2 || (argc == 3 && !std::strcmp(argv[2], "--quick"))))
            return ws::workload::gpuCommand(command, argc == 3);
        std::cerr << kUsage;
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "warpscope-workload: " << e.what() << '\n';
        return 1;
    }
}
