#include "io/genai_perf_import.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "json_fields.h"
#include "model/value_limits.h"
#include "store/store.h"

namespace ws {

using json_fields::dig;
using json_fields::member;
using nlohmann::json;

namespace {

constexpr const char* kDefinitions =
    "GenAI-Perf counts output tokens with the model's tokenizer and Warpscope has none: a token "
    "here is a response that carried text (one streamed chunk, which may hold several of "
    "GenAI-Perf's tokens), so ITL is the gap between chunks, as vLLM's bench measures it, and a "
    "request's output length is the server's usage count where its last chunk reported one, "
    "else its chunks. GenAI-Perf's TPOT-like figure (inter_token_latency) divides by its own "
    "token count.";

bool looksLikeGenaiPerf(const json& doc) {
    const json* experiments = member(doc, "experiments");
    if (!experiments || !experiments->is_array() || experiments->empty()) return false;
    const json* requests = member((*experiments)[0], "requests");
    if (!requests || !requests->is_array()) return false;
    if (requests->empty()) return member((*experiments)[0], "experiment") != nullptr;
    return member((*requests)[0], "timestamp") && member((*requests)[0], "response_timestamps");
}

// The text a response carried and the usage it reported: OpenAI server-sent
// events ("data: {...}", several may share a response), the JSON of a
// non-streamed reply, or Triton's {"text_output": ...}.
struct ResponseText {
    std::string text;
    std::optional<int> promptTokens, completionTokens;
};

void readChoice(const json& event, ResponseText& out) {
    if (const json* choices = member(event, "choices");
        choices && choices->is_array() && !choices->empty()) {
        const json& c = (*choices)[0];
        for (const json* t : {dig(c, {"delta", "content"}), dig(c, {"delta", "reasoning_content"}),
                              member(c, "text"), dig(c, {"message", "content"})})
            if (t && t->is_string()) out.text += t->get<std::string>();
    }
    // A count out of range is left out rather than wrapped.
    auto count = [](const json* v) -> std::optional<int> {
        if (!v || !v->is_number_integer() || v->get<std::int64_t>() < 0 ||
            v->get<std::int64_t>() > std::numeric_limits<int>::max())
            return std::nullopt;
        return static_cast<int>(v->get<std::int64_t>());
    };
    if (const json* usage = member(event, "usage")) {
        if (auto p = count(member(*usage, "prompt_tokens"))) out.promptTokens = p;
        if (auto c = count(member(*usage, "completion_tokens"))) out.completionTokens = c;
    }
}

ResponseText responseText(const json& output) {
    ResponseText r;
    if (const json* t = member(output, "text_output"); t && t->is_string()) {
        r.text = t->get<std::string>();
        return r;
    }
    const json* response = member(output, "response");
    if (!response || !response->is_string()) return r;
    const std::string& body = response->get<std::string>();
    if (body.rfind("data:", 0) != 0) {  // a whole reply, not a stream
        json doc = json::parse(body, nullptr, false);
        if (!doc.is_discarded()) readChoice(doc, r);
        return r;
    }
    for (std::size_t at = 0; (at = body.find("data:", at)) != std::string::npos;) {
        const std::size_t from = at + 5;
        std::size_t end = body.find("\n\n", from);
        if (end == std::string::npos) end = body.size();
        json event = json::parse(body.substr(from, end - from), nullptr, false);
        if (!event.is_discarded()) readChoice(event, r);  // "[DONE]" carries nothing
        at = end;
    }
    return r;
}

std::int64_t timeOf(const std::string& path, const std::string& field, const json& v) {
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0 ||
        v.get<std::int64_t>() > limits::kLatestTimeNs)
        importError(path, field, "not a time in nanoseconds between 1970 and 2100");
    return v.get<std::int64_t>();
}

PreparedRun readExperiment(const std::string& path, const json& doc, std::size_t index,
                           const std::string& label, std::string& model) {
    const std::string where = "experiments[" + std::to_string(index) + "]";
    const json& e = doc["experiments"][index];
    const json* mode = dig(e, {"experiment", "mode"});
    const json* value = dig(e, {"experiment", "value"});
    const json* requests = member(e, "requests");
    if (!requests || !requests->is_array())
        importError(path, where + ".requests", "missing or not an array");
    PreparedRun r;
    std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = 0;
    for (std::size_t i = 0; i < requests->size(); ++i) {
        const std::string field = where + ".requests[" + std::to_string(i) + "]";
        const json& q = (*requests)[i];
        const json* start = member(q, "timestamp");
        const json* times = member(q, "response_timestamps");
        if (!start) importError(path, field + ".timestamp", "missing");
        if (!times || !times->is_array())
            importError(path, field + ".response_timestamps", "missing or not an array");
        const json* outputs = member(q, "response_outputs");
        if (outputs && (!outputs->is_array() || outputs->size() != times->size()))
            importError(path, field + ".response_outputs",
                        "not an array as long as response_timestamps");
        if (model.empty())
            if (const json* payload = dig(q, {"request_inputs", "payload"});
                payload && payload->is_string()) {
                json p = json::parse(payload->get<std::string>(), nullptr, false);
                if (const json* m = member(p, "model"); m && m->is_string())
                    model = m->get<std::string>();
            }
        RequestRecord rec;
        rec.requestId = static_cast<std::int64_t>(r.requests.size());
        rec.startNs = timeOf(path, field + ".timestamp", *start);
        rec.endNs = rec.startNs;
        std::optional<int> completion;
        for (std::size_t k = 0; k < times->size(); ++k) {
            const std::string at = field + ".response_timestamps[" + std::to_string(k) + "]";
            const std::int64_t t = timeOf(path, at, (*times)[k]);
            if (t < rec.startNs) importError(path, at, "before the request's timestamp");
            rec.endNs = std::max(rec.endNs, t);
            // Without outputs every response counts; with them, those with
            // text (the role-only first chunk and [DONE] carry none).
            ResponseText text;
            if (outputs) {
                text = responseText((*outputs)[k]);
                if (text.promptTokens) rec.promptTokens = *text.promptTokens;
                if (text.completionTokens) completion = text.completionTokens;
                if (text.text.empty()) continue;
            }
            r.tokens.push_back({rec.requestId, rec.outputTokens++, t});
        }
        rec.success = rec.outputTokens > 0;
        if (completion && *completion >= rec.outputTokens) rec.outputTokens = *completion;
        if (auto problem = limits::spanProblem(rec.startNs, rec.endNs))
            importError(path, field, *problem);
        first = std::min(first, rec.startNs);
        last = std::max(last, rec.endNs);
        r.requests.push_back(rec);
    }
    if (r.requests.empty()) importError(path, where + ".requests", "empty");
    const std::string modeText = mode && mode->is_string() ? mode->get<std::string>() : "";
    std::string setting;
    if (value && value->is_number()) {
        r.sweepValue = json_fields::shortestNumber(value->get<double>());
        setting = (modeText == "request_rate" ? "request-rate " : "concurrency ") + r.sweepValue;
    }
    r.run.label = label;  // finished by the caller, which knows the model
    r.run.startedAtNs = first;
    r.endedAtNs = last;
    r.run.command = "genai-perf profile (imported from " + path + ")";
    r.run.workload =
        WorkloadInfo{"", "imported", json{{"client", "GenAI-Perf"}, {"setting", setting}}.dump(1)};
    r.log = "[warpscope] " + std::string(kDefinitions) + "\n";
    r.properties = {{"benchmark_duration_ns", std::to_string(last - first)},
                    {"imported_from", path},
                    {"client", "GenAI-Perf"},
                    {"client.definitions", kDefinitions},
                    {"genai_perf.experiment", std::to_string(index)}};
    if (!modeText.empty()) r.properties.emplace_back("genai_perf.mode", modeText);
    if (!r.sweepValue.empty()) r.properties.emplace_back("genai_perf.value", r.sweepValue);
    for (const char* k : {"service_kind", "endpoint"})
        if (const json* v = member(doc, k); v && v->is_string() && !v->get<std::string>().empty())
            r.properties.emplace_back(std::string("genai_perf.") + k, v->get<std::string>());
    r.run.label += setting.empty() ? "" : " " + setting;
    return r;
}

}  // namespace

