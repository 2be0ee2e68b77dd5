// Latency results as JSON with the key names of vLLM's benchmark result files
// (mean_ttft_ms, p99_itl_ms, request_throughput, ...), so tools that read
// those read ours.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "analysis/latency.h"

namespace ws {

nlohmann::ordered_json latencyJson(const LatencyReport& report,
                                   const std::vector<double>& percentiles);

}  // namespace ws
