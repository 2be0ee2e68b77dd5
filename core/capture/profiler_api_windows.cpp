#include "capture/profiler_api_windows.h"

#include <cupti.h>
#include <cstdio>
#include <iterator>

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
    if ((!start && !isStop(domain, cbid)) || !windowsDriven) return;
    const auto* call = static_cast<const CUpti_CallbackData*>(data);
    // The window holds what the program did between the two calls: it opens
    // when the start returns and closes when the stop is entered, so neither
    // call is traced (the start's record, begun untraced, has no start time
    // and is dropped by the converter).
    if (start && call->callbackSite == CUPTI_API_EXIT)
        windowsDriven->started();
    else if (!start && call->callbackSite == CUPTI_API_ENTER)
        windowsDriven->stopping();
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
    for (std::size_t i = 0; i < std::size(calls); ++i) {
        if (CUptiResult r = cuptiEnableCallback(1, s, calls[i].domain, calls[i].cbid);
            r != CUPTI_SUCCESS) {
            const char* why = nullptr;
            cuptiGetResultString(r, &why);
            std::fprintf(stderr, "[warpscope] cannot watch cudaProfilerStart/Stop: %s\n",
                         why ? why : "unknown error");
            // None or all: a stop seen without its start would end the
            // whole-run tracing the caller falls back to.
            for (std::size_t j = 0; j < i; ++j)
                cuptiEnableCallback(0, s, calls[j].domain, calls[j].cbid);
            windowsDriven = nullptr;
            return false;
        }
    }
    return true;
}

}  // namespace ws::capture
