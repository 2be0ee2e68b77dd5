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
#include "record/recorder.h"

namespace ws::cli {

// $WARPSCOPE_INJECT_LIBRARY, else beside this binary (installed:
// ../lib/warpscope/, build tree: ../core/capture/); empty when there is none.
std::string findInjectLibrary();
// The program `name` in this binary's folder; empty when it is not there.
std::string findBesideSelf(const std::string& name);

// The collector's settings, shared by record and bench serve --server:
//   --capture default|lean: which records a recording keeps. lean is what
//     torch.profiler's CUDA-only mode keeps (kernels, copies, memsets,
//     runtime API calls, NVTX ranges): no driver API calls, no
//     synchronization or overhead records, no device samples unless
//     --sample-ms asks for them (capture.set);
//   --no-driver-api (driver API calls left out, as lean does);
//   --graph-trace node|graph (CUDA graphs per node, each kernel traced to its
//     capture, or one record per graph launch; capture.graph_trace);
//   --all-apis (state-reading calls traced too, model/query_calls.h;
//     capture.query_calls "traced" / "left out"; not with lean);
//   --capture-range none|cudaProfilerApi (the whole run, or only between the
//     program's cudaProfilerStart and Stop, capture/capture_windows.h;
//     capture.range "whole run" / "cudaProfilerApi");
//   --sample-ms N (device samples every N ms, 0 none; capture.sample_ms).
// Sets the request's environment, properties and sample interval. Throws
// UsageError on a bad value or a contradiction.
void applyCaptureChoices(const Args& args, RecordRequest& request);
// The option names applyCaptureChoices reads: flags, then the valued ones.
inline constexpr const char* kCaptureFlags[] = {"no-driver-api", "all-apis"};
inline constexpr const char* kCaptureValues[] = {"capture", "graph-trace", "capture-range",
                                                 "sample-ms"};
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
// 5..31; 2^13 without it, model/pc_sampling.h): the collector's environment and the
// run's capture.pc_sampling property; nothing without them. Throws UsageError
// on a bad value.
void pcSamplingChoice(const Args& args, std::vector<std::string>& env,
                      std::vector<std::pair<std::string, std::string>>& properties);
inline constexpr const char* kPcSamplingFlag = "pc-sampling";
inline constexpr const char* kPcSamplingPeriod = "pc-sampling-period";

// Whether --capture-range asks for windows (anything but its default, none).
bool windowedCapture(const Args& args);

}  // namespace ws::cli
