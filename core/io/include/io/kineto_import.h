// Imports a PyTorch profiler (Kineto) Chrome-trace JSON, as written by
// torch.profiler's export_chrome_trace or tensorboard_trace_handler, as a run:
// GPU kernels, memcpys and memsets, CUDA runtime and driver calls, and the
// profiler's operator and record_function ranges (domains "torch.op" and
// "torch.annotation"), with the GPU's properties. record_function ranges named
// by the token conventions (ws.request:<id>, ws.token:<id>) give token times.
#pragma once

#include <string>

#include "io/import_run.h"

namespace ws {

class Store;

// True for a JSON object with a traceEvents array and Kineto's marks
// (schemaVersion or deviceProperties, or kernel / cuda_runtime events).
bool isKinetoTrace(const std::string& text);

// Throws std::runtime_error naming the file, the event and field and why; on
// any error nothing is added to the store.
ImportResult importKinetoTrace(Store& store, const std::string& path, const std::string& text,
                               const std::string& label);

}  // namespace ws
