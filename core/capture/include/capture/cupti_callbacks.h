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

// Subscribes on first use. Returns null, with CUPTI's reason on stderr, when
// CUPTI refuses the subscription (another tool subscribed first).
CUpti_SubscriberHandle addCallbackHandler(CallbackHandler handler);

}  // namespace ws::capture
