// Entry points of libwarpscope_inject.so, the only symbols it exports.
// CUDA calls InitializeInjection (CUDA_INJECTION64_PATH); NVTX calls
// InitializeInjectionNvtx2 (NVTX_INJECTION64_PATH).
#include <cupti.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <exception>

#include "capture/collector.h"

namespace {

using NvtxInit = int (*)(const void* (*)(std::uint32_t));

// The InitializeInjectionNvtx2 of the libcupti this process actually uses.
// A process such as PyTorch loads its own libcupti before us; loading
// another copy for NVTX would feed a CUPTI nobody listens to.
NvtxInit cuptiNvtxInit() {
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void*>(&cuptiActivityEnable), &info) || !info.dli_fname)
        return nullptr;
    void* lib = dlopen(info.dli_fname, RTLD_NOLOAD | RTLD_LAZY);
    if (!lib) return nullptr;
    return reinterpret_cast<NvtxInit>(dlsym(lib, "InitializeInjectionNvtx2"));
}

}  // namespace

// Both entry points catch everything: an exception escaping into the CUDA
// driver or NVTX would terminate the user's program, and the collector's
// promise is never to fail it.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
    try {
        ws::capture::startCollector();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "[warpscope] capture not started: %s\n", e.what());
    } catch (...) {
        std::fprintf(stderr, "[warpscope] capture not started: unknown error\n");
    }
    return 1;  // never fail the program because of us
}

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    const void* (*getExportTable)(std::uint32_t)) {
    try {
        if (!ws::capture::startCollector()) return 0;
        NvtxInit forward = cuptiNvtxInit();
        if (!forward) {
            std::fprintf(stderr,
                         "[warpscope] libcupti has no NVTX injection entry: no NVTX ranges\n");
            return 0;
        }
        int ok = forward(getExportTable);
        // Once per process: each library with NVTX in it asks on its own.
        static std::atomic<bool> told{false};
        if (ok && !ws::capture::trackNcclCalls(getExportTable) && !told.exchange(true)) {
            std::fprintf(
                stderr,
                "[warpscope] NCCL message sizes not read through one library's NVTX: its table "
                "could not be stepped into\n");
        }
        return ok;
    } catch (...) {
        std::fprintf(stderr, "[warpscope] NVTX capture not started\n");
        return 0;
    }
}
