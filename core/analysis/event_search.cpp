#include "analysis/event_search.h"

#include <algorithm>
#include <queue>
#include <unordered_map>

#include "analysis/kernel_summary.h"
#include "store/run_queries.h"

namespace ws {

namespace {

std::string lowerAscii(std::string s) {
    for (char& c : s)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return s;
}

// Stops a store visit from inside (the visitors cannot return early).
struct Stopped {};

// Counts every match and keeps the earliest `limit` (a max-heap by start).
class Collector {
  public:
    Collector(std::string text, std::size_t limit, std::int64_t records,
              const std::function<bool(double)>& keepGoing)
        : text_(lowerAscii(std::move(text))),
          limit_(limit),
          records_(std::max<std::int64_t>(records, 1)),
          keepGoing_(keepGoing) {}

    // Whether `label` contains the text: asked once per distinct name.
    bool matches(const std::string& label) const {
        return lowerAscii(label).find(text_) != std::string::npos;
    }
    void visited() {
        if ((++visited_ & 0xFFFF) == 0 && keepGoing_ &&
            !keepGoing_(static_cast<double>(visited_) / static_cast<double>(records_)))
            throw Stopped{};
    }
    void add(EventMatch m) {
        ++total_;
        if (limit_ == 0) return;
        if (heap_.size() < limit_) {
            heap_.push(std::move(m));
        } else if (m.startNs < heap_.top().startNs) {
            heap_.pop();
            heap_.push(std::move(m));
        }
    }
    EventSearch result(bool stopped) {
        EventSearch r;
        r.total = total_;
        r.stopped = stopped;
        r.first.reserve(heap_.size());
        for (; !heap_.empty(); heap_.pop())
            r.first.push_back(heap_.top());
        std::reverse(r.first.begin(), r.first.end());
        return r;
    }

  private:
    struct LaterFirst {
        bool operator()(const EventMatch& a, const EventMatch& b) const {
            return a.startNs < b.startNs;
        }
    };
    std::string text_;
    std::size_t limit_;
    std::int64_t records_;
    const std::function<bool(double)>& keepGoing_;
    std::int64_t visited_ = 0, total_ = 0;
    std::priority_queue<EventMatch, std::vector<EventMatch>, LaterFirst> heap_;
};

}  // namespace

std::string kernelLabel(const std::string& mangled) {
    return shortKernelName(demangle(mangled));
}

EventSearch searchRunEvents(Store& store, RunId run, const std::string& text, std::size_t limit,
                            const std::function<bool(double)>& keepGoing) {
    const RunAggregates counts = runAggregates(store, run);
    Collector found(
        text, limit,
        counts.kernelCount + counts.memcpyCount + counts.memsetCount + counts.apiCallCount,
        keepGoing);
    if (text.empty()) return found.result(false);
    // Each distinct name's label and verdict, worked out once.
    std::unordered_map<std::string, std::pair<bool, std::string>> kernels, calls;
    auto verdict = [&](auto& cache, const std::string& name, auto&& labelOf) -> const auto& {
        auto it = cache.find(name);
        if (it == cache.end()) {
            std::string label = labelOf(name);
            const bool match = found.matches(label);
            it = cache.emplace(name, std::make_pair(match, std::move(label))).first;
        }
        return it->second;
    };
    try {
        forEachKernel(store, run, {}, std::nullopt, [&](const KernelRecord& k) {
            found.visited();
            const auto& v = verdict(kernels, k.name, kernelLabel);
            if (v.first)
                found.add(
                    {MatchedKind::Kernel, k.deviceId, k.streamId, k.startNs, k.endNs, v.second});
        });
        forEachMemcpy(store, run, {}, std::nullopt, [&](const MemcpyRecord& m) {
            found.visited();
            std::string label = std::string("Memcpy ") + toString(m.kind);
            if (found.matches(label))
                found.add({MatchedKind::Memcpy, m.deviceId, m.streamId, m.startNs, m.endNs,
                           std::move(label)});
        });
        const bool memsets = found.matches("Memset");
        forEachMemset(store, run, {}, std::nullopt, [&](const MemsetRecord& m) {
            found.visited();
            if (memsets)
                found.add(
                    {MatchedKind::Memset, m.deviceId, m.streamId, m.startNs, m.endNs, "Memset"});
        });
        forEachApiCall(store, run, {}, std::nullopt, [&](const ApiCallRecord& a) {
            found.visited();
            const auto& v = verdict(calls, a.name, [](const std::string& n) { return n; });
            if (v.first)
                found.add({MatchedKind::ApiCall, 0, a.threadId, a.startNs, a.endNs, v.second});
        });
    } catch (const Stopped&) {
        return found.result(true);
    }
    return found.result(false);
}

}  // namespace ws
