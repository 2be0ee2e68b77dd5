// One run's timeline in memory: a LaneIndex per lane (kernels and copies per
// stream, NVTX ranges per thread and depth, API calls per thread), token
// marks and device-sample counter tracks. Built off the GUI thread.
//
// A run of more events than TimelineLoadOptions::residentEvents is paged:
// its GPU and API lanes hold an overview of the whole run (the store's
// chunks, lod::CoarseLane) and their single events only for one window,
// loaded when the view zooms into a part holding fewer than that many
// (loadTimelineDetail). NVTX ranges, tokens and counters are always whole.
#pragma once

#include <QString>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lod/coarse_lane.h"
#include "lod/lane_index.h"
#include "model/records.h"

namespace ws {
class Store;
}

namespace ws::ui {

enum class LaneKind { Kernels, Memcpys, Ranges, ApiCalls };

struct TimelineLane {
    QString title;
    QString group;  // "GPU 0", "Thread 4242"
    LaneKind kind = LaneKind::Kernels;
    std::uint32_t laneId = 0;    // stream or thread id
    std::uint32_t deviceId = 0;  // of a stream's lanes
    lod::LaneIndex events;
    // Paged runs: the lane over the whole run; `events` then holds only
    // TimelineData::detail's. Null for lanes that are always whole.
    std::shared_ptr<const lod::CoarseLane> overview;
    // Kernel and API lanes: the CUPTI correlation id of each event, which
    // ties a kernel to the call that launched it.
    std::vector<std::uint32_t> correlation;
    // The run the lane's events belong to (0: TimelineData::run) and how far
    // they were moved to align with another run (stacked timelines).
    RunId run = 0;
    std::int64_t shiftNs = 0;
};

struct CounterTrack {
    QString title;  // "Power (W)"
    std::vector<std::int64_t> timeNs;
    std::vector<double> value;
    double maxValue = 0;
    // GPU metrics (record --gpu-metrics) are read against the kernels they
    // sampled: drawn right under the GPU lanes, not in the block above them.
    bool underGpuLanes = false;
};

struct TimelineData {
    RunId run = 0;
    std::vector<std::string> labels;  // LaneIndex labels index this
    std::vector<TimelineLane> lanes;
    std::vector<std::int64_t> tokenTimes;
    std::vector<CounterTrack> counters;
    std::int64_t beginNs = 0, endNs = 0;
    // The run's first stored event (RunAggregates::firstNs): what FROM:TO
    // windows count from, so a span selected here becomes one.
    std::int64_t firstRecordNs = 0;
    std::size_t eventCount = 0;  // in the run, loaded or not
    // Paged runs: lanes with an overview hold events within `detail` only
    // (nullopt: none loaded yet). `paged` false: everything is loaded.
    bool paged = false;
    std::optional<std::pair<std::int64_t, std::int64_t>> detail;
};

// How many events a lane stands for: its overview's when it has one.
std::size_t laneEventCount(const TimelineLane& lane);
// Whether lanes with an overview show single events over [beginNs, endNs).
bool detailCovers(const TimelineData& data, std::int64_t beginNs, std::int64_t endNs);

// The API call (lane, event) with the kernel's correlation id, searched among
// calls within kLaunchSearchWindowNs of the kernel; {-1, -1} when none.
std::pair<int, long> launchingCall(const TimelineData& data, int kernelLane, long kernelEvent);
// The reverse: the kernels an API call launched, (lane, event) in time order:
// one for cudaLaunchKernel, every kernel of the graph for cudaGraphLaunch.
std::vector<std::pair<int, long>> launchedKernels(const TimelineData& data, int callLane,
                                                  long callEvent);

struct TimelineLoadOptions {
    // Above this many GPU and API events a run is paged: 8 M events are
    // about 230 MB of lanes.
    std::size_t residentEvents = 8'000'000;
};

// Reads everything the timeline shows (of a paged run: its overview).
// `stop` is polled between lanes and every few thousand events; once it
// says so, the load ends and returns null.
std::shared_ptr<const TimelineData> loadTimeline(Store& store, RunId run,
                                                 const std::function<bool()>& stop = {},
                                                 const TimelineLoadOptions& options = {});
// A paged timeline with the single events of [beginNs, endNs): `base`'s
// lanes, overviews, ranges, tokens and counters, its events replaced.
std::shared_ptr<const TimelineData> loadTimelineDetail(Store& store, const TimelineData& base,
                                                       std::int64_t beginNs, std::int64_t endNs,
                                                       const std::function<bool()>& stop = {});
// The window to load for a view [beginNs, endNs) of a paged timeline: the
// view widened on both sides while the overviews say it holds at most
// `budget` events; nullopt when the view alone holds more.
std::optional<std::pair<std::int64_t, std::int64_t>> detailWindowFor(const TimelineData& data,
                                                                     std::int64_t beginNs,
                                                                     std::int64_t endNs,
                                                                     std::size_t budget);
// Events the overviews put in [beginNs, endNs) (an upper bound).
std::size_t overviewEventsIn(const TimelineData& data, std::int64_t beginNs, std::int64_t endNs);

}  // namespace ws::ui
