#include "serving/http/openai_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>

#include "serving/byte_tokenizer.h"
#include "serving/engine.h"
#include "serving/http/openai_protocol.h"

namespace ws::serving::http {

namespace {

using namespace std::chrono_literals;

// How long a handler waits on its request's stream before it looks again at
// its connection (httplib checks the socket between calls).
constexpr auto kPoll = 100ms;

void sendError(httplib::Response& res, const ApiError& error) {
    res.status = error.status;
    res.set_content(errorJson(error), "application/json");
}

std::string statusText(int status) {
    switch (status) {
        case 400:
            return "Bad Request";
        case 404:
            return "Not Found";
        case 413:
            return "Payload Too Large";
        case 414:
            return "URI Too Long";
        default:
            return "HTTP error " + std::to_string(status);
    }
}

std::int64_t now() {
    return static_cast<std::int64_t>(std::time(nullptr));
}

// Cancels its request unless told it was consumed to the end: a handler that
// leaves early (its client gone, an exception) frees the request's sequence.
struct Consumer {
    std::shared_ptr<RequestStream> stream;
    bool ended = false;
    explicit Consumer(std::shared_ptr<RequestStream> s) : stream(std::move(s)) {}
    ~Consumer() {
        if (!ended) stream->cancel();
    }
    Consumer(const Consumer&) = delete;
    Consumer& operator=(const Consumer&) = delete;
};

// Completion responses from their start until their last byte is written (or
// their connection is gone): shutdown waits for none to be left before it
// closes the listener.
class ResponseCount {
  public:
    int value() const {
        std::lock_guard lock(mutex_);
        return count_;
    }
    bool waitForNone(std::chrono::milliseconds timeout) const {
        std::unique_lock lock(mutex_);
        return zero_.wait_for(lock, timeout, [&] { return count_ == 0; });
    }

    class Scope {
      public:
        explicit Scope(ResponseCount& c) : c_(c) {
            std::lock_guard lock(c_.mutex_);
            ++c_.count_;
        }
        ~Scope() {
            {
                std::lock_guard lock(c_.mutex_);
                --c_.count_;
            }
            c_.zero_.notify_all();
        }
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;

      private:
        ResponseCount& c_;
    };

  private:
    mutable std::mutex mutex_;
    mutable std::condition_variable zero_;
    int count_ = 0;
};

// httplib::Server with its listening socket in reach: httplib 0.11 listens
// with a backlog of 5 (compiled into Debian's library), and a benchmark that
// opens 128 connections at once overflows that queue (connections reset).
class Listener : public httplib::Server {
  public:
    // Raises the accept queue of the bound socket to the system's maximum.
    bool widenBacklog() {
        const int sock = svr_sock_;
        return sock >= 0 && ::listen(sock, SOMAXCONN) == 0;
    }
};

}  // namespace

struct OpenAiServer::Impl {
    Impl(Engine& e, ServerOptions o) : engine(e), options(std::move(o)) {}

    Engine& engine;
    const ServerOptions options;
    Listener server;
    const std::int64_t created = now();
    const std::uint64_t idSalt = [] {
        std::random_device rd;
        return (std::uint64_t{rd()} << 32) ^ rd();
    }();
    std::atomic<std::uint64_t> idCounter{0};

    ResponseCount responses;
    mutable std::mutex mutex;
    mutable std::condition_variable changed;
    bool serveEntered = false;
    bool serveReturned = false;
    bool shuttingDown = false;
    bool shutDown = false;

    std::string newId(Endpoint endpoint) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%s-%016llx%08llx",
                      endpoint == Endpoint::Completions ? "cmpl" : "chatcmpl",
                      static_cast<unsigned long long>(idSalt),
                      static_cast<unsigned long long>(++idCounter));
        return buf;
    }

    void routes();
    void health(httplib::Response& res);
    void completion(const httplib::Request& req, httplib::Response& res, Endpoint endpoint);
    void respondWhole(httplib::Response& res, std::shared_ptr<RequestStream> stream,
                      const ResponseFormat& format);
    void respondStream(httplib::Response& res, std::shared_ptr<RequestStream> stream,
                       ResponseFormat format, bool includeUsage, bool stampWrites);
};

