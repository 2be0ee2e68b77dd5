// Applies the NVTX conventions of docs/token-conventions.md to a run's stored
// ranges: run properties and quality checks from ws.property / ws.quality
// marks, requests and token times from ws.request / ws.token. The recorder
// and every importer call this, so a program following the conventions gives
// the same run whether it was recorded here or traced by another tool.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/records.h"

namespace ws {

class Store;
class StoreWriter;

struct ConventionOutcome {
    std::int64_t requests = 0;
    std::int64_t tokens = 0;
    std::vector<std::string> errors;  // malformed annotations, for the run's log
};

// Reads the ranges already flushed for `run`; adds quality, request and token
// records to `writer` (the caller flushes) and sets properties on the store.
ConventionOutcome applyNvtxConventions(Store& store, RunId run, StoreWriter& writer);

}  // namespace ws
