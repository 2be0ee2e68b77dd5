#include "io/vllm_import.h"

#include <cmath>
#include <ctime>
#include <limits>
#include <nlohmann/json.hpp>

#include "model/value_limits.h"
#include "per_request_arrays.h"

#include "store/store.h"
#include "util/process_identity.h"

namespace ws {

using nlohmann::json;

namespace {

constexpr const char* kRequired[] = {"duration", "ttfts", "itls", "output_lens"};

const json& field(const json& doc, const std::string& path, const char* name) {
    auto it = doc.find(name);
    if (it == doc.end()) importError(path, name, "missing (not a vLLM benchmark result?)");
    return *it;
}

// vLLM writes the date as "%Y%m%d-%H%M%S" in local time.
std::int64_t parseDate(const std::string& path, const json& doc) {
    auto it = doc.find("date");
    if (it == doc.end() || !it->is_string()) return 0;
    std::tm tm{};
    if (!strptime(it->get<std::string>().c_str(), "%Y%m%d-%H%M%S", &tm)) return 0;
    tm.tm_isdst = -1;
    auto seconds = static_cast<std::int64_t>(std::mktime(&tm));
    if (seconds < 0 || seconds > limits::kLatestTimeNs / 1'000'000'000)
        importError(path, "date", "before 1970 or past the year 2100");
    return seconds * 1'000'000'000;
}

}  // namespace

bool isVllmResult(const std::string& text) {
    auto doc = json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) return false;
    for (const char* k : kRequired)
        if (!doc.contains(k)) return false;
    return true;
}

ImportResult importVllmResult(Store& store, const std::string& path, const std::string& text,
                              const std::string& label) {
    auto doc = json::parse(text, nullptr, false);
    if (doc.is_discarded()) importError(path, "(file)", "not valid JSON");
    if (!doc.is_object()) importError(path, "(file)", "not a JSON object");
    const auto& duration = field(doc, path, "duration");
    if (!duration.is_number() || duration.get<double>() <= 0)
        importError(path, "duration", "must be a positive number of seconds");
    const std::int64_t durationNs = secondsToNs(path, "duration", duration.get<double>());
    auto arrays = readPerRequestArrays(path, doc);

    PreparedRun r;
    NewRun& nr = r.run;
    std::string model = doc.contains("model_id") && doc["model_id"].is_string()
                            ? doc["model_id"].get<std::string>()
                            : std::string("vllm");
    nr.label = label.empty() ? "vLLM " + model : label;
    json summary = json::object();
    // Scalars only: a nested value (70,000 levels deep in a hostile file) would
    // recurse when written out, and indent quadratically.
    for (const char* k : {"backend", "model_id", "tokenizer_id", "num_prompts", "request_rate",
                          "burstiness", "max_concurrency", "date"})
        if (doc.contains(k) && doc[k].is_primitive()) summary[k] = doc[k];
    nr.workload = WorkloadInfo{model, "imported",
                               summary.dump(1, ' ', false, json::error_handler_t::replace)};
    nr.command = "vllm bench serve (imported from " + path + ")";
    std::int64_t started = parseDate(path, doc);
    nr.startedAtNs = started ? started : unixNowNs();

    r.endedAtNs = nr.startedAtNs + durationNs;
    r.requests = std::move(arrays.requests);
    r.tokens = std::move(arrays.tokens);
    r.properties = {{"benchmark_duration_ns", std::to_string(durationNs)}, {"imported_from", path}};
    return storePreparedRuns(store, "vLLM benchmark result", {std::move(r)});
}

}  // namespace ws
