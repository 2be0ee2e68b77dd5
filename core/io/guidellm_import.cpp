#include "io/guidellm_import.h"

#include <algorithm>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "json_fields.h"
#include "model/value_limits.h"
#include "store/store.h"

namespace ws {

using json_fields::dig;
using json_fields::member;
using nlohmann::json;

namespace {

constexpr const char* kDefinitions =
    "GuideLLM keeps each request's first and last token times, not the tokens' between: "
    "Warpscope's TTFT, TPOT and E2E latency are computed from them as for every run, and there "
    "is no ITL. GuideLLM's ITL is a per-request mean, (last - first token) / (output tokens - "
    "1), which is Warpscope's TPOT. GuideLLM's TPOT is not: 0.4 and later count the first token "
    "in, (last token - request start) / output tokens; 0.2 and 0.3 divide (last - first token) "
    "by all output tokens. Its own figures are the guidellm.* properties.";

// Path inside the report for error messages: "benchmarks[2].requests.successful[7]".
std::string at(const std::string& where, const std::string& key) {
    return where.empty() ? key : where + "." + key;
}

// Epoch seconds as Unix nanoseconds; an import error when out of 1970-2100.
std::int64_t epochNs(const std::string& path, const std::string& field, const json& v) {
    if (!v.is_number()) importError(path, field, "not a number of seconds since 1970");
    auto ns = limits::toNs(v.get<double>(), 1e9L, 0, limits::kLatestTimeNs);
    if (!ns) importError(path, field, "before 1970, past 2100 or not finite");
    return *ns;
}

std::optional<std::int64_t> optionalEpochNs(const std::string& path, const std::string& where,
                                            const json& object,
                                            std::initializer_list<const char*> keys) {
    const json* v = dig(object, keys);
    if (!v) return std::nullopt;
    std::string field = where;
    for (const char* k : keys)
        field = at(field, k);
    return epochNs(path, field, *v);
}

int tokenCount(const std::string& path, const std::string& field, const json* v) {
    return v ? json_fields::countOf(path, field, *v) : 0;
}

// One request of the report, either schema: 0.7 and later keep the times in
// info.timings (request_start, first_token_iteration, last_token_iteration,
// request_end); 0.2 and 0.3 as start_time, first_token_time, last_token_time,
// end_time.
struct GuidellmRequest {
    std::int64_t startNs = 0, endNs = 0;
    std::optional<std::int64_t> firstTokenNs, lastTokenNs;
    int promptTokens = 0, outputTokens = 0;
    std::string error;
};

GuidellmRequest readRequest(const std::string& path, const std::string& where, const json& q) {
    if (!q.is_object()) importError(path, where, "not an object");
    GuidellmRequest r;
    auto time = [&](std::initializer_list<std::initializer_list<const char*>> alternatives) {
        for (auto keys : alternatives)
            if (auto ns = optionalEpochNs(path, where, q, keys)) return ns;
        return std::optional<std::int64_t>{};
    };
    auto start = time({{"request_start_time"},
                       {"info", "timings", "request_start"},
                       {"start_time"},
                       {"info", "timings", "resolve_start"}});
    auto end = time({{"request_end_time"},
                     {"info", "timings", "request_end"},
                     {"end_time"},
                     {"info", "timings", "resolve_end"}});
    if (!start) importError(path, at(where, "request_start_time"), "missing");
    if (!end) importError(path, at(where, "request_end_time"), "missing");
    r.startNs = *start;
    r.endNs = *end;
    if (auto problem = limits::spanProblem(r.startNs, r.endNs))
        importError(path, at(where, "request_start_time/request_end_time"), *problem);
    r.firstTokenNs = time({{"info", "timings", "first_token_iteration"}, {"first_token_time"}});
    r.lastTokenNs = time({{"info", "timings", "last_token_iteration"}, {"last_token_time"}});
    r.promptTokens = tokenCount(path, at(where, "prompt_tokens"), member(q, "prompt_tokens"));
    r.outputTokens = tokenCount(path, at(where, "output_tokens"), member(q, "output_tokens"));
    if (r.outputTokens == 0)  // no usage from the server: GuideLLM counts iterations
        r.outputTokens = tokenCount(path, at(where, "info.timings.token_iterations"),
                                    dig(q, {"info", "timings", "token_iterations"}));
    for (auto keys : {std::initializer_list<const char*>{"info", "error"}, {"error"}})
        if (const json* e = dig(q, keys); e && e->is_string()) r.error = e->get<std::string>();
    if (r.firstTokenNs && (*r.firstTokenNs < r.startNs))
        importError(path, at(where, "first token time"), "before the request's start");
    if (r.firstTokenNs && r.lastTokenNs && *r.lastTokenNs < *r.firstTokenNs)
        importError(path, at(where, "last token time"), "before its first token");
    return r;
}

// What the benchmark ran: its strategy and the value a sweep group orders it
// by. 0.7+: config.strategy {type_, rate | streams}; 0.2-0.6: args.strategy.
struct Strategy {
    std::string type;     // synchronous, concurrent, throughput, constant, poisson, ...
    std::string value;    // rate (req/s) or streams, as given; "" when neither
    std::string profile;  // the run's profile: sweep, concurrent, ...
};

Strategy readStrategy(const json& benchmark) {
    Strategy s;
    const json* config = member(benchmark, "config");
    if (!config) config = member(benchmark, "args");
    if (!config) return s;
    if (const json* st = member(*config, "strategy")) {
        if (const json* t = member(*st, "type_"); t && t->is_string())
            s.type = t->get<std::string>();
        for (const char* k : {"rate", "streams"})
            if (const json* v = member(*st, k); v && v->is_number() && v->get<double>() > 0)
                s.value = json_fields::shortestNumber(v->get<double>());
    }
    if (const json* p = member(*config, "profile"))
        for (const char* k : {"kind", "type_"})
            if (const json* t = member(*p, k); t && t->is_string() && s.profile.empty())
                s.profile = t->get<std::string>();
    return s;
}

// GuideLLM's own figures for a metric: mean, median and p99 of the
// successful requests, whatever the version (0.2 had no p50, only median).
void keepOwnFigures(const json& benchmark, std::vector<std::pair<std::string, std::string>>& out) {
    const json* metrics = member(benchmark, "metrics");
    if (!metrics) return;
    for (const char* name :
         {"time_to_first_token_ms", "time_per_output_token_ms", "inter_token_latency_ms",
          "request_latency", "output_tokens_per_second", "requests_per_second"}) {
        const json* ok = dig(*metrics, {name, "successful"});
        if (!ok) continue;
        auto keep = [&](const char* stat, const json* v) {
            if (v && v->is_number())
                out.emplace_back(std::string("guidellm.") + name + "." + stat,
                                 json_fields::shortestNumber(v->get<double>()));
        };
        keep("mean", member(*ok, "mean"));
        keep("median", member(*ok, "median"));
        keep("p99", dig(*ok, {"percentiles", "p99"}));
    }
}

std::string modelOf(const json& benchmark) {
    for (auto keys : {std::initializer_list<const char*>{"config", "backend", "model"},
                      {"worker", "backend_model"},
                      {"args", "backend", "model"}})
        if (const json* m = dig(benchmark, keys); m && m->is_string() && !m->empty())
            return m->get<std::string>();
    return "";
}

struct BenchmarkRun : PreparedRun {
    Strategy strategy;
};

BenchmarkRun readBenchmark(const std::string& path, const json& b, std::size_t index,
                           const std::string& version, const std::string& label) {
    const std::string where = "benchmarks[" + std::to_string(index) + "]";
    if (!b.is_object()) importError(path, where, "not an object");
    BenchmarkRun out;
    out.strategy = readStrategy(b);
    auto windowStart = optionalEpochNs(path, where, b, {"start_time"});
    auto windowEnd = optionalEpochNs(path, where, b, {"end_time"});
    if (!windowStart || !windowEnd)
        importError(path, at(where, "start_time/end_time"), "missing (not a GuideLLM benchmark?)");
    if (auto problem = limits::spanProblem(*windowStart, *windowEnd))
        importError(path, at(where, "start_time/end_time"), *problem);
    const json* lists = member(b, "requests");
    if (!lists || !lists->is_object())
        importError(path, at(where, "requests"), "missing or not an object of request lists");

    int outside = 0, stored = 0;
    std::map<std::string, int> errors;
    for (const char* status : {"successful", "errored", "incomplete"}) {
        const json* list = member(*lists, status);
        if (!list) continue;
        if (!list->is_array())
            importError(path, at(where, "requests." + std::string(status)), "not a list");
        for (std::size_t i = 0; i < list->size(); ++i) {
            auto q = readRequest(
                path, at(where, "requests." + std::string(status)) + "[" + std::to_string(i) + "]",
                (*list)[i]);
            ++stored;
            // GuideLLM's metrics count a request that ends after the window
            // opens and starts before it closes (accumulator.get_within_range).
            if (q.endNs < *windowStart || q.startNs > *windowEnd) {
                ++outside;
                continue;
            }
            RequestRecord r;
            r.requestId = static_cast<std::int64_t>(out.requests.size());
            r.startNs = q.startNs;
            r.endNs = q.endNs;
            r.promptTokens = q.promptTokens;
            r.outputTokens = q.outputTokens;
            r.success = std::string(status) == "successful" && q.firstTokenNs && q.outputTokens > 0;
            if (r.success) {
                out.tokens.push_back({r.requestId, 0, *q.firstTokenNs});
                if (q.lastTokenNs && q.outputTokens > 1)
                    out.tokens.push_back({r.requestId, q.outputTokens - 1, *q.lastTokenNs});
                // E2E ends at the last token, as RequestRecord::endNs does (GuideLLM's
                // request_end is the stream's close, after it). Without a last
                // token time the close stands in: a TPOT of 0 would be a lie.
                if (q.outputTokens == 1) r.endNs = *q.firstTokenNs;
                if (q.outputTokens > 1 && q.lastTokenNs) r.endNs = *q.lastTokenNs;
                if (auto problem = limits::spanProblem(r.startNs, r.endNs))
                    importError(path,
                                at(where, "requests." + std::string(status)) + "[" +
                                    std::to_string(i) + "]: last token time",
                                *problem);
            } else {
                ++errors[std::string(status) + ": " +
                         (q.error.empty() ? "no error text" : q.error)];
            }
            out.requests.push_back(r);
        }
    }

    std::string model = modelOf(b);
    const std::string what =
        out.strategy.type + (out.strategy.value.empty() ? "" : " " + out.strategy.value);
    out.run.label = label.empty() ? "GuideLLM " + (model.empty() ? "" : model + " ") + what
                                  : label + (what.empty() ? "" : " " + what);
    json summary = {
        {"client", "GuideLLM"}, {"strategy", out.strategy.type}, {"profile", out.strategy.profile}};
    if (!out.strategy.value.empty()) summary["value"] = out.strategy.value;
    out.run.workload = WorkloadInfo{model.empty() ? "guidellm" : model, "imported",
                                    summary.dump(1, ' ', false, json::error_handler_t::replace)};
    out.run.command = "guidellm benchmark (imported from " + path + ", " + where + ")";
    out.run.startedAtNs = *windowStart;
    out.endedAtNs = *windowEnd;
    out.properties = {{"benchmark_duration_ns", std::to_string(*windowEnd - *windowStart)},
                      {"imported_from", path},
                      {"client", "GuideLLM" + (version.empty() ? "" : " " + version)},
                      {"client.definitions", kDefinitions},
                      {"guidellm.strategy", out.strategy.type},
                      {"guidellm.profile", out.strategy.profile}};
    keepOwnFigures(b, out.properties);
    const json* totals = dig(b, {"metrics", "request_totals", "total"});
    if (!totals) totals = dig(b, {"request_totals", "total"});  // 0.2, 0.3
    if (totals && totals->is_number_integer() &&
        totals->get<std::int64_t>() > static_cast<std::int64_t>(out.requests.size())) {
        const std::string kept = std::to_string(out.requests.size()) + " of " +
                                 std::to_string(totals->get<std::int64_t>());
        out.properties.emplace_back("client.kept_requests", kept);
        out.log += "[warpscope] GuideLLM counted " + std::to_string(totals->get<std::int64_t>()) +
                   " requests in this benchmark's window and the file keeps " +
                   std::to_string(out.requests.size()) +
                   " of them (its sample_size / --output-sampling): the statistics here are of "
                   "those kept, and the throughput counts them alone\n";
    }
    if (outside > 0)
        out.log += "[warpscope] " + std::to_string(outside) + " of " + std::to_string(stored) +
                   " requests lie outside GuideLLM's measurement window (warm-up, cool-down) "
                   "and are left out, as GuideLLM's metrics leave them\n";
    for (const auto& [text, count] : errors)
        out.log += "[warpscope] " + std::to_string(count) + " request(s) " + text + "\n";
    out.log += "[warpscope] " + std::string(kDefinitions) + "\n";
    return out;
}

// How the benchmarks of one report line up as a sweep: by concurrency when
// every one ran a fixed number of streams (synchronous is one), else by
// request rate, a throughput run counting as "inf" and a synchronous one at
// the rate it reached. Sets each run's sweep value; returns the parameter.
std::string sweepAxis(std::vector<BenchmarkRun>& runs) {
    bool concurrent = std::all_of(runs.begin(), runs.end(), [](const BenchmarkRun& r) {
        return r.strategy.type == "concurrent" || r.strategy.type == "synchronous";
    });
    for (auto& r : runs) {
        if (concurrent)
            r.sweepValue = r.strategy.type == "synchronous" ? "1" : r.strategy.value;
        else if (r.strategy.type == "throughput")
            r.sweepValue = "inf";
        else if (!r.strategy.value.empty())
            r.sweepValue = r.strategy.value;
        else {
            auto rate = std::find_if(r.properties.begin(), r.properties.end(), [](const auto& p) {
                return p.first == "guidellm.requests_per_second.mean";
            });
            r.sweepValue = rate != r.properties.end() ? rate->second : "0";
        }
    }
    return concurrent ? "max-concurrency" : "request-rate";
}

}  // namespace

bool isGuidellmReport(const std::string& text) {
    auto doc = json::parse(text, nullptr, false);
    const json* list = doc.is_discarded() ? nullptr : member(doc, "benchmarks");
    if (!list || !list->is_array() || list->empty()) return false;
    const json* type = member((*list)[0], "type_");
    return type && type->is_string() && type->get<std::string>() == "generative_benchmark";
}

ImportResult importGuidellmReport(Store& store, const std::string& path, const std::string& text,
                                  const std::string& label) {
    auto doc = json::parse(text, nullptr, false);
    if (doc.is_discarded()) importError(path, "(file)", "not valid JSON");
    const json* list = member(doc, "benchmarks");
    if (!list || !list->is_array() || list->empty())
        importError(path, "benchmarks", "missing or empty (not a GuideLLM report?)");
    std::string version;
    if (const json* v = dig(doc, {"metadata", "guidellm_version"}); v && v->is_string())
        version = v->get<std::string>();

    // Everything read and checked before the store is touched.
    std::vector<BenchmarkRun> runs;
    for (std::size_t i = 0; i < list->size(); ++i)
        runs.push_back(readBenchmark(path, (*list)[i], i, version, label));

    std::string parameter = runs.size() > 1 ? sweepAxis(runs) : "";
    const std::string model = modelOf((*list)[0]);
    return storePreparedRuns(store, "GuideLLM report",
                             std::vector<PreparedRun>(runs.begin(), runs.end()),
                             model.empty() ? "GuideLLM" : "GuideLLM " + model, parameter);
}

}  // namespace ws
