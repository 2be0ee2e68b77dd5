#include "io/sglang_import.h"

#include <nlohmann/json.hpp>
#include <set>

#include "json_fields.h"
#include "per_request_arrays.h"
#include "store/store.h"
#include "util/process_identity.h"

namespace ws {

using json_fields::nonEmptyLines;
using nlohmann::json;

namespace {

constexpr const char* kDefinitions =
    "SGLang's bench_serving defines TTFT, TPOT, ITL and E2E latency as vLLM's bench does, "
    "which is how Warpscope computes them here. Its 'concurrency' is the mean number of "
    "requests in flight (the sum of E2E latencies over the duration), not max_concurrency. Its "
    "own figures are the sglang.* properties.";

json parseLine(const std::string& line) {
    return json::parse(withNonFiniteNumbersReplaced(line), nullptr, false);
}

bool looksLikeSglang(const json& doc) {
    return doc.is_object() &&
           (doc.contains("mean_e2e_latency_ms") || doc.contains("total_output_tokens_retokenized"));
}

// A setting as a sweep value: "inf" for an infinite rate or no concurrency
// limit, else the number.
std::string settingValue(const std::string& path, const std::string& field, const json* v) {
    if (!v || v->is_null()) return "inf";
    if (v->is_string() && (v->get<std::string>() == "inf" || v->get<std::string>() == "trace"))
        return v->get<std::string>();
    if (!v->is_number() || !(v->get<double>() >= 0))
        importError(path, field, "not a non-negative number, inf or null");
    return json_fields::shortestNumber(v->get<double>());
}

struct LineRun : PreparedRun {
    std::string rate, concurrency;
};

LineRun readLine(const std::string& path, int number, const std::string& text,
                 const std::string& label) {
    const std::string where = "line " + std::to_string(number) + ": ";
    json doc = parseLine(text);
    if (doc.is_discarded()) importError(path, "line " + std::to_string(number), "not valid JSON");
    if (!looksLikeSglang(doc))
        importError(path, "line " + std::to_string(number),
                    "not an SGLang bench_serving result (no mean_e2e_latency_ms)");
    LineRun out;
    auto duration = doc.find("duration");
    if (duration == doc.end() || !duration->is_number() || duration->get<double>() <= 0)
        importError(path, where + "duration", "missing or not a positive number of seconds");
    const std::int64_t durationNs = secondsToNs(path, where + "duration", duration->get<double>());
    if (doc.contains("ttfts")) {
        auto arrays = readPerRequestArrays(path, doc, where);
        out.requests = std::move(arrays.requests);
        out.tokens = std::move(arrays.tokens);
    } else {
        out.log +=
            "[warpscope] this result keeps no per-request data (bench_serving writes it "
            "with --output-details): SGLang's own figures only, as sglang.* properties\n";
    }
    auto find = [&](const char* key) { return json_fields::member(doc, key); };
    out.rate = settingValue(path, where + "request_rate", find("request_rate"));
    out.concurrency = settingValue(path, where + "max_concurrency", find("max_concurrency"));
    for (const auto& [key, value] : doc.items())
        if (value.is_number() || value.is_string() || value.is_boolean())
            out.properties.emplace_back(
                "sglang." + key, value.is_string() ? value.get<std::string>() : value.dump());
    out.properties.emplace_back("benchmark_duration_ns", std::to_string(durationNs));
    out.properties.emplace_back("imported_from", path);
    out.properties.emplace_back("client", "SGLang bench_serving");
    out.properties.emplace_back("client.definitions", kDefinitions);
    std::string backend = find("backend") && find("backend")->is_string()
                              ? find("backend")->get<std::string>()
                              : "sglang";
    std::string setting = "request-rate " + out.rate + " max-concurrency " + out.concurrency;
    out.run.label = (label.empty() ? "SGLang bench_serving " + backend : label) + " " + setting;
    json summary = {{"client", "SGLang bench_serving"},
                    {"backend", backend},
                    {"request_rate", out.rate},
                    {"max_concurrency", out.concurrency}};
    out.run.workload = WorkloadInfo{backend, "imported", summary.dump(1)};
    out.run.command = "python -m sglang.bench_serving (imported from " + path + ", line " +
                      std::to_string(number) + ")";
    out.run.startedAtNs = unixNowNs();
    out.endedAtNs = out.run.startedAtNs + durationNs;
    out.log += "[warpscope] " + std::string(kDefinitions) + "\n";
    return out;
}

}  // namespace

std::string withNonFiniteNumbersReplaced(const std::string& line) {
    std::string out;
    out.reserve(line.size());
    bool inString = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        char c = line[i];
        if (inString) {
            out += c;
            if (c == '\\' && i + 1 < line.size())
                out += line[++i];  // an escaped quote does not end the string
            else if (c == '"')
                inString = false;
            continue;
        }
        auto at = [&](std::string_view word) { return line.compare(i, word.size(), word) == 0; };
        if (c == '"') {
            inString = true;
            out += c;
        } else if (at("-Infinity")) {
            out += "\"-inf\"";
            i += 8;
        } else if (at("Infinity")) {
            out += "\"inf\"";
            i += 7;
        } else if (at("NaN")) {
            out += "null";
            i += 2;
        } else {
            out += c;
        }
    }
    return out;
}

bool isSglangResults(const std::string& text) {
    auto line = json_fields::firstNonEmptyLine(text);
    return !line.empty() && looksLikeSglang(parseLine(std::string(line)));
}

ImportResult importSglangResults(Store& store, const std::string& path, const std::string& text,
                                 const std::string& label) {
    auto lines = nonEmptyLines(text);
    if (lines.empty()) importError(path, "(file)", "empty");
    std::vector<LineRun> runs;  // every line read and checked before the store is touched
    for (const auto& [number, line] : lines)
        runs.push_back(readLine(path, number, line, label));

    // The setting that changes from line to line orders the group; lines
    // that differ in neither are repeats, each its own run.
    std::set<std::string> concurrencies, rates;
    for (const auto& r : runs) {
        concurrencies.insert(r.concurrency);
        rates.insert(r.rate);
    }
    const bool byConcurrency = concurrencies.size() > 1;
    const std::string parameter = byConcurrency      ? "max-concurrency"
                                  : rates.size() > 1 ? "request-rate"
                                                     : "";
    for (auto& r : runs)
        r.sweepValue = byConcurrency ? r.concurrency : r.rate;
    return storePreparedRuns(store, "SGLang bench_serving results",
                             std::vector<PreparedRun>(runs.begin(), runs.end()),
                             "SGLang bench_serving " + runs.front().run.workload->name, parameter);
}

}  // namespace ws
