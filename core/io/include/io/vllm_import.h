// Imports a vLLM `bench serve --save-result` JSON file as a run: one request
// per prompt, token times rebuilt from its TTFT and inter-token latencies, so
// a served model measured by vLLM compares with runs recorded here.
#pragma once

#include <string>

#include "io/import_run.h"

namespace ws {

class Store;

// True when the parsed JSON text looks like a vLLM result (has ttfts, itls,
// output_lens and duration).
bool isVllmResult(const std::string& text);

// Throws std::runtime_error naming the file, the field and why; on any error
// nothing is added to the store.
ImportResult importVllmResult(Store& store, const std::string& path, const std::string& text,
                              const std::string& label);

}  // namespace ws
