// CUPTI allows one callback subscriber per process. The collector's parts
// that need callbacks (kernel counters, graph nodes, capture windows, the
// count of state-reading calls) share it through here. Callbacks are enabled
// on the one subscriber, so what one part enables reaches every handler:
// each handler ignores what is not its own.
#pragma once

#include <cupti.h>

namespace ws::capture {

using CallbackHandler = void (*)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void* data);

// The driver calls that launch one kernel, and those that launch a CUDA
// graph (the runtime's launches reach the driver as one of them).
inline constexpr CUpti_CallbackId kKernelLaunchCalls[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz};
inline constexpr CUpti_CallbackId kGraphLaunchCalls[] = {
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz};
bool isKernelLaunch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
bool isGraphLaunch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);

// Subscribes on first use. Returns null, with CUPTI's reason on stderr, when
// CUPTI refuses the subscription (another tool subscribed first).
CUpti_SubscriberHandle addCallbackHandler(CallbackHandler handler);

}  // namespace ws::capture
