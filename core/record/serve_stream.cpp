#include "serve_stream.h"

#include "util/text.h"

#include <simdjson.h>
#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdint>

namespace ws {

namespace {

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
    // simdjson's DOM parser: it validates the whole event (a malformed one is
    // refused as nlohmann_json refused it) at a tenth of nlohmann's cost per
    // chunk (BM_ServeReaderPerChunk); one parser a thread, reused. Unlike
    // nlohmann it refuses integers past 64 bits anywhere in an event, which
    // no OpenAI-compatible server sends in a chunk.
    thread_local simdjson::dom::parser parser;
    simdjson::dom::object j;
    if (parser.parse(data.data(), data.size()).get_object().get(j) != simdjson::SUCCESS) {
        sseError_ = "malformed SSE event: " + std::string(data.substr(0, 200));
        return false;
    }
    if (simdjson::dom::element e; j["error"].get(e) == simdjson::SUCCESS) {
        std::string_view message;
        if (e["message"].get_string().get(message) != simdjson::SUCCESS)
            message = std::string_view();
        if (sseError_.empty())
            sseError_ = "error event: " +
                        (message.data() ? std::string(message) : std::string(simdjson::minify(e)));
        return true;
    }
    // A chunk is every event with choices, its text empty or not, as `vllm
    // bench serve` times them: a token that renders no text (EOS, a special
    // token, the first bytes of a character) still arrived, and vLLM's
    // server, like ours, sends chat's role chunk with the first token. The
    // usage event's choices are empty.
    if (simdjson::dom::array choices;
        j["choices"].get_array().get(choices) == simdjson::SUCCESS && choices.size() > 0) {
        result.chunkNs.push_back(atNs);
        if (emitNs_) result.emitDelayNs.push_back(atNs - *emitNs_);
        // Chat's role chunk holds no token: left out of the count a stream
        // without usage gets (vLLM tokenizes the text instead).
        std::string_view content;
        simdjson::dom::element delta;
        if (choices.at(0)["delta"].get(delta) == simdjson::SUCCESS &&
            delta["role"].error() == simdjson::SUCCESS &&
            (delta["content"].get_string().get(content) != simdjson::SUCCESS || content.empty()))
            ++roleChunks_;
    }
    if (simdjson::dom::object u; j["usage"].get_object().get(u) == simdjson::SUCCESS) {
        auto count = [&](const char* key, int& into) {
            std::int64_t v = 0;
            if (u[key].get_int64().get(v) != simdjson::SUCCESS) return false;
            into = static_cast<int>(std::clamp<std::int64_t>(v, INT32_MIN, INT32_MAX));
            return true;
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
    // Only the new bytes can end the line: a 64 MiB event in 16 KiB reads was
    // searched from its start each time (quadratic, ~5 s of CPU).
    const std::size_t fresh = line_.size();
    line_.append(data, size);
    std::size_t begin = 0;
    for (auto end = line_.find('\n', fresh); end != std::string::npos;
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
    if (!result.usageReported)
        result.outputTokens = static_cast<int>(result.chunkNs.size() - roleChunks_);
    if (!sseError_.empty())
        result.error = forTerminal(sseError_);
    else if (!transportError.empty())
        result.error = transportError;
    else if (status_ != 200)
        // The server's bytes as text a terminal shows as they are (escapes
        // and control characters made visible, not obeyed).
        result.error = "HTTP " + std::to_string(status_) + ": " + forTerminal(errorBody_);
    else if (!sawDone_)
        result.error = "the stream ended without [DONE]";
    else if (result.chunkNs.empty())
        result.error = "the stream carried no chunk with choices (no token to time)";
}

}  // namespace ws
