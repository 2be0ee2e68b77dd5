#include "analysis/cold_start.h"

#include <algorithm>
#include <map>

#include "analysis/kernel_summary.h"
#include "store/run_queries.h"

namespace ws {

namespace {

bool startsWith(const std::string& s, const char* prefix) {
    return s.rfind(prefix, 0) == 0;
}

}  // namespace

const char* coldStartKind(const std::string& name) {
    // Driver and runtime spellings; "_v2", "Ex" and "_ptsz" forms share the prefixes.
    for (const char* p :
         {"cuModuleLoad", "cuLibraryLoad", "cudaLibraryLoad", "cuModuleGetLoadingMode"})
        if (startsWith(name, p)) return "module loading";
    for (const char* p : {"cuLink", "nvrtc", "nvJitLink"})
        if (startsWith(name, p)) return "JIT compilation";
    for (const char* p : {"cuInit", "cuDevicePrimaryCtxRetain", "cuCtxCreate", "cudaInitDevice"})
        if (startsWith(name, p)) return "first-call initialisation";
    return nullptr;
}

ColdStartCheck checkColdStart(Store& store, RunId run) {
    ColdStartCheck out;
    auto requests = requestsOf(store, run);
    std::map<std::int64_t, std::int64_t> firstToken;
    for (const auto& t : tokensOf(store, run))
        if (t.index == 0) firstToken[t.requestId] = t.timeNs;
    struct Window {
        const RequestRecord* request;
        std::int64_t end;
    };
    std::vector<Window> windows;
    for (const auto& r : requests)
        if (auto it = firstToken.find(r.requestId);
            it != firstToken.end() && it->second > r.startNs)
            windows.push_back({&r, it->second});
    out.requests = static_cast<int>(windows.size());
    if (windows.empty()) {
        out.why = "the run has no requests with a first token";
        return out;
    }
    struct Hit {
        std::vector<std::pair<std::int64_t, std::int64_t>> spans;
        std::map<std::string, int> calls;
        std::vector<std::string> kinds;
    };
    std::map<std::size_t, Hit> hits;
    bool anyCall = false;
    TimeWindow all{windows.front().request->startNs, windows.front().end};
    for (const auto& w : windows) {
        all.beginNs = std::min(all.beginNs, w.request->startNs);
        all.endNs = std::max(all.endNs, w.end);
    }
    forEachApiCall(store, run, all, std::nullopt, [&](const ApiCallRecord& a) {
        anyCall = true;
        const char* kind = coldStartKind(a.name);
        if (!kind) return;
        for (std::size_t i = 0; i < windows.size(); ++i) {
            std::int64_t begin = std::max(a.startNs, windows[i].request->startNs);
            std::int64_t end = std::min(a.endNs, windows[i].end);
            if (end <= begin) continue;
            auto& h = hits[i];
            h.spans.emplace_back(begin, end);
            ++h.calls[a.name];
            if (std::find(h.kinds.begin(), h.kinds.end(), kind) == h.kinds.end())
                h.kinds.push_back(kind);
        }
    });
    if (!anyCall) {
        out.why = "the run has no CUDA API calls while its requests were served";
        return out;
    }
    out.checked = true;
    for (auto& [i, h] : hits) {
        ColdStartRequest r;
        r.requestId = windows[i].request->requestId;
        r.ttftNs = windows[i].end - windows[i].request->startNs;
        r.coldNs = unionLength(std::move(h.spans));
        for (const auto& [name, count] : h.calls)
            r.calls += (r.calls.empty() ? "" : ", ") + name + " ×" + std::to_string(count);
        for (const auto& k : h.kinds)
            r.kinds += (r.kinds.empty() ? "" : ", ") + k;
        out.hits.push_back(std::move(r));
    }
    return out;
}

}  // namespace ws
