// CUPTI's own cost on any CUDA program (a PyTorch decode, say), without
// Warpscope: an injection library (CUDA_INJECTION64_PATH) that enables CUPTI
// activity kinds and discards every completed buffer unread. A program's
// slow-down under it is the floor under any CUPTI-based tracer asking for
// those kinds; `warpscope-cli record` against it is what the collector adds.
// FLOOR_KINDS picks the set:
//   warpscope  the kinds a recording enables by default, with the same
//              state-reading calls left out (model/query_calls.h)
//   lean       the kinds of `record --capture lean`: warpscope's without
//              the driver API, synchronization and overhead records
//   kineto     torch.profiler's CUDA-only set: kernels, copies, memsets,
//              runtime and driver API, overhead
//   kernels    kernels, copies and memsets only (no API records)
//   none       no kind: CUPTI loaded with its buffer callbacks, nothing traced
//   select     warpscope's, but the runtime and driver calls switched on one
//              by one (state-reading calls never), not as kinds
// Built with -DWARPSCOPE_BUILD_EXPERIMENTS=ON into BUILD_DIR/exp.
#include <cupti.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "model/query_calls.h"

namespace {

void CUPTIAPI requested(std::uint8_t** buffer, std::size_t* size, std::size_t* maxRecords) {
    *size = 1 << 20;  // the collector's default buffer size
    *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, *size));
    *maxRecords = 0;
}

void CUPTIAPI completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t) {
    std::free(buffer);
}

// Switches the state-reading calls (query) or all others, one by one.
void switchCalls(bool query, std::uint8_t on) {
    for (std::uint32_t cbid = 1; cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE; ++cbid) {
        const char* name = nullptr;
        if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &name) == CUPTI_SUCCESS &&
            name && ws::isQueryCall(name) == query)
            cuptiActivityEnableRuntimeApi(cbid, on);
    }
    for (std::uint32_t cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; ++cbid) {
        const char* name = nullptr;
        if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, cbid, &name) == CUPTI_SUCCESS &&
            name && ws::isQueryCall(name) == query)
            cuptiActivityEnableDriverApi(cbid, on);
    }
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
    const char* env = std::getenv("FLOOR_KINDS");
    std::string set = env && *env ? env : "warpscope";
    std::vector<CUpti_ActivityKind> kinds;
    if (set != "none")
        kinds = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                 CUPTI_ACTIVITY_KIND_MEMSET};
    const bool lean = set == "lean";
    if (set == "warpscope" || set == "kineto")
        kinds.insert(kinds.end(), {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER,
                                   CUPTI_ACTIVITY_KIND_OVERHEAD});
    if (lean) kinds.push_back(CUPTI_ACTIVITY_KIND_RUNTIME);
    const bool select = set == "select";
    if (select) kinds.push_back(CUPTI_ACTIVITY_KIND_OVERHEAD);
    if (set == "warpscope" || select || lean)
        kinds.insert(kinds.end(), {CUPTI_ACTIVITY_KIND_DEVICE, CUPTI_ACTIVITY_KIND_CONTEXT,
                                   CUPTI_ACTIVITY_KIND_MARKER});
    if (set == "warpscope" || select)
        kinds.push_back(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
    else if (!lean && set != "kineto" && set != "kernels" && set != "none") {
        std::fprintf(stderr,
                     "[cupti-floor] FLOOR_KINDS=%s: expected warpscope, lean, select, kineto, "
                     "kernels or none\n",
                     set.c_str());
        return 0;
    }
    if (set == "warpscope" || select || lean)
        cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
    cuptiActivityRegisterCallbacks(requested, completed);
    for (auto kind : kinds)
        if (cuptiActivityEnable(kind) != CUPTI_SUCCESS)
            std::fprintf(stderr, "[cupti-floor] cannot enable activity kind %d\n", int(kind));
    if (set == "warpscope" || lean) switchCalls(true, 0);
    if (select) switchCalls(false, 1);
    std::atexit([] { cuptiActivityFlushAll(1); });
    return 1;
}
