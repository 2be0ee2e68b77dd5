#include "per_request_arrays.h"

#include <limits>

#include "io/import_run.h"
#include "json_fields.h"
#include "model/value_limits.h"

namespace ws {

using nlohmann::json;

namespace {

const json& array(const std::string& path, const json& doc, const std::string& where,
                  const char* name) {
    auto it = doc.find(name);
    if (it == doc.end()) importError(path, where + name, "missing");
    if (!it->is_array()) importError(path, where + name, "not an array");
    return *it;
}

}  // namespace

std::int64_t secondsToNs(const std::string& path, const std::string& field, long double seconds) {
    auto ns = limits::toNs(seconds, 1e9L, 0, limits::kLongestSpanNs);
    if (!ns) importError(path, field, "negative, over a year or not finite");
    return *ns;
}

PerRequestArrays readPerRequestArrays(const std::string& path, const json& doc,
                                      const std::string& where) {
    const json& ttfts = array(path, doc, where, "ttfts");
    const json& itls = array(path, doc, where, "itls");
    const json& outputLens = array(path, doc, where, "output_lens");
    std::size_t n = ttfts.size();
    if (itls.size() != n || outputLens.size() != n)
        importError(path, where + "itls/output_lens",
                    "have " + std::to_string(itls.size()) + "/" +
                        std::to_string(outputLens.size()) + " entries for " + std::to_string(n) +
                        " ttfts");
    const json* inputLens = doc.contains("input_lens") ? &doc["input_lens"] : nullptr;
    const json* errors = doc.contains("errors") ? &doc["errors"] : nullptr;

    PerRequestArrays out;
    for (std::size_t i = 0; i < n; ++i) {
        auto at = "[" + std::to_string(i) + "]";
        if (!ttfts[i].is_number()) importError(path, where + "ttfts" + at, "not a number");
        const int outputLen = json_fields::countOf(path, where + "output_lens" + at, outputLens[i]);
        if (!itls[i].is_array()) importError(path, where + "itls" + at, "not an array");
        bool failed = errors && errors->is_array() && i < errors->size() &&
                      (*errors)[i].is_string() && !(*errors)[i].get<std::string>().empty();
        RequestRecord q;
        q.requestId = static_cast<std::int64_t>(i);
        q.startNs = 0;  // no arrival times in these files: requests are aligned at 0
        q.outputTokens = outputLen;
        if (inputLens && inputLens->is_array() && i < inputLens->size() &&
            (*inputLens)[i].is_number_integer())
            q.promptTokens = json_fields::countOf(path, where + "input_lens" + at, (*inputLens)[i]);
        q.success = !failed && q.outputTokens > 0;
        long double t = ttfts[i].get<double>();
        std::int64_t first = secondsToNs(path, where + "ttfts" + at, t);
        if (q.success) out.tokens.push_back({q.requestId, 0, first});
        int index = 1;
        for (std::size_t g = 0; g < itls[i].size(); ++g) {
            const auto& gap = itls[i][g];
            auto field = where + "itls" + at + "[" + std::to_string(g) + "]";
            if (!gap.is_number()) importError(path, field, "not a number");
            long double seconds = gap.get<double>();
            if (!(seconds >= 0)) importError(path, field, "negative or not finite");
            t += seconds;
            if (q.success)
                out.tokens.push_back({q.requestId, index++, secondsToNs(path, field, t)});
        }
        q.endNs = secondsToNs(path, where + "itls" + at, t);
        out.requests.push_back(q);
    }
    return out;
}

}  // namespace ws
