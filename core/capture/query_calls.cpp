#include "capture/query_calls.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "capture/cupti_callbacks.h"
#include "model/query_calls.h"

namespace ws::capture {

namespace {

std::atomic<std::int64_t> counted{0};

// One flag per callback id of each domain: the handler sees every enabled
// callback of every part of the collector and must decide in a lookup.
struct QueryIds {
    std::vector<bool> runtime, driver;
    bool contains(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) const {
        const auto& ids = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? runtime : driver;
        return (domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API) &&
               cbid < ids.size() && ids[cbid];
    }
};

const QueryIds& queryIds() {
    static const QueryIds ids = [] {
        QueryIds q{std::vector<bool>(CUPTI_RUNTIME_TRACE_CBID_SIZE),
                   std::vector<bool>(CUPTI_DRIVER_TRACE_CBID_SIZE)};
        for (const QueryCall& c : queryCalls())
            (c.domain == CUPTI_CB_DOMAIN_RUNTIME_API ? q.runtime : q.driver)[c.cbid] = true;
        return q;
    }();
    return ids;
}

void onQueryCall(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
    if (!queryIds().contains(domain, cbid)) return;
    if (static_cast<const CUpti_CallbackData*>(data)->callbackSite == CUPTI_API_ENTER)
        counted.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

const std::vector<QueryCall>& queryCalls() {
    static const std::vector<QueryCall> calls = [] {
        std::vector<QueryCall> found;
        const std::pair<CUpti_CallbackDomain, std::uint32_t> domains[] = {
            {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE},
            {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE}};
        for (const auto& [domain, size] : domains)
            for (std::uint32_t cbid = 1; cbid < size; ++cbid) {
                const char* name = nullptr;
                if (cuptiGetCallbackName(domain, cbid, &name) == CUPTI_SUCCESS && name &&
                    isQueryCall(name))
                    found.push_back({domain, cbid, name});
            }
        return found;
    }();
    return calls;
}

void leaveQueryCallsOut() {
    static const bool all = [] {
        const char* v = std::getenv("WARPSCOPE_ALL_APIS");
        return v && std::strcmp(v, "1") == 0;
    }();
    if (all) return;
    int failed = 0;
    std::string first;
    for (const QueryCall& c : queryCalls()) {
        CUptiResult r = c.domain == CUPTI_CB_DOMAIN_RUNTIME_API
                            ? cuptiActivityEnableRuntimeApi(c.cbid, 0)
                            : cuptiActivityEnableDriverApi(c.cbid, 0);
        if (r != CUPTI_SUCCESS && failed++ == 0) {
            const char* why = nullptr;
            cuptiGetResultString(r, &why);
            first = std::string(c.name) + ": " + (why ? why : "unknown error");
        }
    }
    static bool reported = false;
    // The run's log says so: its capture.query_calls says what was asked.
    if (failed && !std::exchange(reported, true))
        std::fprintf(stderr,
                     "[warpscope] %d state-reading API calls could not be left out and are "
                     "traced (first: %s)\n",
                     failed, first.c_str());
}

bool countQueryCalls(bool on, bool runtime, bool driver) {
    static CUpti_SubscriberHandle subscriber = [] {
        queryIds();  // built before the first callback can ask
        return addCallbackHandler(onQueryCall);
    }();
    if (!subscriber) return false;
    // Only where API records are on: elsewhere CUPTI does not hook these
    // calls, and a callback would add the very cost it is there to count.
    for (const QueryCall& c : queryCalls())
        if (c.domain == CUPTI_CB_DOMAIN_RUNTIME_API ? runtime : driver)
            cuptiEnableCallback(on ? 1 : 0, subscriber, c.domain, c.cbid);
    return true;
}

std::int64_t takeQueryCallCount() {
    return counted.exchange(0, std::memory_order_relaxed);
}

}  // namespace ws::capture
