// `warpscope-cli import`: recognises a file by its content and hands it to the
// importer for its format.
#pragma once

#include <string>
#include <vector>

#include "io/import_run.h"
#include "io/trace_reader.h"

namespace ws {

class Store;

enum class TraceFormat {
    VllmResult,
    GuidellmReport,
    SglangResults,
    AiperfRecords,
    GenaiPerfExport,
    NsysSqlite,
    KinetoTrace,
    KinetoFolder
};

struct TraceFile {
    std::string path;
    TraceFormat format = TraceFormat::VllmResult;
    // The JSON formats' content (SQLite is read in place). Empty for a Kineto
    // trace over 16 MiB or gzip-compressed: that one is streamed from `path`.
    std::string text;
    // A folder of Kineto traces (one per rank): its trace files by name.
    std::vector<std::string> files;
};

// Recognises a vLLM `bench serve --save-result` JSON, a GuideLLM report,
// SGLang `bench_serving` results, AIPerf's per-request export, an Nsight
// Systems SQLite export or a PyTorch profiler (Kineto) trace; of folders, an
// AIPerf artifacts folder or one of Kineto traces (one run, a file per rank). Throws
// std::runtime_error naming the file and why for anything else, before any store is touched.
TraceFile readTraceFile(const std::string& path);

// On any error nothing is added to the store. `progress` hears the bytes read
// of a streamed file.
ImportResult importTrace(Store& store, const TraceFile& file, const std::string& label,
                         const ReadProgress& progress = {});

}  // namespace ws
