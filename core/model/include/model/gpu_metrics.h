// The GPU performance-monitor metrics `record --gpu-metrics` samples by
// default, with the names and units a user reads (timeline tracks, summary,
// report), and the C interface of the sampling module
// (libwarpscope_gpu_metrics.so, built where CUDA is; loaded by the recorder
// with dlopen so the recorder itself never links CUDA).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ws::gpu_metrics {

struct MetricName {
    std::string_view cupti;  // CUPTI's metric name
    std::string_view label;  // what a user reads, e.g. "SM active"
    std::string_view unit;   // "%" or "GB/s"
    double scale;            // CUPTI's value times this is in `unit`
};

// What a kernel engineer reads first (Nsight Systems' GPU metrics rows), each
// one CUPTI PM-sampling pass on Hopper. L2 hit rate needs two passes there and
// cannot be sampled; L2 traffic can. NVLink rows are kept where the GPU has
// NVLink counters and dropped, with a line in the run's log, where it has not.
inline constexpr MetricName kDefault[] = {
    {"sm__cycles_active.avg.pct_of_peak_sustained_elapsed", "SM active", "%", 1},
    {"sm__warps_active_realtime.avg.pct_of_peak_sustained_elapsed", "Warps resident", "%", 1},
    {"sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed",
     "Tensor pipe active", "%", 1},
    {"dram__bytes_read.sum.per_second", "DRAM read", "GB/s", 1e-9},
    {"dram__bytes_write.sum.per_second", "DRAM write", "GB/s", 1e-9},
    {"lts__t_bytes.sum.per_second", "L2 traffic", "GB/s", 1e-9},
    {"pcie__read_bytes.sum.per_second", "PCIe read", "GB/s", 1e-9},
    {"pcie__write_bytes.sum.per_second", "PCIe write", "GB/s", 1e-9},
    {"nvlrx__bytes.sum.per_second", "NVLink received", "GB/s", 1e-9},
    {"nvltx__bytes.sum.per_second", "NVLink sent", "GB/s", 1e-9},
};

// The default's entry for `cupti`, or a generic one (the name itself, no unit,
// scale 1) for a metric the user named.
MetricName describe(std::string_view cupti);
// What a track, column or counter is called: "SM active (%)", or the CUPTI
// name of a metric without a unit.
std::string title(std::string_view cupti);
// Where `cupti` comes when metrics are listed: the default set's order, then
// others (by name, at the caller's choice).
std::size_t displayRank(std::string_view cupti);

inline constexpr std::int64_t kDefaultIntervalNs = 100'000;  // 10 kHz
// 100 kHz: Hopper's hardware buffer fills faster than a decode thread empties
// it much above that (tens of KB per sample).
inline constexpr std::int64_t kShortestIntervalNs = 10'000;

}  // namespace ws::gpu_metrics

// The module's C interface. Version 1.
extern "C" {
// Receives one series: `count` samples of metric `metric` on GPU `device`
// (CUDA ordinal), times in Unix nanoseconds.
typedef void (*ws_gpu_metrics_series_fn)(void* context, unsigned device, const char* metric,
                                         std::size_t count, const std::int64_t* startNs,
                                         const std::int64_t* endNs, const double* values);
// Receives one line for the run's log (a metric dropped, an overflow).
typedef void (*ws_gpu_metrics_say_fn)(void* context, const char* line);

typedef int (*ws_gpu_metrics_abi_fn)(void);
// Starts sampling the comma-separated `metrics` on every GPU this process
// sees, every `interval_ns`. Returns a handle, or null (with why through
// `say`) when no GPU can be sampled.
typedef void* (*ws_gpu_metrics_start_fn)(const char* metrics, std::int64_t interval_ns,
                                         ws_gpu_metrics_say_fn say, void* context);
// Hands over what was decoded since the last call; lines through `say`.
typedef void (*ws_gpu_metrics_take_fn)(void* handle, ws_gpu_metrics_series_fn each,
                                       ws_gpu_metrics_say_fn say, void* context);
// Stops sampling and decodes what the GPU still holds (take it after), or
// frees the handle when `release` is nonzero (after a stop and a take).
typedef void (*ws_gpu_metrics_stop_fn)(void* handle, int release);
}

namespace ws::gpu_metrics {
inline constexpr int kAbiVersion = 1;
inline constexpr const char* kModuleName = "libwarpscope_gpu_metrics.so";
}  // namespace ws::gpu_metrics
