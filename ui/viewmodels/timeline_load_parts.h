// Pieces shared by the whole-run timeline load (timeline_data.cpp) and the
// paged one (timeline_paging.cpp): label interning, lane titles, and the
// readers that fill lanes from the store.
#pragma once

#include <functional>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/engine_step_sol.h"
#include "store/run_queries.h"
#include "viewmodels/timeline_data.h"

namespace ws::ui::load {

class Labels {
  public:
    // Continues `out` (ids of labels already there stay valid).
    explicit Labels(std::vector<std::string>& out);
    std::uint32_t operator()(const std::string& s);
    // Kernels are shown by their short demangled name, demangled once per name.
    std::uint32_t kernel(const std::string& mangled);

  private:
    std::vector<std::string>& out_;
    std::unordered_map<std::string, std::uint32_t> ids_;
    std::unordered_map<std::string, std::uint32_t> kernels_;
};

// Thrown from inside a store visit once the load is to stop: a lane of
// millions of events ends within a few thousand of them, not at its end.
struct LoadStopped {};

// Polled per event: asks `stop` every 4096 calls and throws LoadStopped.
class Poll {
  public:
    explicit Poll(const std::function<bool()>& stop) : stop_(stop) {}
    void operator()() {
        if ((++visited_ & 4095) == 0 && stopped()) throw LoadStopped{};
    }
    bool stopped() const { return stop_ && stop_(); }

  private:
    const std::function<bool()>& stop_;
    std::size_t visited_ = 0;
};

// The time the data's events span, grown record by record.
struct Extent {
    std::int64_t beginNs = std::numeric_limits<std::int64_t>::max();
    std::int64_t endNs = std::numeric_limits<std::int64_t>::min();
    void operator()(std::int64_t a, std::int64_t b) {
        beginNs = std::min(beginNs, a);
        endNs = std::max(endNs, b);
    }
};

// "Stream 7", or with several processes on the GPU "pid 812 worker.py stream
// 7"; the group "GPU 0", or "GPU 0 · rank 1" for a rank of a distributed job.
class StreamTitles {
  public:
    StreamTitles(Store& store, RunId run);
    QString operator()(const StreamKey& key) const;
    QString group(const StreamKey& key) const;

  private:
    std::map<std::pair<std::uint32_t, std::uint32_t>, GpuStreamRecord> origins_;
    std::size_t gpuProcesses_ = 0;
    std::map<std::uint32_t, QString> processName_;
    std::map<std::uint32_t, int> rankOf_;
};

// The kernel lane and the memory lane (memcpys and memsets) of a stream.
TimelineLane kernelLane(const StreamKey& key, const StreamTitles& titles);
TimelineLane memoryLane(const StreamKey& key, const StreamTitles& titles);
TimelineLane apiLane(std::uint32_t thread);

// Fill a lane with its events overlapping `window`, in start order.
void readKernels(Store& store, RunId run, TimeWindow window, TimelineLane& lane, Labels& label,
                 Poll& poll, Extent& extent);
void readCopies(Store& store, RunId run, TimeWindow window, TimelineLane& lane, Labels& label,
                Poll& poll, Extent& extent);

// NVTX ranges of the whole run: one lane per thread and nesting depth.
void addRangeLanes(Store& store, RunId run, TimelineData& data, Labels& label, Poll& poll,
                   Extent& extent);
// Token marks and the device sample tracks (addDeviceCounters).
void addTokensAndCounters(Store& store, RunId run, TimelineData& data, Extent& extent);
// Counter tracks from device samples (time order): power, SM clock and
// NVLink rate of each GPU the run kept busy (analysis/nvlink_rates.h).
void addDeviceCounters(const std::vector<SampleRecord>& samples, TimelineData& data);
// A counter track per GPU metric series (record --gpu-metrics), in the
// units of model/gpu_metrics.h; percentages scaled to 100.
void addGpuMetricTracks(const std::vector<GpuMetricSeries>& series, TimelineData& data);
void addStepSolTrack(std::vector<EngineStep> steps, const EngineStepCost& cost, TimelineData& data);

}  // namespace ws::ui::load
