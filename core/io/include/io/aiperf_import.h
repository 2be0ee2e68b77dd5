// Imports AIPerf's per-request export (`profile_export.jsonl` in its artifacts
// folder) as a run: each profiling record a request, its chunks' times
// rebuilt from its start, TTFT and inter-chunk latencies, so a load AIPerf
// drove compares with runs measured here. Where AIPerf's aggregate file
// (`profile_export_aiperf.json`) lies beside it, the run also gets the
// benchmark's duration, concurrency or rate, model and AIPerf's own figures.
//
// AIPerf's ITL is a per-request mean, (request latency - TTFT) / (output
// tokens - 1): Warpscope's TPOT. Warpscope's ITL are the gaps between chunks,
// as vLLM's bench measures them; the run says so (client.definitions).
#pragma once

#include <string>

#include "io/import_run.h"

namespace ws {

class Store;

// True when the first non-empty line is an AIPerf record: an object with
// metadata.request_start_ns and a metrics object.
bool isAiperfRecords(const std::string& text);

// Warm-up records are left out, as AIPerf leaves them out of its figures.
// Throws std::runtime_error naming the file, the line, the field and why; on
// any error nothing is added to the store.
ImportResult importAiperfRecords(Store& store, const std::string& path, const std::string& text,
                                 const std::string& label);

}  // namespace ws
