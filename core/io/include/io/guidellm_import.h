// Imports a GuideLLM benchmark report (`guidellm benchmark ... --output-path
// benchmarks.json`) as runs: one per benchmark of the report, with its
// requests, so a load GuideLLM drove compares with runs measured here. A
// report of several benchmarks (a sweep, several rates or concurrencies)
// becomes one sweep group.
//
// GuideLLM keeps each request's first and last token times and its token
// counts, not the times of the tokens between: the runs get TTFT, TPOT and
// E2E latency as Warpscope defines them and no ITL. GuideLLM's own ITL is a
// per-request mean, (last − first token) / (output tokens − 1), which is
// Warpscope's TPOT; its TPOT counts the first token in. The run says so
// (property client.definitions) beside GuideLLM's own figures (guidellm.*).
#pragma once

#include <string>

#include "io/import_run.h"

namespace ws {

class Store;

// True for the parsed JSON of a GuideLLM report: a top-level `benchmarks`
// array whose entries are "generative_benchmark"s (every version, 0.2 on).
bool isGuidellmReport(const std::string& text);

// Requests inside each benchmark's measurement window are imported, as
// GuideLLM's metrics count them (its warm-up and cool-down left out). Throws
// std::runtime_error naming the file, the field and why; on any error nothing
// is added to the store.
ImportResult importGuidellmReport(Store& store, const std::string& path, const std::string& text,
                                  const std::string& label);

}  // namespace ws
