// One run's timeline in memory: a LaneIndex per lane (kernels and copies per
// stream, NVTX ranges per thread and depth, API calls per thread), token
// marks and device-sample counter tracks. Built off the GUI thread.
#pragma once

#include <QString>
#include <functional>
#include <memory>
#include <string>
#include <vector>

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
    std::uint32_t laneId = 0;  // stream or thread id
    lod::LaneIndex events;
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
    std::size_t eventCount = 0;
};

// The API call (lane, event) with the kernel's correlation id, searched among
// calls within kLaunchSearchWindowNs of the kernel; {-1, -1} when none.
std::pair<int, long> launchingCall(const TimelineData& data, int kernelLane, long kernelEvent);
// The reverse: the kernels an API call launched, (lane, event) in time order:
// one for cudaLaunchKernel, every kernel of the graph for cudaGraphLaunch.
std::vector<std::pair<int, long>> launchedKernels(const TimelineData& data, int callLane,
                                                  long callEvent);

// Reads everything the timeline shows. `stop` is polled between lanes and
// every few thousand events; once it says so, the load ends and returns null.
std::shared_ptr<const TimelineData> loadTimeline(Store& store, RunId run,
                                                 const std::function<bool()>& stop = {});

}  // namespace ws::ui
