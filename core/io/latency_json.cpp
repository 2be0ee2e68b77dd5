#include "io/latency_json.h"

#include <cmath>
#include <sstream>

namespace ws {

namespace {
// "99" for 99, "99.9" for 99.9, as vLLM names its percentile keys.
std::string percentileName(double p) {
    std::ostringstream out;
    out << p;
    return out.str();
}
}  // namespace

nlohmann::ordered_json latencyJson(const LatencyReport& r, const std::vector<double>& percentiles) {
    nlohmann::ordered_json j;
    j["duration"] = r.durationS;
    j["completed"] = r.requests.size();
    j["failed"] = r.failedRequests;
    j["total_input_tokens"] = r.totalInputTokens;
    j["total_output_tokens"] = r.totalOutputTokens;
    j["request_throughput"] = r.requestThroughput;
    j["request_goodput"] = r.requestGoodput ? nlohmann::ordered_json(*r.requestGoodput) : nullptr;
    j["output_throughput"] = r.outputThroughput;
    j["total_token_throughput"] = r.totalTokenThroughput;
    // vLLM's names for the two peaks its summary prints.
    j["max_output_tokens_per_s"] = r.peakOutputThroughput;
    j["max_concurrent_requests"] = r.maxConcurrency;
    auto metric = [&](const char* name, const std::vector<double>& values) {
        auto s = stats::summarize(values);
        std::string n(name);
        j["mean_" + n + "_ms"] = s.mean;
        j["median_" + n + "_ms"] = s.median;
        j["std_" + n + "_ms"] = s.stddev;
        for (double p : percentiles)
            j["p" + percentileName(p) + "_" + n + "_ms"] = stats::percentile(values, p);
    };
    metric("ttft", r.ttftMs);
    metric("tpot", r.tpotMs);
    metric("itl", r.itlMs);
    metric("e2el", r.e2elMs);
    // A source that kept only some token times (GuideLLM's first and last):
    // what they cannot give is null, not 0, and the count says why.
    if (r.requestsWithoutTokenTimes > 0) {
        j["requests_without_token_times"] = r.requestsWithoutTokenTimes;
        j["max_output_tokens_per_s"] = nullptr;
        if (r.itlMs.empty())
            for (auto& [key, value] : j.items())
                if (key.size() > 7 && key.compare(key.size() - 7, 7, "_itl_ms") == 0)
                    value = nullptr;
    }
    j["energy_per_output_token_j"] =
        r.energyPerOutputTokenJ ? nlohmann::ordered_json(*r.energyPerOutputTokenJ) : nullptr;
    return j;
}

}  // namespace ws