bool isGenaiPerfExport(const std::string& text) {
    auto start = text.find_first_not_of(" \t\r\n");
    if (start == std::string::npos || text[start] != '{') return false;
    // Every other JSON import is asked after this one: parse only a file
    // that can be one.
    if (text.find("\"experiments\"") == std::string::npos) return false;
    return looksLikeGenaiPerf(json::parse(text, nullptr, false));
}

ImportResult importGenaiPerfExport(Store& store, const std::string& path, const std::string& text,
                                   const std::string& label) {
    json doc = json::parse(text, nullptr, false);
    if (doc.is_discarded()) importError(path, "(file)", "not valid JSON");
    if (!looksLikeGenaiPerf(doc))
        importError(path, "experiments", "not GenAI-Perf's profile export");
    std::string model;
    std::vector<PreparedRun> runs;
    for (std::size_t i = 0; i < doc["experiments"].size(); ++i)
        runs.push_back(readExperiment(path, doc, i, "", model));
    const std::string name = model.empty() ? "genai-perf" : model;
    std::set<std::string> modes, values;
    for (auto& r : runs) {
        r.run.label = (label.empty() ? "GenAI-Perf " + name : label) + r.run.label;
        r.run.workload->name = name;
        for (const auto& [k, v] : r.properties) {
            if (k == "genai_perf.mode") modes.insert(v);
            if (k == "genai_perf.value") values.insert(v);
        }
    }
    // Experiments of one mode at several values are a sweep of that setting.
    const std::string parameter =
        values.size() > 1 && modes.size() == 1
            ? (*modes.begin() == "request_rate" ? "request-rate" : "max-concurrency")
            : "";
    return storePreparedRuns(store, "GenAI-Perf profile export", runs, "GenAI-Perf " + name,
                             parameter);
}

}  // namespace ws