namespace {

std::int64_t unixNowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// One streamed response: turns the request's tokens into server-sent events
// as they arrive. Owned by httplib's content provider; when httplib lets go
// of it before the end (the client disconnected), the request is cancelled.
class EventStream {
  public:
    EventStream(ResponseCount& responses, std::shared_ptr<RequestStream> stream,
                ResponseFormat format, bool includeUsage, bool stampWrites)
        : active_(responses),
          consumer_(std::move(stream)),
          format_(std::move(format)),
          includeUsage_(includeUsage),
          stampWrites_(stampWrites),
          roleSent_(format_.endpoint() != Endpoint::ChatCompletions) {}

    // One call of httplib's chunked content provider: writes what arrived.
    // False ends the response (the connection is gone).
    bool produce(httplib::DataSink& sink) {
        std::string out;
        RequestStream& stream = *consumer_.stream;
        RequestStream::Chunk chunk = stream.take(kPoll);
        // Chat's role chunk goes out with the first token, as vLLM's server
        // sends it: clients (vLLM's bench among them) time the first chunk
        // with choices as the first token.
        if (!roleSent_ && (!chunk.tokens.empty() || chunk.finish)) {
            out += format_.roleEvent();
            roleSent_ = true;
        }
        const bool normalEnd = chunk.finish && *chunk.finish != FinishReason::Abort;
        for (std::size_t i = 0; i < chunk.tokens.size(); ++i) {
            ++completionTokens_;
            std::string text = utf8_.push(ByteTokenizer::decodeBytes({chunk.tokens[i]}));
            const bool last = normalEnd && i + 1 == chunk.tokens.size();
            if (last) text += utf8_.flush();
            out += format_.deltaEvent(text, last ? chunk.finish : std::nullopt);
        }
        if (chunk.finish) {
            if (!normalEnd)
                out += ResponseFormat::errorEvent(
                    {503, chunk.error.empty() ? "the request was aborted" : chunk.error, {}});
            else if (includeUsage_)
                out += format_.usageEvent({stream.promptTokens(), completionTokens_});
            out += ResponseFormat::doneEvent();
            consumer_.ended = true;
        }
        // Asked for (kEmitTimeHeader): an SSE comment with the Unix time of
        // this write, which every SSE reader skips, so a client can tell its
        // own delay from the server's.
        if (stampWrites_ && !out.empty())
            out.insert(0, ": emit " + std::to_string(unixNowNs()) + "\n");
        if (!out.empty() && !sink.write(out.data(), out.size())) {
            consumer_.ended = false;  // not delivered: free the sequence if it still runs
            stream.cancel();
            return false;
        }
        if (consumer_.ended) sink.done();
        return true;
    }

  private:
    ResponseCount::Scope active_;
    Consumer consumer_;
    ResponseFormat format_;
    const bool includeUsage_;
    const bool stampWrites_;
    bool roleSent_;
    Utf8Stream utf8_;
    int completionTokens_ = 0;
};

}  // namespace

void OpenAiServer::Impl::routes() {
    server.Get("/health", [this](const httplib::Request&, httplib::Response& res) { health(res); });
    server.Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) {
        res.set_content(modelsJson(options.model, created, engine.config().maxModelLen),
                        "application/json");
    });
    server.Post("/v1/completions", [this](const httplib::Request& req, httplib::Response& res) {
        completion(req, res, Endpoint::Completions);
    });
    server.Post("/v1/chat/completions",
                [this](const httplib::Request& req, httplib::Response& res) {
                    completion(req, res, Endpoint::ChatCompletions);
                });
    if (options.profiler) {
        for (const bool start : {true, false})
            server.Post(start ? "/start_profile" : "/stop_profile",
                        [this, start](const httplib::Request&, httplib::Response& res) {
                            std::string error = options.profiler(start);
                            if (!error.empty()) sendError(res, {500, error, {}});
                        });
    }
    // Whatever httplib answers by itself (404, 413 for a body over the limit,
    // 400 for a malformed request) gets the same JSON error body.
    server.set_error_handler([this](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty() || res.is_chunked_content_provider_) return;
        std::string message = statusText(res.status);
        if (res.status == 404) message += ": " + req.method + " " + req.path;
        if (res.status == 413)
            message = "the request body is larger than the server's limit of " +
                      std::to_string(options.maxBodyBytes) + " bytes";
        sendError(res, {res.status, message, {}});
    });
    server.set_exception_handler(
        [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
            std::string what = "unknown exception";
            try {
                std::rethrow_exception(ep);
            } catch (const std::exception& e) {
                what = e.what();
            } catch (...) {
            }
            sendError(res, {500, "internal server error: " + what, {}});
        });
}

