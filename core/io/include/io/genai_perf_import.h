// Imports GenAI-Perf's profile export (`profile_export.json`, the per-request
// file perf_analyzer writes under GenAI-Perf's artifacts folder) as runs: one
// per experiment (a concurrency or request rate), each request with its start
// and the arrival of every response that carried text, so a load GenAI-Perf
// drove compares with runs measured here. Several experiments become one
// sweep group, as bench serve --sweep makes.
//
// GenAI-Perf counts output tokens with the model's tokenizer; Warpscope has
// none, so a token here is a response that carried text (a streamed chunk),
// and a request's output length is the server's own count where the last
// chunk reports usage, else its chunks. The run says so (client.definitions).
#pragma once

#include <string>

#include "io/import_run.h"

namespace ws {

class Store;

// True for a JSON object whose "experiments" hold "requests" with
// "timestamp" and "response_timestamps".
bool isGenaiPerfExport(const std::string& text);

// Throws std::runtime_error naming the file, the field and why; on any error
// nothing is added to the store.
ImportResult importGenaiPerfExport(Store& store, const std::string& path, const std::string& text,
                                   const std::string& label);

}  // namespace ws
