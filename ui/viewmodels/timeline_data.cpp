#include "viewmodels/timeline_data.h"

#include "viewmodels/timeline_load_parts.h"
#include "viewmodels/timeline_paging.h"

#include <algorithm>
#include <map>

#include "store/run_queries.h"
#include "store/store.h"

namespace ws::ui {

std::pair<int, long> launchingCall(const TimelineData& data, int kernelLane, long kernelEvent) {
    const auto& k = data.lanes[static_cast<std::size_t>(kernelLane)];
    if (k.correlation.empty()) return {-1, -1};
    auto e = static_cast<std::size_t>(kernelEvent);
    std::uint32_t id = k.correlation[e];
    // The in-memory twin of the store's launchingCall: same id, same window.
    constexpr std::int64_t kWindow = kLaunchSearchWindowNs;
    std::int64_t at = k.events.start(e);
    for (std::size_t l = 0; l < data.lanes.size(); ++l) {
        const auto& lane = data.lanes[l];
        if (lane.kind != LaneKind::ApiCalls) continue;
        std::size_t end = lane.events.firstStartingFrom(at + kWindow, 0);
        for (std::size_t i = lane.events.firstStartingFrom(at - kWindow, 0); i < end; ++i)
            if (lane.correlation[i] == id) return {static_cast<int>(l), static_cast<long>(i)};
    }
    return {-1, -1};
}

std::vector<std::pair<int, long>> launchedKernels(const TimelineData& data, int callLane,
                                                  long callEvent) {
    std::vector<std::pair<int, long>> out;
    const auto& call = data.lanes[static_cast<std::size_t>(callLane)];
    if (call.kind != LaneKind::ApiCalls || call.correlation.empty()) return out;
    const auto c = static_cast<std::size_t>(callEvent);
    const std::uint32_t id = call.correlation[c];
    // A kernel starts after its launch call, within the same window as above.
    const std::int64_t at = call.events.start(c);
    for (std::size_t l = 0; l < data.lanes.size(); ++l) {
        const auto& lane = data.lanes[l];
        if (lane.kind != LaneKind::Kernels || lane.correlation.empty()) continue;
        std::size_t end = lane.events.firstStartingFrom(at + kLaunchSearchWindowNs, 0);
        for (std::size_t i = lane.events.firstStartingFrom(at, 0); i < end; ++i)
            if (lane.correlation[i] == id)
                out.emplace_back(static_cast<int>(l), static_cast<long>(i));
    }
    std::sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
        return data.lanes[static_cast<std::size_t>(a.first)].events.start(
                   static_cast<std::size_t>(a.second)) <
               data.lanes[static_cast<std::size_t>(b.first)].events.start(
                   static_cast<std::size_t>(b.second));
    });
    return out;
}

std::size_t laneEventCount(const TimelineLane& lane) {
    return lane.overview ? static_cast<std::size_t>(lane.overview->events()) : lane.events.size();
}

bool detailCovers(const TimelineData& data, std::int64_t beginNs, std::int64_t endNs) {
    return data.detail && data.detail->first <= beginNs && endNs <= data.detail->second;
}

namespace {

std::shared_ptr<const TimelineData> readTimeline(Store& store, RunId run,
                                                 const std::function<bool()>& stop,
                                                 std::int64_t firstRecordNs) {
    auto data = std::make_shared<TimelineData>();
    data->run = run;
    data->firstRecordNs = firstRecordNs;
    load::Labels label(data->labels);
    load::Poll poll(stop);
    load::Extent extent;
    const load::StreamTitles titles(store, run);
    for (const auto& key : runStreams(store, run)) {
        if (poll.stopped()) return nullptr;
        auto lane = load::kernelLane(key, titles);
        load::readKernels(store, run, {}, lane, label, poll, extent);
        auto copies = load::memoryLane(key, titles);
        load::readCopies(store, run, {}, copies, label, poll, extent);
        if (lane.events.size()) data->lanes.push_back(std::move(lane));
        if (copies.events.size()) data->lanes.push_back(std::move(copies));
    }
    load::addRangeLanes(store, run, *data, label, poll, extent);
    // CUDA API calls per thread, in one pass over all threads.
    std::map<std::uint32_t, TimelineLane> api;
    forEachApiCall(store, run, {}, std::nullopt, [&](const ApiCallRecord& a) {
        poll();
        auto [it, added] = api.try_emplace(a.threadId);
        if (added) it->second = load::apiLane(a.threadId);
        it->second.events.add(a.startNs, a.endNs, label(a.name));
        it->second.correlation.push_back(a.correlationId);
    });
    for (auto& [thread, lane] : api)
        data->lanes.push_back(std::move(lane));
    load::addTokensAndCounters(store, run, *data, extent);

    for (const auto& l : data->lanes)
        data->eventCount += l.events.size();
    data->beginNs = extent.beginNs;
    data->endNs = extent.endNs;
    if (data->beginNs > data->endNs) data->beginNs = data->endNs = 0;
    return data;
}

}  // namespace

std::shared_ptr<const TimelineData> loadTimeline(Store& store, RunId run,
                                                 const std::function<bool()>& stop,
                                                 const TimelineLoadOptions& options) {
    try {
        const auto a = runAggregates(store, run);
        const auto events = a.kernelCount + a.memcpyCount + a.memsetCount + a.apiCallCount;
        const auto first = a.firstNs.value_or(0);
        if (static_cast<std::size_t>(events) > options.residentEvents)
            return openPagedTimeline(store, run, stop, first);
        return readTimeline(store, run, stop, first);
    } catch (const load::LoadStopped&) {
        return nullptr;
    }
}

}  // namespace ws::ui