void OpenAiServer::Impl::health(httplib::Response& res) {
    EngineStats stats = engine.stats();
    switch (stats.state) {
        case EngineState::Ready:
            res.status = 200;
            return;
        case EngineState::Starting:
            return sendError(res, {503, "the server is starting: the model is not loaded yet", {}});
        case EngineState::Draining:
        case EngineState::Stopped:
            return sendError(res, {503, "the server is shutting down", {}});
        case EngineState::Failed:
            return sendError(res, {503, "the engine failed: " + stats.failure, {}});
    }
}

void OpenAiServer::Impl::completion(const httplib::Request& req, httplib::Response& res,
                                    Endpoint endpoint) {
    auto parsed = parseCompletionRequest(req.body, endpoint);
    if (auto* error = std::get_if<ApiError>(&parsed)) return sendError(res, *error);
    auto& r = std::get<CompletionRequest>(parsed);
    if (r.model && *r.model != options.model)
        return sendError(res, {404, "The model `" + *r.model + "` does not exist.", "model"});

    std::vector<TokenId> prompt = r.promptIds ? *r.promptIds : ByteTokenizer::encode(r.promptText);
    SamplingParams sampling;
    // As vLLM: 16 for completions, the rest of the context for chat.
    const int rest = engine.config().maxModelLen - static_cast<int>(prompt.size());
    sampling.maxTokens =
        r.maxTokens.value_or(endpoint == Endpoint::Completions ? 16 : std::max(rest, 1));
    sampling.ignoreEos = r.ignoreEos;
    sampling.temperature = r.temperature;
    sampling.seed = r.seed;

    Submission sub = engine.submit(std::move(prompt), sampling);
    switch (sub.status) {
        case SubmitStatus::Accepted:
            break;
        case SubmitStatus::Invalid: {
            std::string param = sub.invalid->field;
            if (param == "prompt" && endpoint == Endpoint::ChatCompletions) param = "messages";
            if (param == "max_tokens") param = r.maxTokensField;
            return sendError(res, {400, sub.invalid->message, param});
        }
        case SubmitStatus::QueueFull:
            return sendError(res, {429, sub.message, {}});
        case SubmitStatus::NotReady:
            return sendError(res, {503, "the server is starting: the model is not loaded yet", {}});
        case SubmitStatus::ShuttingDown:
            return sendError(res, {503, sub.message, {}});
    }
    ResponseFormat format(endpoint, options.model, newId(endpoint), now());
    if (r.stream)
        respondStream(res, std::move(sub.stream), std::move(format), r.includeUsage,
                      req.has_header(kEmitTimeHeader));
    else
        respondWhole(res, std::move(sub.stream), format);
}

void OpenAiServer::Impl::respondWhole(httplib::Response& res, std::shared_ptr<RequestStream> stream,
                                      const ResponseFormat& format) {
    ResponseCount::Scope active(responses);
    Consumer consumer(stream);
    std::vector<TokenId> tokens;
    RequestStream::Chunk chunk;
    // The engine ends every request (finished, or aborted by a drain or stop).
    while (!chunk.finish) {
        chunk = stream->take(kPoll);
        tokens.insert(tokens.end(), chunk.tokens.begin(), chunk.tokens.end());
    }
    consumer.ended = true;
    if (*chunk.finish == FinishReason::Abort)
        return sendError(res,
                         {503, chunk.error.empty() ? "the request was aborted" : chunk.error, {}});
    Utf8Stream utf8;
    std::string text = utf8.push(ByteTokenizer::decodeBytes(tokens)) + utf8.flush();
    Usage usage{stream->promptTokens(), static_cast<int>(tokens.size())};
    res.set_content(format.body(text, *chunk.finish, usage), "application/json");
}

