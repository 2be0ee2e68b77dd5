// The OpenAI API subset that vLLM and SGLang serve, as data: parsing
// /v1/completions and /v1/chat/completions bodies (each error names the
// field at fault), the chat template, and the JSON of responses, streamed
// chunks and errors. No sockets here; openai_server.cpp puts it on HTTP.
//
// Field names and shapes follow vLLM's OpenAI server: errors are
// {"error": {"message", "type", "param", "code"}} with the HTTP status as
// code; a stream is `data: {chunk}` events, an optional usage chunk (empty
// choices) and `data: [DONE]`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "serving/types.h"

namespace ws::serving::http {

// A request carrying this header gets, before each streamed write, an SSE
// comment line ": emit <Unix ns>\n" with the time of that write (every SSE
// reader skips comments). `bench serve` sends it to tell the client's delay
// from the server's; docs/serving.md.
inline constexpr const char* kEmitTimeHeader = "X-Warpscope-Emit-Time";

enum class Endpoint { Completions, ChatCompletions };

struct ApiError {
    int status = 400;
    std::string message;
    std::string param;  // the request field at fault; empty: none (null)
};
// "BadRequestError", "NotFoundError", ... as vLLM (and the OpenAI SDK) name them.
std::string errorType(int status);
std::string errorJson(const ApiError& error);

struct ChatMessage {
    std::string role;
    std::string content;
};

struct CompletionRequest {
    Endpoint endpoint = Endpoint::Completions;
    std::optional<std::string> model;
    std::string promptText;  // text (chat: the messages through the template)
    std::optional<std::vector<TokenId>> promptIds;  // completions: a prompt of token ids
    std::vector<ChatMessage> messages;
    bool stream = false;
    bool includeUsage = false;
    std::optional<int> maxTokens;
    std::string maxTokensField = "max_tokens";  // or max_completion_tokens (chat)
    bool ignoreEos = false;
    double temperature = 1.0;
    std::optional<std::uint64_t> seed;
};

std::variant<CompletionRequest, ApiError> parseCompletionRequest(std::string_view body,
                                                                 Endpoint endpoint);

// The chat template of the byte-level models: each message as
// "<|role|>\n" + content + "\n", then "<|assistant|>\n" (docs/serving.md).
std::string applyChatTemplate(const std::vector<ChatMessage>& messages);

struct Usage {
    int promptTokens = 0;
    int completionTokens = 0;
};

// The bodies of one request's response, with its id, creation time and model.
class ResponseFormat {
  public:
    ResponseFormat(Endpoint endpoint, std::string model, std::string id, std::int64_t created);

    const std::string& id() const { return id_; }
    Endpoint endpoint() const { return endpoint_; }
    // Server-sent events, each "data: ...\n\n".
    std::string roleEvent() const;  // chat: the first chunk, delta {"role": "assistant"}
    std::string deltaEvent(const std::string& text, std::optional<FinishReason> finish) const;
    std::string usageEvent(const Usage& usage) const;
    static std::string errorEvent(const ApiError& error);
    static std::string doneEvent();
    // A non-streaming response.
    std::string body(const std::string& text, FinishReason finish, const Usage& usage) const;

  private:
    std::string chunkObject() const;

    Endpoint endpoint_;
    std::string model_;
    std::string id_;
    std::int64_t created_;
};

std::string modelsJson(const std::string& model, std::int64_t created, int maxModelLen);

}  // namespace ws::serving::http
