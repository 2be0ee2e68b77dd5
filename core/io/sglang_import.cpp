#include "io/sglang_import.h"

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "json_fields.h"
#include "per_request_arrays.h"
#include "store/store.h"
#include "store/store_writer.h"
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
// limit, else the number as written.
std::string settingValue(const json* v) {
    if (!v || v->is_null()) return "inf";
    if (v->is_string()) return v->get<std::string>();
    std::ostringstream out;
    out << v->get<double>();
    return out.str();
}

struct LineRun {
    NewRun run;
    PerRequestArrays arrays;
    std::vector<std::pair<std::string, std::string>> properties;
    std::string log;
    std::int64_t durationNs = 0;
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
    out.durationNs = secondsToNs(path, where + "duration", duration->get<double>());
    if (doc.contains("ttfts")) {
        out.arrays = readPerRequestArrays(path, doc, where);
    } else {
        out.log +=
            "[warpscope] this result keeps no per-request data (bench_serving writes it "
            "with --output-details): SGLang's own figures only, as sglang.* properties\n";
    }
    auto find = [&](const char* key) -> const json* {
        auto it = doc.find(key);
        return it == doc.end() ? nullptr : &*it;
    };
    out.rate = settingValue(find("request_rate"));
    out.concurrency = settingValue(find("max_concurrency"));
    for (const auto& [key, value] : doc.items())
        if (value.is_number() || value.is_string() || value.is_boolean())
            out.properties.emplace_back(
                "sglang." + key, value.is_string() ? value.get<std::string>() : value.dump());
    out.properties.emplace_back("benchmark_duration_ns", std::to_string(out.durationNs));
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
    auto lines = nonEmptyLines(text);
    return !lines.empty() && looksLikeSglang(parseLine(lines.front().second));
}

ImportResult importSglangResults(Store& store, const std::string& path, const std::string& text,
                                 const std::string& label) {
    auto lines = nonEmptyLines(text);
    if (lines.empty()) importError(path, "(file)", "empty");
    std::vector<LineRun> runs;  // every line read and checked before the store is touched
    for (const auto& [number, line] : lines)
        runs.push_back(readLine(path, number, line, label));

    ImportResult result;
    result.format = "SGLang bench_serving results";
    store.requireWritable("import a run");
    Store::Transaction tx(store);  // every line's run, or none
    for (const auto& r : runs) {
        auto imported = storeImportedRun(
            store, r.run,
            [&](RunId run, StoreWriter& w) {
                for (const auto& q : r.arrays.requests)
                    w.add(q);
                for (const auto& t : r.arrays.tokens)
                    w.add(t);
                for (const auto& [key, value] : r.properties)
                    store.setProperty(run, key, value);
                store.appendLog(run, r.log);
            },
            r.run.startedAtNs + r.durationNs);
        result.runs.push_back(imported.run);
        result.requests += static_cast<std::int64_t>(r.arrays.requests.size());
        result.events += imported.records;
    }
    if (runs.size() > 1) {
        // The setting that changes from line to line orders the group.
        std::set<std::string> concurrencies;
        for (const auto& r : runs)
            concurrencies.insert(r.concurrency);
        const bool byConcurrency = concurrencies.size() > 1;
        std::vector<std::string> values;
        for (const auto& r : runs)
            values.push_back(byConcurrency ? r.concurrency : r.rate);
        result.sweepGroup =
            markImportedSweep(store, result.runs, "SGLang bench_serving",
                              byConcurrency ? "max-concurrency" : "request-rate", values);
    }
    tx.commit();
    result.run = result.runs.front();
    return result;
}

}  // namespace ws