void OpenAiServer::Impl::respondStream(httplib::Response& res,
                                       std::shared_ptr<RequestStream> stream, ResponseFormat format,
                                       bool includeUsage, bool stampWrites) {
    auto events = std::make_shared<EventStream>(responses, std::move(stream), std::move(format),
                                                includeUsage, stampWrites);
    res.set_header("Cache-Control", "no-cache");
    res.set_chunked_content_provider(
        "text/event-stream",
        [events](std::size_t, httplib::DataSink& sink) { return events->produce(sink); });
}

OpenAiServer::OpenAiServer(Engine& engine, ServerOptions options)
    : impl_(std::make_unique<Impl>(engine, std::move(options))) {
    const auto& o = impl_->options;
    const EngineConfig& c = engine.config();
    const int threads =
        o.threads > 0 ? o.threads : std::clamp(c.maxNumSeqs + c.maxWaiting + 8, 8, 4096);
    impl_->server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    impl_->server.set_read_timeout(o.readTimeout);
    impl_->server.set_write_timeout(o.writeTimeout);
    impl_->server.set_keep_alive_timeout(o.keepAlive.count());
    impl_->server.set_keep_alive_max_count(1000);
    impl_->server.set_payload_max_length(o.maxBodyBytes);
    // Each token is its own small write: Nagle's algorithm would hold them back.
    impl_->server.set_tcp_nodelay(true);
    // httplib's default also sets SO_REUSEPORT, with which a second server on
    // the same port would start and share the traffic instead of failing.
    impl_->server.set_socket_options([](int sock) {
        int yes = 1;
        ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    impl_->routes();
}

OpenAiServer::~OpenAiServer() {
    shutdown(0ms);
}

int OpenAiServer::bind() {
    // A client that disconnects makes the next send fail with EPIPE; httplib
    // 0.11 sends without MSG_NOSIGNAL, so SIGPIPE would end the process.
    std::signal(SIGPIPE, SIG_IGN);
    auto& o = impl_->options;
    errno = 0;
    int port = o.port;
    bool ok = port == 0 ? (port = impl_->server.bind_to_any_port(o.host)) > 0
                        : impl_->server.bind_to_port(o.host, port);
    if (!ok || !impl_->server.widenBacklog())
        throw std::runtime_error(
            "cannot listen on " + o.host + ":" + std::to_string(o.port) +
            (errno ? std::string(": ") + std::strerror(errno) : std::string()));
    return port;
}

void OpenAiServer::serve() {
    {
        std::lock_guard lock(impl_->mutex);
        impl_->serveEntered = true;
        if (impl_->shuttingDown) return;
    }
    impl_->server.listen_after_bind();
    {
        std::lock_guard lock(impl_->mutex);
        impl_->serveReturned = true;
    }
    impl_->changed.notify_all();
}

void OpenAiServer::shutdown(std::chrono::milliseconds drainTimeout) {
    Impl& impl = *impl_;
    bool waitForListener = false;
    {
        std::unique_lock lock(impl.mutex);
        if (impl.shuttingDown) {
            impl.changed.wait(lock, [&] { return impl.shutDown; });
            return;
        }
        impl.shuttingDown = true;
        waitForListener = impl.serveEntered;
    }
    impl.engine.drain(drainTimeout);
    // Streams write their last events (or find their client gone).
    impl.responses.waitForNone(impl.options.writeTimeout + 10s);
    if (waitForListener) {
        // serve() may not have reached its listen loop yet; stop() before
        // that would be lost.
        const auto deadline = std::chrono::steady_clock::now() + 10s;
        while (!impl.server.is_running() && std::chrono::steady_clock::now() < deadline) {
            {
                std::lock_guard lock(impl.mutex);
                if (impl.serveReturned) break;
            }
            std::this_thread::sleep_for(1ms);
        }
    }
    impl.server.stop();
    {
        std::lock_guard lock(impl.mutex);
        impl.shutDown = true;
    }
    impl.changed.notify_all();
}

int OpenAiServer::activeResponses() const {
    return impl_->responses.value();
}

}  // namespace ws::serving::http
