// Where warpscope-cli finds libwarpscope_inject.so and warpscope-workload, and
// the capture choices shared by every command that starts a program under
// capture (record, bench serve --server).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli_args.h"
#include "record/gpu_metrics_sampler.h"

namespace ws::cli {

// $WARPSCOPE_INJECT_LIBRARY, else beside this binary (installed:
// ../lib/warpscope/, build tree: ../core/capture/); empty when there is none.
std::string findInjectLibrary();
// The program `name` in this binary's folder; empty when it is not there.
std::string findBesideSelf(const std::string& name);

// The collector's settings from --graph-trace node|graph (CUDA graphs per node,
// each kernel traced to its capture, or one record per graph launch),
// --all-apis (state-reading calls traced too, model/query_calls.h) and
// --capture-range none|cudaProfilerApi (the whole run, or only between the
// program's cudaProfilerStart and Stop, capture/capture_windows.h): the
// environment it reads, and the run's capture.graph_trace, capture.query_calls
// ("traced" / "left out") and capture.range ("whole run" / "cudaProfilerApi").
// Throws UsageError on a bad value.
void applyCaptureChoices(const Args& args, std::vector<std::string>& env,
                         std::vector<std::pair<std::string, std::string>>& properties);
// --gpu-metrics (model/gpu_metrics.h's default set), --gpu-metrics-set
// NAME,... (CUPTI PM-sampling metric names; implies --gpu-metrics) and
// --gpu-metrics-hz N (10 to 100000, default 10000): the sampler's request and
// the run's capture.gpu_metrics / capture.gpu_metrics_hz properties; none
// without them. Throws UsageError on a bad value.
std::optional<GpuMetricsRequest> gpuMetricsChoice(
    const Args& args, std::vector<std::pair<std::string, std::string>>& properties);
// The option names gpuMetricsChoice reads: one flag, then the valued ones.
inline constexpr const char* kGpuMetricsFlag = "gpu-metrics";
inline constexpr const char* kGpuMetricsValues[] = {"gpu-metrics-set", "gpu-metrics-hz"};

// --pc-sampling [--pc-sampling-period N] (a sample every 2^N cycles per SM,
// 5..31; CUPTI's default without it): the collector's environment and the
// run's capture.pc_sampling property; nothing without them. Throws UsageError
// on a bad value.
void pcSamplingChoice(const Args& args, std::vector<std::string>& env,
                      std::vector<std::pair<std::string, std::string>>& properties);
inline constexpr const char* kPcSamplingFlag = "pc-sampling";
inline constexpr const char* kPcSamplingPeriod = "pc-sampling-period";

// Whether --capture-range asks for windows (anything but its default, none).
bool windowedCapture(const Args& args);

}  // namespace ws::cli
