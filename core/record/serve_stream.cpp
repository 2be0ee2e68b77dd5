#include "serve_stream.h"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

namespace ws {

namespace {

using json = nlohmann::json;
constexpr std::size_t kBodyKept = 2048;  // of an error response's body

// The Unix ns of an ": emit NS" comment; nullopt unless it is all digits.
std::optional<std::int64_t> parseEmitTime(std::string_view digits) {
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || end != digits.data() + digits.size() || v <= 0) return std::nullopt;
    return v;
}

}  // namespace

bool ServeStream::event(std::string_view data, std::int64_t atNs) {
    if (data == "[DONE]") {
        sawDone_ = true;
        return true;
    }
    auto j = json::parse(data.begin(), data.end(), nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        sseError_ = "malformed SSE event: " + std::string(data.substr(0, 200));
        return false;
    }
    if (auto e = j.find("error"); e != j.end()) {
        std::string message =
            e->is_object() && e->contains("message") && (*e)["message"].is_string()
                ? (*e)["message"].get<std::string>()
                : e->dump();
        if (sseError_.empty()) sseError_ = "error event: " + message;
        return true;
    }
    if (auto c = j.find("choices"); c != j.end() && c->is_array() && !c->empty()) {
        const json& choice = (*c)[0];
        const json* text = nullptr;
        if (chat_) {
            if (auto d = choice.find("delta"); d != choice.end() && d->is_object())
                if (auto t = d->find("content"); t != d->end()) text = &*t;
        } else if (auto t = choice.find("text"); t != choice.end()) {
            text = &*t;
        }
        if (text && text->is_string() && !text->get_ref<const std::string&>().empty()) {
            result.chunkNs.push_back(atNs);
            if (emitNs_) result.emitDelayNs.push_back(atNs - *emitNs_);
        }
    }
    if (auto u = j.find("usage"); u != j.end() && u->is_object()) {
        auto count = [&](const char* key, int& into) {
            if (auto v = u->find(key); v != u->end() && v->is_number_integer()) {
                into = v->get<int>();
                return true;
            }
            return false;
        };
        count("prompt_tokens", result.promptTokens);
        if (count("completion_tokens", result.outputTokens)) result.usageReported = true;
    }
    return true;
}

bool ServeStream::body(const char* data, std::size_t size, std::int64_t atNs) {
    if (status_ != 200) {
        errorBody_.append(data, std::min(size, kBodyKept - std::min(kBodyKept, errorBody_.size())));
        return true;
    }
    line_.append(data, size);
    std::size_t begin = 0;
    for (auto end = line_.find('\n'); end != std::string::npos;
         begin = end + 1, end = line_.find('\n', begin)) {
        std::string_view l(line_.data() + begin, end - begin);
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        if (l.substr(0, 7) == ": emit ") {
            emitNs_ = parseEmitTime(l.substr(7));
            continue;
        }
        if (l.substr(0, 5) != "data:") continue;  // blank, comment, event:, id:, retry:
        l.remove_prefix(5);
        if (!l.empty() && l.front() == ' ') l.remove_prefix(1);
        if (!event(l, atNs)) return false;
    }
    line_.erase(0, begin);
    return true;
}

void ServeStream::finish(const std::string& transportError, int datasetInput) {
    result.httpStatus = static_cast<int>(status_);
    if (result.promptTokens == 0) result.promptTokens = datasetInput;
    if (!result.usageReported) result.outputTokens = static_cast<int>(result.chunkNs.size());
    if (!sseError_.empty())
        result.error = sseError_;
    else if (!transportError.empty())
        result.error = transportError;
    else if (status_ != 200)
        result.error = "HTTP " + std::to_string(status_) + ": " + errorBody_;
    else if (!sawDone_)
        result.error = "the stream ended without [DONE]";
    else if (result.chunkNs.empty())
        result.error = "the stream carried no output text";
}

}  // namespace ws
