// CUPTI allows one callback subscriber per process. The collector's parts
// that need callbacks (kernel counters, graph nodes) share it through here;
// each handler sees every enabled callback and ignores what is not its own.
#pragma once

#include <cupti.h>

namespace ws::capture {

using CallbackHandler = void (*)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void* data);

// Subscribes on first use. Returns null, with CUPTI's reason on stderr, when
// CUPTI refuses the subscription (another tool subscribed first).
CUpti_SubscriberHandle addCallbackHandler(CallbackHandler handler);

}  // namespace ws::capture
