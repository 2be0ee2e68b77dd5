// `warpscope-cli import`: recognises a file by its content and hands it to the
// importer for its format.
#pragma once

#include <string>

#include "io/import_run.h"

namespace ws {

class Store;

enum class TraceFormat { VllmResult, NsysSqlite, KinetoTrace };

struct TraceFile {
    std::string path;
    TraceFormat format = TraceFormat::VllmResult;
    std::string text;  // the JSON formats' content (SQLite is read in place)
};

// Recognises a vLLM `bench serve --save-result` JSON, an Nsight Systems SQLite
// export or a PyTorch profiler (Kineto) trace. Throws std::runtime_error
// naming the file and why for anything else, before any store is touched.
TraceFile readTraceFile(const std::string& path);

// On any error nothing is added to the store.
ImportResult importTrace(Store& store, const TraceFile& file, const std::string& label);

}  // namespace ws
