#include "io/vllm_result_export.h"

#include <algorithm>
#include <cmath>
#include <ctime>

#include "analysis/run_latency.h"
#include "io/latency_json.h"
#include "store/run_queries.h"

namespace ws {

using nlohmann::ordered_json;

ordered_json vllmResultJson(Store& store, RunId run, const VllmResultSettings& s,
                            const LatencyTargets& targets,
                            const std::map<std::int64_t, std::string>& errors) {
    ordered_json j;
    std::time_t seconds = static_cast<std::time_t>(s.startedAtNs / 1'000'000'000);
    std::tm local{};
    localtime_r(&seconds, &local);
    char date[32] = {};
    std::strftime(date, sizeof date, "%Y%m%d-%H%M%S", &local);
    j["date"] = date;
    j["backend"] = s.backend;
    j["model_id"] = s.modelId;
    j["tokenizer_id"] = s.modelId;
    j["num_prompts"] = s.numPrompts;
    j["request_rate"] =
        std::isinf(s.requestRate) ? ordered_json("inf") : ordered_json(s.requestRate);
    j["burstiness"] = s.burstiness;
    j["max_concurrency"] = s.maxConcurrency > 0 ? ordered_json(s.maxConcurrency) : ordered_json();
    auto report = runLatency(store, run, targets);
    const auto latency = latencyJson(report, {50, 90, 99});
    for (const auto& [key, value] : latency.items())
        j[key] = value;

    auto requests = requestsOf(store, run);
    std::map<std::int64_t, std::vector<std::int64_t>> times;
    for (const auto& t : tokensOf(store, run))
        times[t.requestId].push_back(t.timeNs);
    auto inputLens = ordered_json::array(), outputLens = ordered_json::array();
    auto ttfts = ordered_json::array(), itls = ordered_json::array();
    auto errorTexts = ordered_json::array();
    for (const auto& q : requests) {
        auto& ts = times[q.requestId];
        std::sort(ts.begin(), ts.end());
        const bool ok = q.success && !ts.empty();
        inputLens.push_back(q.promptTokens);
        outputLens.push_back(ok ? q.outputTokens : 0);
        ttfts.push_back(ok ? static_cast<double>(ts.front() - q.startNs) / 1e9 : 0.0);
        auto gaps = ordered_json::array();
        if (ok)
            for (std::size_t i = 1; i < ts.size(); ++i)
                gaps.push_back(static_cast<double>(ts[i] - ts[i - 1]) / 1e9);
        itls.push_back(std::move(gaps));
        std::string error;
        if (!ok) {
            auto it = errors.find(q.requestId);
            error = it != errors.end() ? it->second : "failed";
        }
        errorTexts.push_back(error);
    }
    j["input_lens"] = std::move(inputLens);
    j["output_lens"] = std::move(outputLens);
    j["ttfts"] = std::move(ttfts);
    j["itls"] = std::move(itls);
    j["errors"] = std::move(errorTexts);
    return j;
}

}  // namespace ws
