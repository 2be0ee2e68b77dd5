#include "capture/profiler_api_windows.h"

#include <cupti.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>

#include "capture/cupti_callbacks.h"

namespace ws::capture {

namespace {

CaptureWindows* windowsDriven = nullptr;  // lives until exit

bool isStart(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
    return (domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
            cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000) ||
           (domain == CUPTI_CB_DOMAIN_DRIVER_API &&
            cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
}

bool isStop(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
    return (domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
            cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000) ||
           (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
}

void onProfilerApi(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
    const bool start = isStart(domain, cbid);
    if (!start && !isStop(domain, cbid)) return;
    const auto* call = static_cast<const CUpti_CallbackData*>(data);
    const auto thread = static_cast<std::uint32_t>(::syscall(SYS_gettid));
    // The window holds what the program did between the two calls: it opens
    // when the start returns and closes when the stop is entered, so neither
    // call's own records are in it.
    if (start && call->callbackSite == CUPTI_API_EXIT)
        windowsDriven->started(thread);
    else if (!start && call->callbackSite == CUPTI_API_ENTER)
        windowsDriven->stopping(thread);
}

}  // namespace

bool startProfilerApiWindows(CaptureWindows* windows) {
    windowsDriven = windows;
    CUpti_SubscriberHandle s = addCallbackHandler(onProfilerApi);
    if (!s) return false;
    const struct {
        CUpti_CallbackDomain domain;
        CUpti_CallbackId cbid;
    } calls[] = {
        {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000},
        {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000},
        {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart},
        {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop},
    };
    for (const auto& c : calls) {
        if (CUptiResult r = cuptiEnableCallback(1, s, c.domain, c.cbid); r != CUPTI_SUCCESS) {
            const char* why = nullptr;
            cuptiGetResultString(r, &why);
            std::fprintf(stderr, "[warpscope] cannot watch cudaProfilerStart/Stop: %s\n",
                         why ? why : "unknown error");
            return false;
        }
    }
    return true;
}

}  // namespace ws::capture
