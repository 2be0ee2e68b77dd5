// A stored run of requests and tokens as vLLM's `bench serve --save-result`
// JSON (their field names), so their tooling reads it and `import` reads it
// back to the same statistics.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/latency.h"

namespace ws {

class Store;

struct VllmResultSettings {
    std::string backend;
    std::string modelId;
    int numPrompts = 0;
    double requestRate = 0;  // inf is written as "inf"
    double burstiness = 1;
    int maxConcurrency = 0;        // 0 is written as null
    std::int64_t startedAtNs = 0;  // Unix ns, written as vLLM's local "%Y%m%d-%H%M%S"
};

// `errors`: request id → error text of failed requests (a failed request
// absent from it gets "failed").
nlohmann::ordered_json vllmResultJson(Store& store, RunId run, const VllmResultSettings& settings,
                                      const LatencyTargets& targets,
                                      const std::map<std::int64_t, std::string>& errors);

}  // namespace ws
