// GPU performance-monitor samples (record --gpu-metrics) summarised over a
// stretch of the timeline: the whole run, the executions of one kernel, an
// NVTX range or engine step. A sample covers an interval (100 µs at 10 kHz)
// that may hold more than the stretch: each counts with the time it shares
// with it, so a 3 µs kernel inside a 100 µs sample weighs 3 µs and the sample
// still tells the GPU's state around it, not the kernel's alone (`spanShare`
// says how much of the samples' time was the stretch's).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/records.h"

namespace ws {

class Store;

struct GpuMetricStats {
    std::uint32_t deviceIndex = 0;
    std::string metric;        // CUPTI's name; model/gpu_metrics.h names and scales it
    std::int64_t samples = 0;  // samples that overlap the stretch
    std::int64_t overlapNs = 0;
    double spanShare = 0;                        // overlapNs over the samples' whole time
    double mean = 0, p50 = 0, p99 = 0, max = 0;  // weighted by overlap; CUPTI's units
};

struct TimeSpan {
    std::int64_t beginNs = 0, endNs = 0;
};

// Each series over the union of `spans` (any order, may overlap); a series
// with no sample inside them is left out. `device` keeps only that GPU's.
std::vector<GpuMetricStats> summarizeGpuMetrics(const std::vector<GpuMetricSeries>& series,
                                                std::vector<TimeSpan> spans,
                                                std::optional<std::uint32_t> device = std::nullopt);

enum class GpuMetricGrouping { Run, Kernel, Range };

struct GpuMetricGroup {
    std::string name;                          // kernel or range name; "run" for the whole run
    std::optional<std::uint32_t> deviceIndex;  // a kernel's GPU; ranges: every GPU
    std::int64_t count = 0;                    // executions or ranges
    std::int64_t totalNs = 0;                  // their time, overlaps counted once
    std::vector<GpuMetricStats> stats;
};

struct GpuMetricReport {
    std::vector<GpuMetricSeries> series;  // as stored
    std::int64_t samplePeriodNs = 0;      // median sample length
    std::vector<GpuMetricGroup> groups;   // by total time, longest first
};

// The run's samples grouped: the whole run (from its first to its last
// sample), each kernel name on its GPU, or each NVTX range name (its host
// interval: an engine step's or a synchronous range's GPU work lies inside
// it). At most `top` groups. Empty series: the run sampled nothing.
GpuMetricReport gpuMetricReport(Store& store, std::int64_t run, GpuMetricGrouping by,
                                std::size_t top);
// The same from series already read (gpuMetricsOf).
GpuMetricReport gpuMetricReport(Store& store, std::int64_t run, GpuMetricGrouping by,
                                std::size_t top, std::vector<GpuMetricSeries> series);
// Every launch of kernel `name` on GPU `device` (gpuMetricReport's Kernel
// group of it alone): nothing without samples overlapping them.
std::optional<GpuMetricGroup> gpuMetricsOfKernel(Store& store, std::int64_t run,
                                                 const std::string& name, std::uint32_t device);

}  // namespace ws
