#include "viewmodels/timeline_load_parts.h"

#include <algorithm>
#include <compare>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "analysis/engine_step_sol.h"
#include "analysis/kernel_summary.h"
#include "analysis/nvlink_rates.h"
#include "model/gpu_metrics.h"
#include "model/process_keys.h"
#include "store/run_queries.h"
#include "store/store.h"

namespace ws::ui::load {

Labels::Labels(std::vector<std::string>& out) : out_(out) {
    for (std::size_t i = 0; i < out_.size(); ++i)
        ids_.try_emplace(out_[i], static_cast<std::uint32_t>(i));
}

std::uint32_t Labels::operator()(const std::string& s) {
    auto [it, inserted] = ids_.try_emplace(s, static_cast<std::uint32_t>(out_.size()));
    if (inserted) out_.push_back(s);
    return it->second;
}

std::uint32_t Labels::kernel(const std::string& mangled) {
    auto it = kernels_.find(mangled);
    if (it != kernels_.end()) return it->second;
    auto id = (*this)(shortKernelName(demangle(mangled)));
    kernels_.emplace(mangled, id);
    return id;
}

StreamTitles::StreamTitles(Store& store, RunId run) {
    // Streams of several processes on one run carry their process: "pid 812
    // stream 7", CUDA's own stream number (StreamAssigner renumbers clashes).
    std::set<std::uint32_t> processes;
    for (const auto& g : gpuStreamsOf(store, run)) {
        origins_[{g.deviceId, g.streamId}] = g;
        processes.insert(g.processId);
    }
    gpuProcesses_ = processes.size();
    // With the program's name where the recorder read it: "pid 812 worker.py";
    // a rank of a distributed job gets a lane group of its own.
    for (const auto& p : processesFromProperties(runProperties(store, run))) {
        QString name = QString::fromStdString(shortCommand(p.command));
        processName_[p.pid] = name;
        if (p.rank >= 0) rankOf_[p.pid] = p.rank;
    }
}

QString StreamTitles::operator()(const StreamKey& key) const {
    auto origin = origins_.find({key.deviceId, key.streamId});
    if (gpuProcesses_ < 2 || origin == origins_.end())
        return QStringLiteral("Stream %1").arg(key.streamId);
    const auto pid = origin->second.processId;
    auto name = processName_.find(pid);
    return QStringLiteral("pid %1%2 stream %3")
        .arg(pid)
        .arg(name == processName_.end() || name->second.isEmpty()
                 ? QString()
                 : QStringLiteral(" ") + name->second)
        .arg(origin->second.cudaStreamId);
}

QString StreamTitles::group(const StreamKey& key) const {
    QString gpu = QStringLiteral("GPU %1").arg(key.deviceId);
    auto origin = origins_.find({key.deviceId, key.streamId});
    if (origin == origins_.end()) return gpu;
    auto rank = rankOf_.find(origin->second.processId);
    return rank == rankOf_.end() ? gpu : gpu + QStringLiteral(" · rank %1").arg(rank->second);
}

TimelineLane kernelLane(const StreamKey& key, const StreamTitles& titles) {
    TimelineLane lane;
    lane.group = titles.group(key);
    lane.title = titles(key);
    lane.laneId = key.streamId;
    lane.deviceId = key.deviceId;
    return lane;
}

TimelineLane memoryLane(const StreamKey& key, const StreamTitles& titles) {
    TimelineLane lane = kernelLane(key, titles);
    lane.title += QStringLiteral(" memory");
    lane.kind = LaneKind::Memcpys;
    return lane;
}

TimelineLane apiLane(std::uint32_t thread) {
    TimelineLane lane;
    lane.kind = LaneKind::ApiCalls;
    lane.laneId = thread;
    lane.group = QStringLiteral("Thread %1").arg(thread);
    lane.title = QStringLiteral("CUDA API");
    return lane;
}

void readKernels(Store& store, RunId run, TimeWindow window, TimelineLane& lane, Labels& label,
                 Poll& poll, Extent& extent) {
    forEachKernel(store, run, window, lane.laneId, [&](const KernelRecord& k) {
        poll();
        if (k.deviceId != lane.deviceId) return;
        lane.events.add(k.startNs, k.endNs, label.kernel(k.name));
        lane.correlation.push_back(k.correlationId);
        extent(k.startNs, k.endNs);
    });
}

void readCopies(Store& store, RunId run, TimeWindow window, TimelineLane& lane, Labels& label,
                Poll& poll, Extent& extent) {
    std::vector<std::tuple<std::int64_t, std::int64_t, std::uint32_t>> transfers;
    forEachMemcpy(store, run, window, lane.laneId, [&](const MemcpyRecord& m) {
        poll();
        if (m.deviceId == lane.deviceId)
            transfers.emplace_back(m.startNs, m.endNs,
                                   label(std::string("Memcpy ") + toString(m.kind)));
    });
    forEachMemset(store, run, window, lane.laneId, [&](const MemsetRecord& m) {
        poll();
        if (m.deviceId == lane.deviceId)
            transfers.emplace_back(m.startNs, m.endNs, label("Memset"));
    });
    std::sort(transfers.begin(), transfers.end());
    for (auto [s, e, l] : transfers) {
        lane.events.add(s, e, l);
        extent(s, e);
    }
}

void addRangeLanes(Store& store, RunId run, TimelineData& data, Labels& label, Poll& poll,
                   Extent& extent) {
    static const std::string kSyncDomain = "CUDA synchronization";  // cupti_records.cpp
    // Per thread and depth; process-wide ranges (thread 0: CUDA's waits, a
    // recording's capture windows) per domain, each a lane of its own.
    struct Key {
        std::uint32_t thread;
        int depth;
        std::string domain;
        auto operator<=>(const Key&) const = default;
    };
    std::map<Key, std::vector<RangeRecord>> byLane;
    std::vector<EngineStep> steps;
    forEachRange(store, run, {}, std::nullopt, [&](const RangeRecord& r) {
        poll();
        if (r.kind == RangeKind::Mark) return;
        if (auto step = engineStepOf(r)) steps.push_back(*step);
        if (r.threadId) {
            byLane[{r.threadId, r.depth, {}}].push_back(r);
        } else {
            // Nesting is per thread; process-wide ranges of other domains
            // (capture windows) do not nest, one lane each.
            const bool waits = r.domain == kSyncDomain;
            byLane[{0, waits ? r.depth : 0, r.domain}].push_back(r);
        }
    });
    for (auto& [key, ranges] : byLane) {
        if (poll.stopped()) throw LoadStopped{};
        TimelineLane lane;
        lane.kind = LaneKind::Ranges;
        lane.laneId = key.thread;
        if (key.thread) {
            lane.group = QStringLiteral("Thread %1").arg(key.thread);
            lane.title = QStringLiteral("NVTX %1").arg(key.depth);
        } else if (key.domain == kSyncDomain) {
            lane.group = QStringLiteral("CUDA sync");
            lane.title = QStringLiteral("NVTX %1").arg(key.depth);
        } else {
            lane.group =
                key.domain.empty() ? QStringLiteral("Process") : QString::fromStdString(key.domain);
            lane.title = QStringLiteral("ranges");
        }
        std::sort(ranges.begin(), ranges.end(),
                  [](const RangeRecord& a, const RangeRecord& b) { return a.startNs < b.startNs; });
        for (const auto& r : ranges) {
            lane.events.add(r.startNs, r.endNs, label(r.name));
            extent(r.startNs, r.endNs);
        }
        data.lanes.push_back(std::move(lane));
    }
    if (auto cost = declaredEngineStepCost(runProperties(store, run)))
        addStepSolTrack(steps, *cost, data);
}

namespace {

void addPoint(CounterTrack& track, std::int64_t timeNs, double value) {
    track.timeNs.push_back(timeNs);
    track.value.push_back(value);
    track.maxValue = std::max(track.maxValue, value);
}

}  // namespace

// Each engine step's SOL % held over the step (its floor over its time,
// docs/serving.md "Speed of light"), on a 0-100 scale so tracks of two runs
// read alike (a step above 100 %, where the declared costs overstate the
// work, widens it); steps whose range names no attention work have no point.
void addStepSolTrack(std::vector<EngineStep> steps, const EngineStepCost& cost,
                     TimelineData& data) {
    std::sort(steps.begin(), steps.end(),
              [](const EngineStep& a, const EngineStep& b) { return a.startNs < b.startNs; });
    CounterTrack sol{QStringLiteral("Engine step SOL (%)"), {}, {}, 0};
    std::int64_t reached = std::numeric_limits<std::int64_t>::min();
    for (const auto& s : steps) {
        auto floor = engineStepFloor(s, cost);
        // A step overlapping the one before (a second engine) is left out: a
        // track holds one value at a time.
        if (!floor || s.endNs <= s.startNs || s.startNs < reached) continue;
        reached = s.endNs;
        const double percent = 100 * floor->total() / double(s.endNs - s.startNs);
        addPoint(sol, s.startNs, percent);
        addPoint(sol, s.endNs, percent);
    }
    if (sol.timeNs.empty()) return;
    sol.maxValue = std::max(sol.maxValue, 100.0);
    data.counters.push_back(std::move(sol));
}

// Power and SM clock of each GPU the run kept busy (a one-GPU run on an
// eight-GPU server gets no idle GPUs' tracks), and the NVLink rate (both
// directions) of those GPUs where NVML counts NVLink traffic and the run moved
// data over it or spans several GPUs (flat zero then says the collectives did
// not use NVLink). GPU numbers are NVML's, as the samples hold them.
void addDeviceCounters(const std::vector<SampleRecord>& samples, TimelineData& data) {
    const auto nvlink = nvlinkRates(samples);
    const auto shown = busyDevices(samples, nvlink);
    const bool several = shown.size() > 1;
    auto title = [&](std::uint32_t device, const char* what) {
        const QString t = QString::fromUtf8(what);
        return several ? QStringLiteral("GPU %1 %2").arg(device).arg(t) : t;
    };
    for (auto device : shown) {
        CounterTrack power{title(device, "Power (W)"), {}, {}, 0};
        CounterTrack clock{title(device, "SM clock (MHz)"), {}, {}, 0};
        for (const auto& s : samples) {
            if (s.deviceIndex != device) continue;
            if (s.powerW) addPoint(power, s.timeNs, *s.powerW);
            if (s.smClockMhz) addPoint(clock, s.timeNs, *s.smClockMhz);
        }
        for (auto* track : {&power, &clock})
            if (!track->timeNs.empty()) data.counters.push_back(std::move(*track));
        auto rates = nvlink.find(device);
        if (rates == nvlink.end() || rates->second.points.empty()) continue;
        const auto& r = rates->second;
        if (!several && r.txBytes == 0 && r.rxBytes == 0) continue;
        // Both directions in one track, as NVIDIA quotes NVLink bandwidth
        // (H100/H200: 900 GB/s), so one GPU costs one more row, not two;
        // each direction is in the report and the Chrome trace. A rate holds
        // over its interval: drawn from the interval's start to its end.
        CounterTrack link{title(device, "NVLink tx+rx (GB/s)"), {}, {}, 0};
        for (const auto& p : r.points)
            addPoint(link, p.startNs, (p.txBytesPerS + p.rxBytesPerS) / 1e9);
        addPoint(link, r.points.back().endNs, link.value.back());
        data.counters.push_back(std::move(link));
    }
}

void addGpuMetricTracks(const std::vector<GpuMetricSeries>& series, TimelineData& data) {
    std::set<std::uint32_t> devices;
    std::vector<const GpuMetricSeries*> ordered;
    for (const auto& s : series) {
        devices.insert(s.deviceIndex);
        ordered.push_back(&s);
    }
    std::stable_sort(ordered.begin(), ordered.end(), [](const auto* a, const auto* b) {
        return std::pair(a->deviceIndex, gpu_metrics::displayRank(a->metric)) <
               std::pair(b->deviceIndex, gpu_metrics::displayRank(b->metric));
    });
    for (const auto* one : ordered) {
        const auto& s = *one;
        if (s.samples.empty()) continue;
        const auto name = gpu_metrics::describe(s.metric);
        QString title = QString::fromStdString(gpu_metrics::title(s.metric));
        if (devices.size() > 1) title = QStringLiteral("GPU %1 %2").arg(s.deviceIndex).arg(title);
        CounterTrack track{title, {}, {}, 0};
        track.timeNs.reserve(s.samples.size() + 1);
        track.value.reserve(s.samples.size() + 1);
        for (const auto& sample : s.samples)
            addPoint(track, sample.startNs, sample.value * name.scale);
        addPoint(track, s.samples.back().endNs, track.value.back());
        // Percentages on their own scale, so 30 % reads as 30 % of the row.
        if (name.unit == "%") track.maxValue = 100;
        track.underGpuLanes = true;
        data.counters.push_back(std::move(track));
    }
}

void addTokensAndCounters(Store& store, RunId run, TimelineData& data, Extent& extent) {
    for (const auto& t : tokensOf(store, run))
        data.tokenTimes.push_back(t.timeNs);
    std::sort(data.tokenTimes.begin(), data.tokenTimes.end());
    // A client-only run (bench serve against a server not recorded) has
    // tokens and nothing else: the axis spans them.
    if (!data.tokenTimes.empty()) extent(data.tokenTimes.front(), data.tokenTimes.back());

    addDeviceCounters(samplesOf(store, run), data);
    addGpuMetricTracks(gpuMetricsOf(store, run), data);
}

}  // namespace ws::ui::load
