#include "viewmodels/timeline_data.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <unordered_map>

#include "analysis/kernel_summary.h"
#include "model/process_keys.h"
#include "store/run_queries.h"
#include "store/store.h"

namespace ws::ui {

namespace {

class Labels {
  public:
    explicit Labels(std::vector<std::string>& out) : out_(out) {}
    std::uint32_t operator()(const std::string& s) {
        auto [it, inserted] = ids_.try_emplace(s, static_cast<std::uint32_t>(out_.size()));
        if (inserted) out_.push_back(s);
        return it->second;
    }
    // Kernels are shown by their short demangled name, demangled once per name.
    std::uint32_t kernel(const std::string& mangled) {
        auto it = kernels_.find(mangled);
        if (it != kernels_.end()) return it->second;
        auto id = (*this)(shortKernelName(demangle(mangled)));
        kernels_.emplace(mangled, id);
        return id;
    }

  private:
    std::vector<std::string>& out_;
    std::unordered_map<std::string, std::uint32_t> ids_;
    std::unordered_map<std::string, std::uint32_t> kernels_;
};

}  // namespace

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

namespace {

// Thrown from inside a store visit once the load is to stop: a lane of
// millions of events ends within a few thousand of them, not at its end.
struct LoadStopped {};

std::shared_ptr<const TimelineData> readTimeline(Store& store, RunId run,
                                                 const std::function<bool()>& stopRequested) {
    auto data = std::make_shared<TimelineData>();
    data->run = run;
    data->firstRecordNs = runAggregates(store, run).firstNs.value_or(0);
    Labels label(data->labels);
    auto stop = [&] { return stopRequested && stopRequested(); };
    std::size_t visited = 0;
    auto poll = [&] {
        if ((++visited & 4095) == 0 && stop()) throw LoadStopped{};
    };
    data->beginNs = std::numeric_limits<std::int64_t>::max();
    data->endNs = std::numeric_limits<std::int64_t>::min();
    auto extend = [&](std::int64_t a, std::int64_t b) {
        data->beginNs = std::min(data->beginNs, a);
        data->endNs = std::max(data->endNs, b);
    };

    // Streams of several processes on one run carry their process: "pid 812
    // stream 7", CUDA's own stream number (StreamAssigner renumbers clashes).
    std::map<std::pair<std::uint32_t, std::uint32_t>, GpuStreamRecord> streamOrigins;
    std::set<std::uint32_t> gpuProcesses;
    for (const auto& g : gpuStreamsOf(store, run)) {
        streamOrigins[{g.deviceId, g.streamId}] = g;
        gpuProcesses.insert(g.processId);
    }
    // With the program's name where the recorder read it: "pid 812 worker.py".
    std::map<std::uint32_t, QString> processName;
    for (const auto& p : processesFromProperties(runProperties(store, run)))
        processName[p.pid] = QString::fromStdString(shortCommand(p.command));
    auto streamTitle = [&](const StreamKey& key) {
        auto origin = streamOrigins.find({key.deviceId, key.streamId});
        if (gpuProcesses.size() < 2 || origin == streamOrigins.end())
            return QStringLiteral("Stream %1").arg(key.streamId);
        const auto pid = origin->second.processId;
        QString name = processName.count(pid) ? processName[pid] : QString();
        return QStringLiteral("pid %1%2 stream %3")
            .arg(pid)
            .arg(name.isEmpty() ? QString() : QStringLiteral(" ") + name)
            .arg(origin->second.cudaStreamId);
    };
    for (const auto& key : runStreams(store, run)) {
        if (stop()) return nullptr;
        TimelineLane lane;
        lane.group = QStringLiteral("GPU %1").arg(key.deviceId);
        lane.title = streamTitle(key);
        lane.laneId = key.streamId;
        forEachKernel(store, run, {}, key.streamId, [&](const KernelRecord& k) {
            poll();
            if (k.deviceId != key.deviceId) return;
            lane.events.add(k.startNs, k.endNs, label.kernel(k.name));
            lane.correlation.push_back(k.correlationId);
            extend(k.startNs, k.endNs);
        });
        TimelineLane copies;
        copies.group = lane.group;
        copies.title = streamTitle(key) + QStringLiteral(" memory");
        copies.kind = LaneKind::Memcpys;
        copies.laneId = key.streamId;
        std::vector<std::tuple<std::int64_t, std::int64_t, std::uint32_t>> transfers;
        forEachMemcpy(store, run, {}, key.streamId, [&](const MemcpyRecord& m) {
            poll();
            if (m.deviceId == key.deviceId)
                transfers.emplace_back(m.startNs, m.endNs,
                                       label(std::string("Memcpy ") + toString(m.kind)));
        });
        forEachMemset(store, run, {}, key.streamId, [&](const MemsetRecord& m) {
            if (m.deviceId == key.deviceId)
                transfers.emplace_back(m.startNs, m.endNs, label("Memset"));
        });
        std::sort(transfers.begin(), transfers.end());
        for (auto [s, e, l] : transfers) {
            copies.events.add(s, e, l);
            extend(s, e);
        }
        if (lane.events.size()) data->lanes.push_back(std::move(lane));
        if (copies.events.size()) data->lanes.push_back(std::move(copies));
    }

    // NVTX ranges: one lane per thread and nesting depth.
    std::map<std::pair<std::uint32_t, int>, std::vector<RangeRecord>> byDepth;
    forEachRange(store, run, {}, std::nullopt, [&](const RangeRecord& r) {
        poll();
        if (r.kind != RangeKind::Mark) byDepth[{r.threadId, r.depth}].push_back(r);
    });
    for (auto& [key, ranges] : byDepth) {
        if (stop()) return nullptr;
        TimelineLane lane;
        lane.kind = LaneKind::Ranges;
        lane.laneId = key.first;
        lane.group =
            key.first ? QStringLiteral("Thread %1").arg(key.first) : QStringLiteral("CUDA sync");
        lane.title = QStringLiteral("NVTX %1").arg(key.second);
        std::sort(ranges.begin(), ranges.end(),
                  [](const RangeRecord& a, const RangeRecord& b) { return a.startNs < b.startNs; });
        for (const auto& r : ranges) {
            lane.events.add(r.startNs, r.endNs, label(r.name));
            extend(r.startNs, r.endNs);
        }
        data->lanes.push_back(std::move(lane));
    }
    // CUDA API calls per thread.
    std::map<std::uint32_t, TimelineLane> api;
    forEachApiCall(store, run, {}, std::nullopt, [&](const ApiCallRecord& a) {
        poll();
        auto& lane = api[a.threadId];
        if (lane.events.size() == 0) {
            lane.kind = LaneKind::ApiCalls;
            lane.laneId = a.threadId;
            lane.group = QStringLiteral("Thread %1").arg(a.threadId);
            lane.title = QStringLiteral("CUDA API");
        }
        lane.events.add(a.startNs, a.endNs, label(a.name));
        lane.correlation.push_back(a.correlationId);
    });
    for (auto& [thread, lane] : api)
        data->lanes.push_back(std::move(lane));

    for (const auto& t : tokensOf(store, run))
        data->tokenTimes.push_back(t.timeNs);
    std::sort(data->tokenTimes.begin(), data->tokenTimes.end());
    // A client-only run (bench serve against a server not recorded) has
    // tokens and nothing else: the axis spans them.
    if (!data->tokenTimes.empty()) extend(data->tokenTimes.front(), data->tokenTimes.back());

    auto samples = samplesOf(store, run);
    CounterTrack power{QStringLiteral("Power (W)"), {}, {}, 0};
    CounterTrack clock{QStringLiteral("SM clock (MHz)"), {}, {}, 0};
    for (const auto& s : samples) {
        if (s.deviceIndex != 0) continue;
        if (s.powerW) {
            power.timeNs.push_back(s.timeNs);
            power.value.push_back(*s.powerW);
            power.maxValue = std::max(power.maxValue, *s.powerW);
        }
        if (s.smClockMhz) {
            clock.timeNs.push_back(s.timeNs);
            clock.value.push_back(*s.smClockMhz);
            clock.maxValue = std::max(clock.maxValue, *s.smClockMhz);
        }
    }
    if (!power.timeNs.empty()) data->counters.push_back(std::move(power));
    if (!clock.timeNs.empty()) data->counters.push_back(std::move(clock));

    for (const auto& l : data->lanes)
        data->eventCount += l.events.size();
    if (data->beginNs > data->endNs) data->beginNs = data->endNs = 0;
    return data;
}

}  // namespace

std::shared_ptr<const TimelineData> loadTimeline(Store& store, RunId run,
                                                 const std::function<bool()>& stop) {
    try {
        return readTimeline(store, run, stop);
    } catch (const LoadStopped&) {
        return nullptr;
    }
}

}  // namespace ws::ui
