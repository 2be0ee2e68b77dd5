// Imports SGLang's `bench_serving --output-file FILE` results as runs. The
// file is JSON Lines: bench_serving appends one object per benchmark, so a
// file of several lines (rates or concurrencies tried one after another)
// becomes one sweep group. With --output-details a line keeps vLLM's
// per-request arrays (ttfts, itls in seconds, input_lens, output_lens,
// errors) and becomes requests and tokens; without, only SGLang's own figures
// (sglang.* properties) and a log line saying what is missing.
#pragma once

#include <string>

#include "io/import_run.h"

namespace ws {

class Store;

// True when the first non-empty line is an SGLang bench_serving result: an
// object with mean_e2e_latency_ms or total_output_tokens_retokenized (vLLM
// writes mean_e2el_ms).
bool isSglangResults(const std::string& text);

// Throws std::runtime_error naming the file, the line, the field and why; on
// any error nothing is added to the store.
ImportResult importSglangResults(Store& store, const std::string& path, const std::string& text,
                                 const std::string& label);

// Python's json.dumps writes the default request rate, infinity, as a bare
// Infinity, which is not JSON: outside strings, Infinity and -Infinity become
// the strings "inf" and "-inf" and NaN becomes null.
std::string withNonFiniteNumbersReplaced(const std::string& line);

}  // namespace ws
