#include "serving/http/openai_protocol.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

namespace ws::serving::http {

namespace {

using json = nlohmann::ordered_json;

struct FieldError {
    std::string param;
    std::string message;
};

[[noreturn]] void fail(const std::string& param, const std::string& message) {
    throw FieldError{param, message};
}

// nlohmann's messages start with "[json.exception.parse_error.101] ": the
// rest is the sentence a client can use.
std::string withoutTag(const std::string& what) {
    const auto end = what.rfind("] ", what.find(' '));
    return what.rfind("[json.exception.", 0) == 0 && end != std::string::npos ? what.substr(end + 2)
                                                                              : what;
}

std::string shown(const json& value) {
    std::string s = value.dump(-1, ' ', false, json::error_handler_t::replace);
    return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

std::string dumped(const json& value) {
    return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

const json* field(const json& object, const char* key) {
    auto it = object.find(key);
    return it == object.end() || it->is_null() ? nullptr : &*it;
}

std::optional<bool> optBool(const json& object, const char* key) {
    const json* v = field(object, key);
    if (!v) return std::nullopt;
    if (!v->is_boolean()) fail(key, "expected true or false, got " + shown(*v));
    return v->get<bool>();
}

// An integer (or a number with no fraction, as pydantic accepts) in [min, max].
long long integerValue(const json& value, const std::string& param, long long min, long long max,
                       const std::string& what) {
    long long n = 0;
    if (value.is_number_unsigned()) {
        auto u = value.get<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(max))
            fail(param, "expected " + what + ", got " + shown(value));
        n = static_cast<long long>(u);
    } else if (value.is_number_integer()) {
        n = value.get<long long>();
    } else if (value.is_number_float()) {
        double d = value.get<double>();
        if (!std::isfinite(d) || d != std::floor(d) || d < static_cast<double>(min) ||
            d > static_cast<double>(max))
            fail(param, "expected " + what + ", got " + shown(value));
        n = static_cast<long long>(d);
    } else {
        fail(param, "expected " + what + ", got " + shown(value));
    }
    if (n < min || n > max) fail(param, "expected " + what + ", got " + shown(value));
    return n;
}

std::optional<long long> optInteger(const json& object, const char* key, long long min,
                                    long long max, const std::string& what) {
    const json* v = field(object, key);
    if (!v) return std::nullopt;
    return integerValue(*v, key, min, max, what);
}

std::optional<double> optNumber(const json& object, const char* key, double min, double max) {
    const json* v = field(object, key);
    if (!v) return std::nullopt;
    if (!v->is_number() || v->get<double>() < min || v->get<double>() > max)
        fail(key, "expected a number between " + shown(json(min)) + " and " + shown(json(max)) +
                      ", got " + shown(*v));
    return v->get<double>();
}

// Parameters this server does not implement are refused unless they ask for
// what it does anyway, rather than silently ignored.
void requireDefault(const json& object, const char* key, bool (*isDefault)(const json&),
                    const std::string& reason) {
    const json* v = field(object, key);
    if (v && !isDefault(*v)) fail(key, reason + ", got " + shown(*v));
}

bool isOne(const json& v) {
    return v.is_number() && v.get<double>() == 1.0;
}
bool isFalse(const json& v) {
    return v.is_boolean() && !v.get<bool>();
}
bool isZeroOrFalse(const json& v) {
    return isFalse(v) || (v.is_number() && v.get<double>() == 0.0);
}
bool isEmpty(const json& v) {
    return (v.is_string() || v.is_array()) && v.empty();
}

std::vector<TokenId> tokenIds(const json& array, const std::string& param) {
    std::vector<TokenId> ids;
    ids.reserve(array.size());
    for (std::size_t i = 0; i < array.size(); ++i)
        ids.push_back(static_cast<TokenId>(
            integerValue(array[i], param + "[" + std::to_string(i) + "]", 0,
                         std::numeric_limits<TokenId>::max(), "a token id (an integer >= 0)")));
    return ids;
}

bool allIntegers(const json& array) {
    for (const auto& v : array)
        if (!v.is_number()) return false;
    return true;
}

void parsePrompt(const json& body, CompletionRequest& r) {
    const json* p = field(body, "prompt");
    if (!p) fail("prompt", "required: a string or a list of token ids");
    if (p->is_string()) {
        r.promptText = p->get<std::string>();
        return;
    }
    if (!p->is_array())
        fail("prompt", "expected a string or a list of token ids, got " + shown(*p));
    if (p->empty()) fail("prompt", "must not be empty");
    if (allIntegers(*p)) {
        r.promptIds = tokenIds(*p, "prompt");
        return;
    }
    if (p->size() > 1 && ((*p)[0].is_string() || (*p)[0].is_array()))
        fail("prompt",
             "one prompt per request is supported, got a list of " + std::to_string(p->size()));
    const json& only = (*p)[0];
    if (only.is_string()) {
        r.promptText = only.get<std::string>();
    } else if (only.is_array() && !only.empty() && allIntegers(only)) {
        r.promptIds = tokenIds(only, "prompt[0]");
    } else {
        fail("prompt", "expected a string or a list of token ids, got " + shown(*p));
    }
}

void parseMessages(const json& body, CompletionRequest& r) {
    const json* m = field(body, "messages");
    if (!m) fail("messages", "required: a list of {\"role\", \"content\"} messages");
    if (!m->is_array() || m->empty())
        fail("messages", "expected a non-empty list of messages, got " + shown(*m));
    for (std::size_t i = 0; i < m->size(); ++i) {
        const json& msg = (*m)[i];
        const std::string at = "messages[" + std::to_string(i) + "]";
        if (!msg.is_object()) fail(at, "expected an object, got " + shown(msg));
        const json* role = field(msg, "role");
        static const char* roles[] = {"system", "developer", "user", "assistant", "tool"};
        bool known = false;
        for (const char* name : roles)
            known = known || (role && role->is_string() && role->get<std::string>() == name);
        if (!known)
            fail(at + ".role", "expected one of system, developer, user, assistant, tool, got " +
                                   (role ? shown(*role) : std::string("nothing")));
        ChatMessage out{role->get<std::string>(), {}};
        const json* content = field(msg, "content");
        if (!content) {
            if (out.role != "assistant") fail(at + ".content", "required");
        } else if (content->is_string()) {
            out.content = content->get<std::string>();
        } else if (content->is_array()) {
            for (std::size_t j = 0; j < content->size(); ++j) {
                const json& part = (*content)[j];
                const std::string partAt = at + ".content[" + std::to_string(j) + "]";
                const json* type = part.is_object() ? field(part, "type") : nullptr;
                const json* text = part.is_object() ? field(part, "text") : nullptr;
                if (!type || *type != "text" || !text || !text->is_string())
                    fail(partAt,
                         "only {\"type\": \"text\", \"text\": ...} parts are supported, got " +
                             shown(part));
                if (j > 0) out.content += "\n";
                out.content += text->get<std::string>();
            }
        } else {
            fail(at + ".content",
                 "expected a string or a list of text parts, got " + shown(*content));
        }
        r.messages.push_back(std::move(out));
    }
    r.promptText = applyChatTemplate(r.messages);
}

CompletionRequest parseFields(const json& body, Endpoint endpoint) {
    CompletionRequest r;
    r.endpoint = endpoint;
    if (const json* model = field(body, "model")) {
        if (!model->is_string()) fail("model", "expected a string, got " + shown(*model));
        r.model = model->get<std::string>();
    }
    if (endpoint == Endpoint::Completions)
        parsePrompt(body, r);
    else
        parseMessages(body, r);

    r.stream = optBool(body, "stream").value_or(false);
    if (const json* options = field(body, "stream_options")) {
        if (!r.stream) fail("stream_options", "only allowed with \"stream\": true");
        if (!options->is_object())
            fail("stream_options", "expected an object, got " + shown(*options));
        try {
            r.includeUsage = optBool(*options, "include_usage").value_or(false);
        } catch (const FieldError& e) {
            fail("stream_options." + e.param, e.message);
        }
    }
    const std::string tokensWhat = "an integer >= 1";
    constexpr long long kMaxInt = std::numeric_limits<int>::max();
    if (auto n = optInteger(body, "max_tokens", 1, kMaxInt, tokensWhat)) r.maxTokens = int(*n);
    if (endpoint == Endpoint::ChatCompletions)
        if (auto n = optInteger(body, "max_completion_tokens", 1, kMaxInt, tokensWhat)) {
            r.maxTokens = int(*n);
            r.maxTokensField = "max_completion_tokens";
        }
    r.ignoreEos = optBool(body, "ignore_eos").value_or(false);
    r.temperature = optNumber(body, "temperature", 0.0, 2.0).value_or(1.0);
    if (const json* seed = field(body, "seed")) {
        if (seed->is_number_unsigned())
            r.seed = seed->get<std::uint64_t>();
        else
            r.seed = static_cast<std::uint64_t>(
                integerValue(*seed, "seed", std::numeric_limits<long long>::min(),
                             std::numeric_limits<long long>::max(), "an integer"));
    }

    requireDefault(body, "n", isOne, "only n = 1 is supported");
    requireDefault(body, "best_of", isOne, "only best_of = 1 is supported");
    requireDefault(body, "echo", isFalse, "echo is not supported");
    requireDefault(body, "suffix", isEmpty, "suffix is not supported");
    requireDefault(body, "stop", isEmpty, "stop sequences are not supported");
    requireDefault(body, "logprobs", isZeroOrFalse, "logprobs are not supported");
    requireDefault(body, "top_logprobs", isZeroOrFalse, "logprobs are not supported");
    return r;
}

json usageObject(const Usage& u) {
    return json{{"prompt_tokens", u.promptTokens},
                {"total_tokens", u.promptTokens + u.completionTokens},
                {"completion_tokens", u.completionTokens}};
}

json finishValue(std::optional<FinishReason> finish) {
    return finish ? json(toString(*finish)) : json(nullptr);
}

// A choice: completions carry `text`; chat carries `chatKey` ("delta" when
// streamed, "message" in a whole body) holding `chatValue`.
json choiceOf(Endpoint endpoint, const std::string& text, const char* chatKey, json chatValue,
              json finish) {
    if (endpoint == Endpoint::Completions)
        return json{{"index", 0},
                    {"text", text},
                    {"logprobs", nullptr},
                    {"finish_reason", std::move(finish)},
                    {"stop_reason", nullptr}};
    return json{{"index", 0},
                {chatKey, std::move(chatValue)},
                {"logprobs", nullptr},
                {"finish_reason", std::move(finish)}};
}

// One streamed chunk holding one choice.
std::string chunkEvent(const std::string& id, const std::string& object, std::int64_t created,
                       const std::string& model, json choice) {
    json chunk{{"id", id},
               {"object", object},
               {"created", created},
               {"model", model},
               {"choices", json::array({std::move(choice)})}};
    return "data: " + dumped(chunk) + "\n\n";
}

}  // namespace

std::string errorType(int status) {
    switch (status) {
        case 400:
            return "BadRequestError";
        case 404:
            return "NotFoundError";
        case 413:
            return "RequestTooLargeError";
        case 429:
            return "RateLimitError";
        case 503:
            return "ServiceUnavailableError";
        default:
            return status >= 500 ? "InternalServerError" : "BadRequestError";
    }
}

std::string errorJson(const ApiError& e) {
    json error{{"message", e.message},
               {"type", errorType(e.status)},
               {"param", e.param.empty() ? json(nullptr) : json(e.param)},
               {"code", e.status}};
    return dumped(json{{"error", std::move(error)}});
}

std::variant<CompletionRequest, ApiError> parseCompletionRequest(std::string_view body,
                                                                 Endpoint endpoint) {
    // A body of nested arrays 500,000 deep (1 MB) once crashed the server:
    // printing it for the error overflowed the stack. No request field nests
    // deeper than a few levels, so the parse stops past kMaxNesting.
    constexpr int kMaxNesting = 64;
    struct TooDeep {};
    const json::parser_callback_t limit = [](int depth, json::parse_event_t, json&) {
        if (depth > kMaxNesting) throw TooDeep{};
        return true;
    };
    json parsed;
    try {
        parsed = json::parse(body.begin(), body.end(), limit);
    } catch (const json::parse_error& e) {
        return ApiError{400, "the request body is not valid JSON: " + withoutTag(e.what()), {}};
    } catch (const json::out_of_range& e) {  // a number past a double's range, as 1e400
        return ApiError{
            400, "the request body holds a number out of range: " + withoutTag(e.what()), {}};
    } catch (const TooDeep&) {
        return ApiError{
            400,
            "the request body nests deeper than " + std::to_string(kMaxNesting) + " levels",
            {}};
    }
    if (!parsed.is_object())
        return ApiError{400, "the request body must be a JSON object, got " + shown(parsed), {}};
    try {
        return parseFields(parsed, endpoint);
    } catch (const FieldError& e) {
        return ApiError{400, e.param + ": " + e.message, e.param};
    }
}

std::string applyChatTemplate(const std::vector<ChatMessage>& messages) {
    std::string out;
    for (const auto& m : messages)
        out += "<|" + m.role + "|>\n" + m.content + "\n";
    return out + "<|assistant|>\n";
}

ResponseFormat::ResponseFormat(Endpoint endpoint, std::string model, std::string id,
                               std::int64_t created)
    : endpoint_(endpoint), model_(std::move(model)), id_(std::move(id)), created_(created) {}

std::string ResponseFormat::chunkObject() const {
    return endpoint_ == Endpoint::Completions ? "text_completion" : "chat.completion.chunk";
}

std::string ResponseFormat::roleEvent() const {
    json choice{{"index", 0},
                {"delta", {{"role", "assistant"}, {"content", ""}}},
                {"logprobs", nullptr},
                {"finish_reason", nullptr}};
    return chunkEvent(id_, chunkObject(), created_, model_, std::move(choice));
}

std::string ResponseFormat::deltaEvent(const std::string& text,
                                       std::optional<FinishReason> finish) const {
    return chunkEvent(id_, chunkObject(), created_, model_,
                      choiceOf(endpoint_, text, "delta", {{"content", text}}, finishValue(finish)));
}

std::string ResponseFormat::usageEvent(const Usage& usage) const {
    json chunk{{"id", id_},       {"object", chunkObject()},  {"created", created_},
               {"model", model_}, {"choices", json::array()}, {"usage", usageObject(usage)}};
    return "data: " + dumped(chunk) + "\n\n";
}

std::string ResponseFormat::errorEvent(const ApiError& error) {
    return "data: " + errorJson(error) + "\n\n";
}

std::string ResponseFormat::doneEvent() {
    return "data: [DONE]\n\n";
}

std::string ResponseFormat::body(const std::string& text, FinishReason finish,
                                 const Usage& usage) const {
    json choice = choiceOf(endpoint_, text, "message", {{"role", "assistant"}, {"content", text}},
                           finishValue(finish));
    json response{
        {"id", id_},
        {"object", endpoint_ == Endpoint::Completions ? "text_completion" : "chat.completion"},
        {"created", created_},
        {"model", model_},
        {"choices", json::array({std::move(choice)})},
        {"usage", usageObject(usage)}};
    return dumped(response);
}

std::string modelsJson(const std::string& model, std::int64_t created, int maxModelLen) {
    json card{{"id", model},
              {"object", "model"},
              {"created", created},
              {"owned_by", "warpscope"},
              {"root", model},
              {"parent", nullptr},
              {"max_model_len", maxModelLen}};
    return dumped(json{{"object", "list"}, {"data", json::array({std::move(card)})}});
}

}  // namespace ws::serving::http
