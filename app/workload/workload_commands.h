// The subcommands of warpscope-workload, the built-in workload runner that
// warpscope-cli record launches with the capture library injected.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config/workload_config.h"
#include "serving/backend.h"
#include "serving/engine_config.h"

namespace ws::workload {

// CUDA builds (gpu_commands.cpp), else a message that CUDA is missing
// (no_gpu_commands.cpp).
int gpuCommand(const std::string& command, bool quick);  // list, bench
int runGpuWorkload(const WorkloadConfig& config);        // a kernel or decoder config
// Times `launches` launches of an empty kernel, each after `queriesPerLaunch`
// cudaGetDevice calls, following untimed warm-up launches; prints
// "LAUNCH_LOOP_NS <ns> LAUNCHES <n> QUERIES_PER_LAUNCH <q> WARM_UP_LAUNCHES
// <w>" (what record's capture-cost calibration reads).
int launchCostCommand(int launches, int queriesPerLaunch);

// CUDA builds only.
int benchCommand(bool quick);
int runDecoderWorkload(const WorkloadConfig& config);

// The serving engine's GPU backend for a [decoder] table (gpu_serve.cpp);
// fills config.numBlocks from serve.kv_memory_fraction when num_blocks is
// absent. Without CUDA (no_gpu_commands.cpp) it throws std::runtime_error
// saying so; so does a CUDA build without a device.
std::unique_ptr<serving::Backend> makeGpuBackend(const DecoderParams& decoder,
                                                 const ServeParams& params,
                                                 serving::EngineConfig& config);

// The GPU backend's profiler switch for POST /start_profile and /stop_profile:
// cudaProfilerStart / cudaProfilerStop, which `warpscope-cli record
// --capture-range cudaProfilerApi` (and nsys's capture range) turn into a
// traced window. Without CUDA: an empty function (never asked for, as
// makeGpuBackend throws first).
std::function<std::string(bool start)> gpuProfilerSwitch();

// Every build: `serve [--backend cpu|gpu] [--host H] [--port N] [CONFIG.toml]`.
int serveCommand(const std::vector<std::string>& args);
// A kind = "serve" config as `run` starts it.
int serveWorkload(const WorkloadConfig& config);

}  // namespace ws::workload
