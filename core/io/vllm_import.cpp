#include "io/vllm_import.h"

#include <cmath>
#include <ctime>
#include <limits>
#include <nlohmann/json.hpp>

#include "model/value_limits.h"

#include "store/store.h"
#include "store/store_writer.h"
#include "util/process_identity.h"

namespace ws {

using nlohmann::json;

namespace {

constexpr const char* kRequired[] = {"duration", "ttfts", "itls", "output_lens"};

// Seconds since the benchmark's start as nanoseconds, or an import error
// naming the field: negative, not finite, or beyond a year.
std::int64_t toNs(const std::string& path, const std::string& field, long double seconds) {
    auto ns = limits::toNs(seconds, 1e9L, 0, limits::kLongestSpanNs);
    if (!ns) importError(path, field, "negative, over a year or not finite");
    return *ns;
}

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

// The result's count fields: non-negative integers that fit an int.
int count(const std::string& path, const std::string& field, const json& v) {
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0 ||
        v.get<std::int64_t>() > std::numeric_limits<int>::max())
        importError(path, field, "not a count (a non-negative integer)");
    return static_cast<int>(v.get<std::int64_t>());
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
    const auto& ttfts = field(doc, path, "ttfts");
    const auto& itls = field(doc, path, "itls");
    const auto& outputLens = field(doc, path, "output_lens");
    const auto& duration = field(doc, path, "duration");
    if (!duration.is_number() || duration.get<double>() <= 0)
        importError(path, "duration", "must be a positive number of seconds");
    const std::int64_t durationNs = toNs(path, "duration", duration.get<double>());
    if (!ttfts.is_array() || !itls.is_array() || !outputLens.is_array())
        importError(path, "ttfts/itls/output_lens", "must be arrays");
    std::size_t n = ttfts.size();
    if (itls.size() != n || outputLens.size() != n)
        importError(path, "itls/output_lens",
                    "have " + std::to_string(itls.size()) + "/" +
                        std::to_string(outputLens.size()) + " entries for " + std::to_string(n) +
                        " ttfts");
    const json* inputLens = doc.contains("input_lens") ? &doc["input_lens"] : nullptr;
    const json* errors = doc.contains("errors") ? &doc["errors"] : nullptr;

    // Validate and build everything before touching the store.
    std::vector<RequestRecord> requests;
    std::vector<TokenRecord> tokens;
    for (std::size_t i = 0; i < n; ++i) {
        auto where = "[" + std::to_string(i) + "]";
        if (!ttfts[i].is_number()) importError(path, "ttfts" + where, "not a number");
        const int outputLen = count(path, "output_lens" + where, outputLens[i]);
        if (!itls[i].is_array()) importError(path, "itls" + where, "not an array");
        bool failed = errors && errors->is_array() && i < errors->size() &&
                      (*errors)[i].is_string() && !(*errors)[i].get<std::string>().empty();
        RequestRecord q;
        q.requestId = static_cast<std::int64_t>(i);
        q.startNs = 0;  // vLLM's file keeps no arrival times: requests are aligned at 0
        q.outputTokens = outputLen;
        if (inputLens && inputLens->is_array() && i < inputLens->size() &&
            (*inputLens)[i].is_number_integer())
            q.promptTokens = count(path, "input_lens" + where, (*inputLens)[i]);
        q.success = !failed && q.outputTokens > 0;
        long double t = ttfts[i].get<double>();
        std::int64_t at = toNs(path, "ttfts" + where, t);
        if (q.success) tokens.push_back({q.requestId, 0, at});
        int index = 1;
        for (std::size_t g = 0; g < itls[i].size(); ++g) {
            const auto& gap = itls[i][g];
            auto field = "itls" + where + "[" + std::to_string(g) + "]";
            if (!gap.is_number()) importError(path, field, "not a number");
            long double seconds = gap.get<double>();
            if (!(seconds >= 0)) importError(path, field, "negative or not finite");
            t += seconds;
            if (q.success) tokens.push_back({q.requestId, index++, toNs(path, field, t)});
        }
        q.endNs = toNs(path, "itls" + where, t);
        requests.push_back(q);
    }

    NewRun nr;
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

    auto imported = storeImportedRun(
        store, nr,
        [&](RunId run, StoreWriter& w) {
            for (const auto& q : requests)
                w.add(q);
            for (const auto& t : tokens)
                w.add(t);
            store.setProperty(run, "benchmark_duration_ns", std::to_string(durationNs));
            store.setProperty(run, "imported_from", path);
        },
        nr.startedAtNs + durationNs);
    return {imported.run,
            "vLLM benchmark result",
            static_cast<std::int64_t>(n),
            0,
            imported.records,
            {imported.run},
            {}};
}

}  // namespace ws
