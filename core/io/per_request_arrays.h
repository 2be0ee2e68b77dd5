// vLLM's `bench serve --save-result` and SGLang's `bench_serving
// --output-details` keep the same per-request arrays: ttfts and itls in
// seconds, output_lens, and optionally input_lens and errors. Neither keeps
// arrival times, so the requests are aligned at 0, with a token at the first
// chunk and after each inter-token gap.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/records.h"

namespace ws {

struct PerRequestArrays {
    std::vector<RequestRecord> requests;
    std::vector<TokenRecord> tokens;
};

// `where` prefixes the field names in errors ("line 3: "). Throws the
// importer's error naming the file, the field and why.
PerRequestArrays readPerRequestArrays(const std::string& path, const nlohmann::json& doc,
                                      const std::string& where = "");

// A number of seconds as nanoseconds, or an import error naming the field:
// negative, not finite, or beyond a year.
std::int64_t secondsToNs(const std::string& path, const std::string& field, long double seconds);

}  // namespace ws
