#include "viewmodels/timeline_paging.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "store/chunk_directory.h"
#include "store/run_queries.h"
#include "viewmodels/timeline_load_parts.h"

namespace ws::ui {

namespace {

using Overview = std::shared_ptr<lod::CoarseLane>;

// One overview per (device, stream) of the given kinds, merged.
std::map<StreamKey, Overview> streamOverviews(Store& store, RunId run,
                                              std::initializer_list<codec::ChunkKind> kinds) {
    std::map<StreamKey, Overview> out;
    for (auto kind : kinds)
        for (const auto& lane : chunkDirectory(store, run, kind)) {
            auto& o = out[{lane.groupId, lane.laneId}];
            if (!o) o = std::make_shared<lod::CoarseLane>();
            for (const auto& c : lane.chunks)
                o->add(c.firstStartNs, c.maxEndNs, c.count, c.busyNs);
        }
    for (auto& [key, o] : out)
        o->finish();
    return out;
}

}  // namespace

std::shared_ptr<const TimelineData> openPagedTimeline(Store& store, RunId run,
                                                      const std::function<bool()>& stop,
                                                      std::int64_t firstRecordNs) {
    auto data = std::make_shared<TimelineData>();
    data->run = run;
    data->paged = true;
    data->firstRecordNs = firstRecordNs;
    load::Labels label(data->labels);
    load::Poll poll(stop);
    load::Extent extent;
    const load::StreamTitles titles(store, run);
    auto kernels = streamOverviews(store, run, {codec::ChunkKind::Kernel});
    auto copies = streamOverviews(store, run, {codec::ChunkKind::Memcpy, codec::ChunkKind::Memset});
    auto attach = [&](TimelineLane lane, const Overview& overview) {
        // As in a whole load, the axis spans GPU work, ranges and tokens.
        if (lane.kind != LaneKind::ApiCalls) extent(overview->beginNs(), overview->endNs());
        data->eventCount += static_cast<std::size_t>(overview->events());
        lane.overview = overview;
        data->lanes.push_back(std::move(lane));
    };
    // The same lanes in the same order as a whole load: a stream's kernels,
    // then its memory lane; NVTX ranges; API calls per thread.
    for (const auto& key : runStreams(store, run)) {
        if (auto k = kernels.find(key); k != kernels.end())
            attach(load::kernelLane(key, titles), k->second);
        if (auto c = copies.find(key); c != copies.end())
            attach(load::memoryLane(key, titles), c->second);
    }
    load::addRangeLanes(store, run, *data, label, poll, extent);
    for (std::size_t l = 0; l < data->lanes.size(); ++l)
        if (data->lanes[l].kind == LaneKind::Ranges)
            data->eventCount += data->lanes[l].events.size();
    // API calls: a thread's calls from every process share its lane.
    std::map<std::uint32_t, Overview> api;
    for (const auto& lane : chunkDirectory(store, run, codec::ChunkKind::ApiCall)) {
        auto& o = api[lane.laneId];
        if (!o) o = std::make_shared<lod::CoarseLane>();
        for (const auto& c : lane.chunks)
            o->add(c.firstStartNs, c.maxEndNs, c.count, c.busyNs);
    }
    for (auto& [thread, o] : api) {
        o->finish();
        attach(load::apiLane(thread), o);
    }
    load::addTokensAndCounters(store, run, *data, extent);
    data->beginNs = extent.beginNs;
    data->endNs = extent.endNs;
    if (data->beginNs > data->endNs) data->beginNs = data->endNs = 0;
    return data;
}

std::shared_ptr<const TimelineData> loadTimelineDetail(Store& store, const TimelineData& base,
                                                       std::int64_t beginNs, std::int64_t endNs,
                                                       const std::function<bool()>& stop) {
    try {
        auto data = std::make_shared<TimelineData>(base);
        load::Labels label(data->labels);
        load::Poll poll(stop);
        // One pass per kind over all lanes, each record routed to its lane:
        // a query per lane would scan the kind's whole chunk index each time.
        std::map<StreamKey, TimelineLane*> kernels, copies;
        std::map<std::uint32_t, TimelineLane*> api;
        for (auto& lane : data->lanes) {
            if (!lane.overview) continue;
            lane.events = {};
            lane.correlation.clear();
            if (lane.kind == LaneKind::Kernels) kernels[{lane.deviceId, lane.laneId}] = &lane;
            if (lane.kind == LaneKind::Memcpys) copies[{lane.deviceId, lane.laneId}] = &lane;
            if (lane.kind == LaneKind::ApiCalls) api[lane.laneId] = &lane;
        }
        const TimeWindow window{beginNs, endNs};
        forEachKernel(store, base.run, window, std::nullopt, [&](const KernelRecord& k) {
            poll();
            if (auto it = kernels.find({k.deviceId, k.streamId}); it != kernels.end()) {
                it->second->events.add(k.startNs, k.endNs, label.kernel(k.name));
                it->second->correlation.push_back(k.correlationId);
            }
        });
        // Memcpys and memsets share a lane: gathered, then sorted by start.
        std::map<TimelineLane*, std::vector<std::tuple<std::int64_t, std::int64_t, std::uint32_t>>>
            transfers;
        forEachMemcpy(store, base.run, window, std::nullopt, [&](const MemcpyRecord& m) {
            poll();
            if (auto it = copies.find({m.deviceId, m.streamId}); it != copies.end())
                transfers[it->second].emplace_back(
                    m.startNs, m.endNs, label(std::string("Memcpy ") + toString(m.kind)));
        });
        forEachMemset(store, base.run, window, std::nullopt, [&](const MemsetRecord& m) {
            poll();
            if (auto it = copies.find({m.deviceId, m.streamId}); it != copies.end())
                transfers[it->second].emplace_back(m.startNs, m.endNs, label("Memset"));
        });
        for (auto& [lane, list] : transfers) {
            std::sort(list.begin(), list.end());
            for (auto [s, e, l] : list)
                lane->events.add(s, e, l);
        }
        forEachApiCall(store, base.run, window, std::nullopt, [&](const ApiCallRecord& a) {
            poll();
            if (auto it = api.find(a.threadId); it != api.end()) {
                it->second->events.add(a.startNs, a.endNs, label(a.name));
                it->second->correlation.push_back(a.correlationId);
            }
        });
        data->detail = {beginNs, endNs};
        return data;
    } catch (const load::LoadStopped&) {
        return nullptr;
    }
}

std::size_t overviewEventsIn(const TimelineData& data, std::int64_t beginNs, std::int64_t endNs) {
    std::size_t n = 0;
    for (const auto& lane : data.lanes)
        if (lane.overview) n += static_cast<std::size_t>(lane.overview->eventsIn(beginNs, endNs));
    return n;
}

std::optional<std::pair<std::int64_t, std::int64_t>> detailWindowFor(const TimelineData& data,
                                                                     std::int64_t beginNs,
                                                                     std::int64_t endNs,
                                                                     std::size_t budget) {
    if (overviewEventsIn(data, beginNs, endNs) > budget) return std::nullopt;
    // Room to pan: a view's width on each side, then half, then none.
    const std::int64_t span = std::max<std::int64_t>(endNs - beginNs, 1);
    for (std::int64_t pad : {span, span / 2, std::int64_t{0}}) {
        std::int64_t a = beginNs - pad, b = endNs + pad;
        if (pad == 0 || overviewEventsIn(data, a, b) <= budget) return std::make_pair(a, b);
    }
    return std::make_pair(beginNs, endNs);
}

}  // namespace ws::ui
