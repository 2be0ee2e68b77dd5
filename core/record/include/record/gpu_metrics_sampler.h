// GPU metrics over time for a recording (record --gpu-metrics): loads
// libwarpscope_gpu_metrics.so (model/gpu_metrics.h) with dlopen, starts it
// before the program and hands its series to the recording as they decode.
// Without the module, a driver or a GPU that can be sampled it says why in
// one line and the recording goes on without them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/records.h"

namespace ws {

struct GpuMetricsRequest {
    std::string modulePath;            // libwarpscope_gpu_metrics.so
    std::vector<std::string> metrics;  // CUPTI names; empty: gpu_metrics::kDefault
    std::int64_t intervalNs = 0;       // 0: gpu_metrics::kDefaultIntervalNs
};

class GpuMetricsSampler {
  public:
    // Starts sampling; lines for the run's log (metrics left out, why nothing
    // is sampled) go to `say`, now and with each take().
    GpuMetricsSampler(const GpuMetricsRequest& request, std::function<void(std::string)> say);
    ~GpuMetricsSampler();
    GpuMetricsSampler(const GpuMetricsSampler&) = delete;
    GpuMetricsSampler& operator=(const GpuMetricsSampler&) = delete;

    bool sampling() const { return handle_ != nullptr; }
    // What was decoded since the last call, times in Unix nanoseconds.
    std::vector<GpuMetricSeries> take();
    // Stops sampling and returns what the GPU still held.
    std::vector<GpuMetricSeries> stop();

  private:
    std::function<void(std::string)> say_;
    void* module_ = nullptr;
    void* handle_ = nullptr;
    void* take_ = nullptr;
    void* stop_ = nullptr;
};

}  // namespace ws
