#include "io/aiperf_import.h"

#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "json_fields.h"
#include "model/value_limits.h"
#include "store/store.h"

namespace ws {

using json_fields::dig;
using json_fields::member;
using json_fields::nonEmptyLines;
using nlohmann::json;

namespace {

constexpr const char* kDefinitions =
    "AIPerf's ITL is a per-request mean, (request latency - TTFT) / (output tokens - 1), which "
    "is Warpscope's TPOT. Warpscope's ITL here are the gaps between the chunks AIPerf received "
    "(its inter_chunk_latency), as vLLM's bench measures ITL. AIPerf's output length counts "
    "reasoning tokens in. Its own figures, where its profile_export_aiperf.json lay beside the "
    "file, are the aiperf.* properties.";

bool looksLikeAiperf(const json& doc) {
    const json* start = dig(doc, {"metadata", "request_start_ns"});
    const json* metrics = member(doc, "metrics");
    return start && start->is_number_integer() && metrics && metrics->is_object();
}

// A metric's value in milliseconds: AIPerf writes each as {value, unit} in
// its display unit, "ms" for every time it exports per request.
std::optional<long double> milliseconds(const std::string& path, const std::string& where,
                                        const json& metrics, const char* tag) {
    const json* m = member(metrics, tag);
    if (!m) return std::nullopt;
    const json* unit = member(*m, "unit");
    const json* value = member(*m, "value");
    if (!unit || !unit->is_string() || unit->get<std::string>() != "ms")
        importError(path, where + "metrics." + tag + ".unit", "not \"ms\"");
    if (!value || !value->is_number() || !(value->get<double>() >= 0))
        importError(path, where + "metrics." + tag + ".value",
                    "not a non-negative number of milliseconds");
    return value->get<double>();
}

int tokens(const std::string& path, const std::string& where, const json& metrics,
           const char* tag) {
    const json* value = dig(metrics, {tag, "value"});
    return value ? json_fields::countOf(path, where + "metrics." + tag + ".value", *value) : 0;
}

std::int64_t addMs(const std::string& path, const std::string& field, std::int64_t atNs,
                   long double ms) {
    auto ns = limits::toNs(static_cast<long double>(atNs) + ms * 1e6L, 1, 0, limits::kLatestTimeNs);
    if (!ns) importError(path, field, "puts a time past 2100");
    return *ns;
}

struct Records {
    std::vector<RequestRecord> requests;
    std::vector<TokenRecord> tokens;
    std::int64_t firstNs = std::numeric_limits<std::int64_t>::max(), lastNs = 0;
    int warmup = 0;
};

void readRecord(const std::string& path, int number, const std::string& line, Records& out) {
    const std::string where = "line " + std::to_string(number) + ": ";
    json doc = json::parse(line, nullptr, false);
    if (doc.is_discarded()) importError(path, "line " + std::to_string(number), "not valid JSON");
    if (!looksLikeAiperf(doc))
        importError(path, "line " + std::to_string(number),
                    "not an AIPerf record (no metadata.request_start_ns and metrics)");
    if (const json* phase = dig(doc, {"metadata", "benchmark_phase"});
        phase && phase->is_string() && phase->get<std::string>() == "warmup") {
        ++out.warmup;
        return;
    }
    const json& metrics = doc["metrics"];
    const json& startValue = doc["metadata"]["request_start_ns"];
    if (startValue.get<std::int64_t>() < 0 ||
        startValue.get<std::int64_t>() > limits::kLatestTimeNs)
        importError(path, where + "metadata.request_start_ns", "before 1970 or past 2100");
    RequestRecord q;
    q.requestId = static_cast<std::int64_t>(out.requests.size());
    q.startNs = startValue.get<std::int64_t>();
    q.endNs = q.startNs;
    if (const json* end = dig(doc, {"metadata", "request_end_ns"})) {
        if (!end->is_number_integer() || end->get<std::int64_t>() < q.startNs)
            importError(path, where + "metadata.request_end_ns", "not a time after the start");
        q.endNs = end->get<std::int64_t>();
    }
    if (auto problem = limits::spanProblem(q.startNs, q.endNs))
        importError(path, where + "metadata", *problem);
    q.promptTokens = tokens(path, where, metrics, "input_sequence_length");
    q.outputTokens = tokens(path, where, metrics, "output_sequence_length");
    if (q.outputTokens == 0) q.outputTokens = tokens(path, where, metrics, "output_token_count");
    auto ttft = milliseconds(path, where, metrics, "time_to_first_token");
    q.success = !member(doc, "error") && ttft && q.outputTokens > 0;
    if (q.success) {
        std::int64_t at = addMs(path, where + "metrics.time_to_first_token", q.startNs, *ttft);
        out.tokens.push_back({q.requestId, 0, at});
        bool lastKnown = q.outputTokens == 1;
        const json* chunks = dig(metrics, {"inter_chunk_latency", "value"});
        if (chunks && chunks->is_array()) {
            if (const json* unit = dig(metrics, {"inter_chunk_latency", "unit"});
                !unit || !unit->is_string() || unit->get<std::string>() != "ms")
                importError(path, where + "metrics.inter_chunk_latency.unit", "not \"ms\"");
            long double sinceStart = *ttft;
            for (std::size_t i = 0; i < chunks->size(); ++i) {
                const json& gap = (*chunks)[i];
                auto field = where + "metrics.inter_chunk_latency.value[" + std::to_string(i) + "]";
                if (!gap.is_number() || !(gap.get<double>() >= 0))
                    importError(path, field, "not a non-negative number of milliseconds");
                sinceStart += gap.get<double>();
                at = addMs(path, field, q.startNs, sinceStart);
                out.tokens.push_back({q.requestId, static_cast<std::int32_t>(i + 1), at});
            }
            lastKnown = true;
        } else if (auto latency = milliseconds(path, where, metrics, "request_latency");
                   latency && q.outputTokens > 1 && *latency > *ttft) {
            // No chunk times (not streamed, or an older export): the last
            // token at the request's latency, and no ITL.
            at = addMs(path, where + "metrics.request_latency", q.startNs, *latency);
            out.tokens.push_back({q.requestId, q.outputTokens - 1, at});
            lastKnown = true;
        }
        // E2E ends at the last token; with only the first of several known,
        // at the request's end (a TPOT of 0 would be a lie).
        q.endNs = lastKnown ? at : std::max(q.endNs, at);
        if (auto problem = limits::spanProblem(q.startNs, q.endNs))
            importError(path, where + "metrics", *problem);
    }
    out.firstNs = std::min(out.firstNs, q.startNs);
    out.lastNs = std::max(out.lastNs, q.endNs);
    out.requests.push_back(q);
}

// What profile_export_aiperf.json beside the records says about the run.
struct Aggregate {
    std::vector<std::pair<std::string, std::string>> properties;
    std::string model, setting;
    std::int64_t durationNs = 0;
};

std::string text(const json& v) {
    return v.is_string() ? v.get<std::string>() : json_fields::shortestNumber(v.get<double>());
}

Aggregate readAggregate(const std::string& path) {
    Aggregate a;
    auto beside = std::filesystem::path(path).parent_path() / "profile_export_aiperf.json";
    std::ifstream in(beside);
    if (!in) return a;
    json doc = json::parse(in, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) return a;
    a.properties.emplace_back("aiperf.aggregate_file", beside.string());
    for (const char* tag : {"time_to_first_token", "inter_token_latency", "request_latency",
                            "output_token_throughput", "request_throughput",
                            "output_token_throughput_per_user", "request_count"})
        for (const char* stat : {"avg", "p50", "p99"})
            if (const json* v = dig(doc, {tag, stat}); v && v->is_number())
                a.properties.emplace_back(std::string("aiperf.") + tag + "." + stat, text(*v));
    if (const json* d = dig(doc, {"benchmark_duration", "avg"}); d && d->is_number()) {
        const json* unit = dig(doc, {"benchmark_duration", "unit"});
        long double scale =
            unit && unit->is_string() && unit->get<std::string>() == "ms" ? 1e6L : 1e9L;
        if (auto ns = limits::toNs(d->get<double>(), scale, 1, limits::kLongestSpanNs))
            a.durationNs = *ns;
    }
    if (const json* names = dig(doc, {"input_config", "endpoint", "model_names"});
        names && names->is_array() && !names->empty() && (*names)[0].is_string())
        a.model = (*names)[0].get<std::string>();
    for (const char* k : {"concurrency", "request_rate"})
        if (const json* v = dig(doc, {"input_config", "loadgen", k});
            v && (v->is_number() || v->is_string())) {
            a.properties.emplace_back(std::string("aiperf.") + k, text(*v));
            a.setting += std::string(a.setting.empty() ? "" : " ") +
                         (std::string(k) == "concurrency" ? "concurrency " : "request-rate ") +
                         text(*v);
        }
    return a;
}

}  // namespace

bool isAiperfRecords(const std::string& text) {
    auto line = json_fields::firstNonEmptyLine(text);
    return !line.empty() && looksLikeAiperf(json::parse(line, nullptr, false));
}

ImportResult importAiperfRecords(Store& store, const std::string& path, const std::string& text,
                                 const std::string& label) {
    auto lines = nonEmptyLines(text);
    if (lines.empty()) importError(path, "(file)", "empty");
    Records records;
    for (const auto& [number, line] : lines)
        readRecord(path, number, line, records);
    if (records.requests.empty())
        importError(path, "(file)", "only warm-up records, no profiling ones");
    Aggregate aggregate = readAggregate(path);

    PreparedRun r;
    const std::string model = aggregate.model.empty() ? "aiperf" : aggregate.model;
    r.run.label = (label.empty() ? "AIPerf " + model : label) +
                  (aggregate.setting.empty() ? "" : " " + aggregate.setting);
    json summary = {{"client", "AIPerf"}, {"setting", aggregate.setting}};
    r.run.workload = WorkloadInfo{model, "imported", summary.dump(1)};
    r.run.command = "aiperf profile (imported from " + path + ")";
    r.run.startedAtNs = records.firstNs;
    const std::int64_t durationNs =
        aggregate.durationNs > 0 ? aggregate.durationNs : records.lastNs - records.firstNs;
    r.endedAtNs = records.firstNs + durationNs;
    r.log = "[warpscope] " + std::string(kDefinitions) + "\n";
    if (records.warmup > 0)
        r.log += "[warpscope] " + std::to_string(records.warmup) +
                 " warm-up records left out, as AIPerf leaves them out of its figures\n";
    if (aggregate.properties.empty())
        r.log +=
            "[warpscope] no profile_export_aiperf.json beside the file: the duration is the "
            "requests' span, and AIPerf's own figures are not kept\n";
    r.properties = {{"benchmark_duration_ns", std::to_string(durationNs)},
                    {"imported_from", path},
                    {"client", "AIPerf"},
                    {"client.definitions", kDefinitions}};
    r.properties.insert(r.properties.end(), aggregate.properties.begin(),
                        aggregate.properties.end());
    r.requests = std::move(records.requests);
    r.tokens = std::move(records.tokens);
    return storePreparedRuns(store, "AIPerf per-request export", {std::move(r)});
}

}  // namespace ws
