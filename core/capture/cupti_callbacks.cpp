#include "capture/cupti_callbacks.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <iterator>
#include <mutex>

namespace ws::capture {

namespace {

// Written once each before the callbacks that reach them are enabled, read
// from any thread afterwards.
// Room for every part that may ask (query calls, graph nodes, capture
// windows, kernel counters) and some to spare.
std::array<std::atomic<CallbackHandler>, 8> handlers{};
std::atomic<int> handlerCount{0};
CUpti_SubscriberHandle subscriber = nullptr;
std::mutex subscribing;

void CUPTIAPI dispatch(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                       const void* data) {
    int n = handlerCount.load(std::memory_order_acquire);
    for (int i = 0; i < n; ++i)
        if (auto h = handlers[i].load(std::memory_order_relaxed)) h(domain, cbid, data);
}

}  // namespace

namespace {

template <std::size_t N>
bool among(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackId (&calls)[N]) {
    return domain == CUPTI_CB_DOMAIN_DRIVER_API &&
           std::find(std::begin(calls), std::end(calls), cbid) != std::end(calls);
}

}  // namespace

bool isKernelLaunch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
    return among(domain, cbid, kKernelLaunchCalls);
}

bool isGraphLaunch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
    return among(domain, cbid, kGraphLaunchCalls);
}

CUpti_SubscriberHandle addCallbackHandler(CallbackHandler handler) {
    std::lock_guard lock(subscribing);
    if (!subscriber) {
        CUptiResult r = cuptiSubscribe(&subscriber, dispatch, nullptr);
        if (r != CUPTI_SUCCESS) {
            const char* why = nullptr;
            cuptiGetResultString(r, &why);
            std::fprintf(stderr, "[warpscope] cuptiSubscribe failed: %s\n",
                         why ? why : "unknown error");
            subscriber = nullptr;
            return nullptr;
        }
    }
    int n = handlerCount.load(std::memory_order_relaxed);
    if (n == static_cast<int>(handlers.size())) {
        std::fprintf(stderr, "[warpscope] no room for another CUPTI callback handler (%d)\n", n);
        return nullptr;
    }
    handlers[n].store(handler, std::memory_order_relaxed);
    handlerCount.store(n + 1, std::memory_order_release);
    return subscriber;
}

}  // namespace ws::capture
