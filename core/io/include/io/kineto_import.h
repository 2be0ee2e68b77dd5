// Imports a PyTorch profiler (Kineto) Chrome-trace JSON, as written by
// torch.profiler's export_chrome_trace or tensorboard_trace_handler, as a run:
// GPU kernels, memcpys and memsets, CUDA runtime and driver calls, and the
// profiler's operator and record_function ranges (domains "torch.op" and
// "torch.annotation"), with the GPU's properties. record_function ranges named
// by the token conventions (ws.request:<id>, ws.token:<id>) give token times.
#pragma once

#include <string>
#include <vector>

#include "io/import_run.h"
#include "io/trace_reader.h"

namespace ws {

class Store;

// True for a JSON object with a traceEvents array and Kineto's marks
// (schemaVersion or deviceProperties, or kernel / cuda_runtime events).
bool isKinetoTrace(const std::string& text);

// The same for a file of any size, plain or gzip-compressed, read in one
// pass and never whole: it reads until it knows (an object whose traceEvents
// array has begun, with one of those marks before it or among the events
// read so far), so a file damaged further on is refused by the import.
bool isKinetoTraceFile(const std::string& path);

// Throws std::runtime_error naming the file, the event and field and why; on
// any error nothing is added to the store. Streams: the events are parsed one
// at a time (nlohmann's SAX parser) and written as they come, so memory
// follows the records in flight and the ranges waiting for their nesting
// depth (32 bytes each), not the size of the text.
ImportResult importKinetoTrace(Store& store, const std::string& path, const std::string& text,
                               const std::string& label);
// The same, reading the file at `path` (plain or .json.gz) block by block;
// `progress` hears the bytes read.
ImportResult importKinetoTraceFile(Store& store, const std::string& path, const std::string& label,
                                   ReadProgress progress = {});
// Several files of one program, one per rank (vLLM's torch_profiler_dir), as
// one run: each file's times moved onto the first's clock by their
// baseTimeNanoseconds, a rank that saw only its own GPU under an index an
// earlier rank used renumbered past them, engine steps from the first file.
ImportResult importKinetoTraceFiles(Store& store, const std::string& folder,
                                    const std::vector<std::string>& files, const std::string& label,
                                    ReadProgress progress = {});

}  // namespace ws
