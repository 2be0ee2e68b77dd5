#include "analysis/latency.h"

#include <algorithm>
#include <limits>
#include <map>

#include "analysis/nvlink_rates.h"

namespace ws {

namespace {
double ms(std::int64_t ns) {
    return static_cast<double>(ns) / 1e6;
}

// Energy the run's GPUs used between two times, from the cumulative counter.
// Only the GPUs the run kept busy: on an eight-GPU server the seven idle ones
// draw their idle power too, which is not the run's.
std::optional<double> energyBetween(const std::vector<SampleRecord>& samples, std::int64_t from,
                                    std::int64_t to) {
    const auto busy = busyDevices(samples, nvlinkRates(samples));
    std::map<std::uint32_t, std::pair<double, double>> firstLast;  // device → (first, last)
    for (const auto& s : samples) {
        if (!s.energyJ || s.timeNs < from || s.timeNs > to || !busy.count(s.deviceIndex)) continue;
        auto [it, inserted] = firstLast.try_emplace(s.deviceIndex, *s.energyJ, *s.energyJ);
        if (!inserted) it->second.second = *s.energyJ;
    }
    if (firstLast.empty()) return std::nullopt;
    double joules = 0;
    for (const auto& [dev, fl] : firstLast)
        joules += fl.second - fl.first;
    return joules;
}
}  // namespace

LatencyReport computeLatency(const std::vector<RequestRecord>& requests,
                             const std::vector<TokenRecord>& tokens, const LatencyTargets& targets,
                             std::int64_t durationNs, const std::vector<SampleRecord>& samples) {
    // Each request's tokens by time, with their indexes.
    std::map<std::int64_t, std::vector<std::pair<std::int64_t, std::int32_t>>> indexed;
    for (const auto& t : tokens)
        indexed[t.requestId].emplace_back(t.timeNs, t.index);
    std::map<std::int64_t, std::vector<std::int64_t>> times;
    for (auto& [request, list] : indexed) {
        std::sort(list.begin(), list.end());
        auto& ts = times[request];
        ts.reserve(list.size());
        for (const auto& [time, index] : list)
            ts.push_back(time);
    }
    LatencyReport rep;
    std::int64_t first = std::numeric_limits<std::int64_t>::max();
    std::int64_t last = std::numeric_limits<std::int64_t>::min();
    int good = 0;
    for (const auto& q : requests) {
        auto it = times.find(q.requestId);
        if (!q.success || it == times.end() || it->second.empty()) {
            ++rep.failedRequests;
            continue;
        }
        const auto& ts = it->second;  // sorted above
        RequestLatency r;
        r.requestId = q.requestId;
        r.startNs = q.startNs;
        r.firstTokenNs = ts.front();
        r.promptTokens = q.promptTokens;
        r.outputTokens = q.outputTokens > 0 ? q.outputTokens : static_cast<int>(ts.size());
        r.ttftMs = ms(ts.front() - q.startNs);
        r.e2elMs = ms(std::max(q.endNs, ts.back()) - q.startNs);
        if (r.outputTokens > 1) r.tpotMs = (r.e2elMs - r.ttftMs) / (r.outputTokens - 1);
        // A gap is an ITL only between tokens whose indexes follow each other:
        // a client that keeps just the first and last token (GuideLLM) has
        // none, and its one long gap is no inter-token latency.
        const auto& byTime = indexed[q.requestId];
        bool consecutive = true;
        for (std::size_t i = 1; i < byTime.size(); ++i)  // in 64 bits: an index may be INT32_MAX
            consecutive = consecutive &&
                          std::int64_t{byTime[i].second} == std::int64_t{byTime[i - 1].second} + 1;
        if (consecutive)
            for (std::size_t i = 1; i < ts.size(); ++i)
                r.itlMs.push_back(ms(ts[i] - ts[i - 1]));
        else
            ++rep.requestsWithoutTokenTimes;
        rep.ttftMs.push_back(r.ttftMs);
        if (r.tpotMs) rep.tpotMs.push_back(*r.tpotMs);
        rep.itlMs.insert(rep.itlMs.end(), r.itlMs.begin(), r.itlMs.end());
        rep.e2elMs.push_back(r.e2elMs);
        rep.totalInputTokens += r.promptTokens;
        rep.totalOutputTokens += r.outputTokens;
        first = std::min(first, q.startNs);
        last = std::max(last, std::max(q.endNs, ts.back()));
        bool meets = (!targets.ttftMs || r.ttftMs <= *targets.ttftMs) &&
                     (!targets.tpotMs || !r.tpotMs || *r.tpotMs <= *targets.tpotMs) &&
                     (!targets.e2elMs || r.e2elMs <= *targets.e2elMs);
        if (meets) ++good;
        rep.requests.push_back(std::move(r));
    }
    if (rep.requests.empty()) return rep;
    // Sweep request starts and ends: the peak of requests in flight.
    std::vector<std::pair<std::int64_t, int>> edges;
    for (const auto& q : requests) {
        if (!q.success || !times.count(q.requestId)) continue;
        edges.emplace_back(q.startNs, +1);
        edges.emplace_back(std::max(q.endNs, times[q.requestId].back()), -1);
    }
    std::sort(edges.begin(), edges.end());  // an end before a start at the same time
    int inFlight = 0;
    for (const auto& [t, d] : edges)
        rep.maxConcurrency = std::max(rep.maxConcurrency, inFlight += d);
    std::map<std::int64_t, int> perSecond;
    for (const auto& q : requests) {
        if (!q.success || !times.count(q.requestId)) continue;
        for (std::int64_t t : times[q.requestId])
            ++perSecond[(t - first) / 1'000'000'000];
    }
    if (rep.requestsWithoutTokenTimes == 0)
        for (const auto& [second, count] : perSecond)
            rep.peakOutputThroughput =
                std::max(rep.peakOutputThroughput, static_cast<double>(count));
    rep.windowBeginNs = first;
    rep.windowEndNs = last;
    std::int64_t span = durationNs > 0 ? durationNs : last - first;
    rep.durationS = static_cast<double>(span) / 1e9;
    if (rep.durationS > 0) {
        auto n = static_cast<double>(rep.requests.size());
        rep.requestThroughput = n / rep.durationS;
        rep.outputThroughput = static_cast<double>(rep.totalOutputTokens) / rep.durationS;
        rep.totalTokenThroughput =
            static_cast<double>(rep.totalInputTokens + rep.totalOutputTokens) / rep.durationS;
        if (targets.any()) rep.requestGoodput = good / rep.durationS;
    }
    if (auto joules = energyBetween(samples, first, last); joules && rep.totalOutputTokens > 0)
        rep.energyPerOutputTokenJ = *joules / static_cast<double>(rep.totalOutputTokens);
    return rep;
}

}  // namespace ws
