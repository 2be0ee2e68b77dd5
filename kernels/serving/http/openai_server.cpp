#include "serving/http/openai_server.h"

#include <sys/resource.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <map>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>

#include "serving/byte_tokenizer.h"
#include "serving/engine.h"
#include "serving/http/connection.h"
#include "serving/http/openai_protocol.h"

namespace ws::serving::http {

namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

// How long a shutdown lets replies that the drain ended write their last
// bytes before it closes every connection: a client that reads nothing must
// not hold the process (the drain timeout is the user's bound, this is ours).
constexpr auto kFlushGrace = 500ms;

std::int64_t now() {
    return static_cast<std::int64_t>(std::time(nullptr));
}

std::int64_t unixNowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Completion replies from their start until their last byte is written (or
// their connection is gone): a shutdown waits a little for none to be left.
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

// One completion's reply: takes the request's tokens as the engine pushes
// them (cued by the stream, run on the connection's strand) and writes them
// as server-sent events or, at the end, as one body. The connection holds it
// while the reply lasts; when it lets go first (the client left, a write
// failed), the request is cancelled and the engine frees its sequence.
class Completion : public std::enable_shared_from_this<Completion> {
  public:
    Completion(ResponseCount& responses, std::shared_ptr<Connection> connection,
               std::shared_ptr<RequestStream> stream, ResponseFormat format, bool streamed,
               bool includeUsage, bool stampWrites)
        : active_(responses),
          connection_(connection),
          stream_(std::move(stream)),
          format_(std::move(format)),
          streamed_(streamed),
          includeUsage_(includeUsage),
          stampWrites_(stampWrites),
          roleSent_(format_.endpoint() != Endpoint::ChatCompletions) {}
    ~Completion() {
        if (!ended_) stream_->cancel();
    }
    Completion(const Completion&) = delete;
    Completion& operator=(const Completion&) = delete;

    // On the connection's strand.
    void start(Connection& connection) {
        connection.attach(shared_from_this());
        if (streamed_) connection.beginStream("text/event-stream");
        stream_->setListener([weak = weak_from_this()] {
            if (auto self = weak.lock()) self->cue();
        });
    }

  private:
    void cue() {
        if (cued_.exchange(true)) return;
        if (auto connection = connection_.lock())
            connection->post([self = shared_from_this()] { self->pump(); });
    }

    void pump() {
        cued_ = false;  // before the take: tokens pushed after it cue again
        auto connection = connection_.lock();
        if (!connection || connection->closed() || ended_) return;
        RequestStream::Chunk chunk = stream_->take(0ms);
        if (streamed_)
            sendEvents(*connection, chunk);
        else
            collect(*connection, chunk);
    }

    void sendEvents(Connection& connection, const RequestStream::Chunk& chunk) {
        std::string out;
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
                out += format_.usageEvent({stream_->promptTokens(), completionTokens_});
            out += ResponseFormat::doneEvent();
            ended_ = true;
        }
        // Asked for (kEmitTimeHeader): an SSE comment with the Unix time of
        // this write, which every SSE reader skips, so a client can tell its
        // own delay from the server's.
        if (stampWrites_ && !out.empty())
            out.insert(0, ": emit " + std::to_string(unixNowNs()) + "\n");
        if (!out.empty()) connection.send(std::move(out));
        if (ended_) connection.endStream();
    }

    void collect(Connection& connection, const RequestStream::Chunk& chunk) {
        tokens_.insert(tokens_.end(), chunk.tokens.begin(), chunk.tokens.end());
        if (!chunk.finish) return;
        ended_ = true;
        if (*chunk.finish == FinishReason::Abort) {
            ApiError error{503, chunk.error.empty() ? "the request was aborted" : chunk.error, {}};
            return connection.reply(error.status, "application/json", errorJson(error));
        }
        Utf8Stream utf8;
        std::string text = utf8.push(ByteTokenizer::decodeBytes(tokens_)) + utf8.flush();
        Usage usage{stream_->promptTokens(), static_cast<int>(tokens_.size())};
        connection.reply(200, "application/json", format_.body(text, *chunk.finish, usage));
    }

    ResponseCount::Scope active_;
    std::weak_ptr<Connection> connection_;
    std::shared_ptr<RequestStream> stream_;
    ResponseFormat format_;
    const bool streamed_;
    const bool includeUsage_;
    const bool stampWrites_;
    bool roleSent_;
    bool ended_ = false;
    std::atomic<bool> cued_{false};
    Utf8Stream utf8_;
    int completionTokens_ = 0;
    std::vector<TokenId> tokens_;  // a whole reply's, until its end
};

// The descriptors a server may hold: the soft limit raised to the hard one
// (often 1024 → 524288), as servers for many clients do.
long openFileLimit() {
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
    if (limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = std::min<rlim_t>(limit.rlim_max, 1 << 20);
        ::setrlimit(RLIMIT_NOFILE, &limit);
        ::getrlimit(RLIMIT_NOFILE, &limit);
    }
    return static_cast<long>(std::min<rlim_t>(limit.rlim_cur, 1 << 20));
}

}  // namespace

struct OpenAiServer::Impl {
    Impl(Engine& e, ServerOptions o) : engine(e), options(std::move(o)) {}

    Engine& engine;
    const ServerOptions options;
    const std::int64_t created = now();
    const std::uint64_t idSalt = [] {
        std::random_device rd;
        return (std::uint64_t{rd()} << 32) ^ rd();
    }();
    std::atomic<std::uint64_t> idCounter{0};
    ConnectionRules rules;
    int maxConnections = 0;
    std::atomic<bool> stopping{false};

    // Declared before the loop: what its handlers still hold when it is
    // destroyed (connections, completions) refers to these.
    ResponseCount responses;
    std::mutex connectionsMutex;
    std::map<std::uint64_t, std::weak_ptr<Connection>> connections;
    std::uint64_t connectionCounter = 0;

    net::io_context loop;
    tcp::acceptor acceptor{loop};
    net::steady_timer acceptRetry{loop};

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

    void accept();
    std::shared_ptr<Connection> open(tcp::socket socket);
    void closeAll();
    void route(const std::shared_ptr<Connection>& connection, HttpRequest& request);
    void health(Connection& connection);
    void completion(const std::shared_ptr<Connection>& connection, const HttpRequest& request,
                    Endpoint endpoint);
};

namespace {

void sendError(Connection& connection, const ApiError& error) {
    connection.reply(error.status, "application/json", errorJson(error));
}

}  // namespace

// Registers a new connection; its slot is freed when it is destroyed.
std::shared_ptr<Connection> OpenAiServer::Impl::open(tcp::socket socket) {
    std::lock_guard lock(connectionsMutex);
    if (static_cast<int>(connections.size()) >= maxConnections) return nullptr;
    const std::uint64_t id = ++connectionCounter;
    std::shared_ptr<void> slot(nullptr, [this, id](void*) {
        std::lock_guard erasing(connectionsMutex);
        connections.erase(id);
    });
    auto connection = std::make_shared<Connection>(std::move(socket), rules, std::move(slot));
    connections.emplace(id, connection);
    return connection;
}

void OpenAiServer::Impl::accept() {
    acceptor.async_accept(net::make_strand(loop),
                          [this](boost::system::error_code ec, tcp::socket socket) {
                              if (ec == net::error::operation_aborted || !acceptor.is_open())
                                  return;
                              if (ec) {
                                  // Out of descriptors (or memory): try again shortly rather than
                                  // spin.
                                  acceptRetry.expires_after(50ms);
                                  acceptRetry.async_wait([this](boost::system::error_code e) {
                                      if (!e) accept();
                                  });
                                  return;
                              }
                              boost::system::error_code ignored;
                              // Each token is its own small write: Nagle's algorithm would hold
                              // them back.
                              socket.set_option(tcp::no_delay(true), ignored);
                              // Past maxConnections the socket is closed at once (its destructor).
                              if (auto connection = open(std::move(socket)))
                                  connection->post([connection] { connection->start(); });
                              accept();
                          });
}

// Once the loop has stopped: nothing else touches the sockets.
void OpenAiServer::Impl::closeAll() {
    boost::system::error_code ignored;
    acceptor.close(ignored);
    acceptRetry.cancel();
    std::vector<std::shared_ptr<Connection>> open;
    {
        std::lock_guard lock(connectionsMutex);
        for (auto& [id, weak] : connections)
            if (auto c = weak.lock()) open.push_back(std::move(c));
    }
    for (auto& c : open)
        c->close();
}

void OpenAiServer::Impl::route(const std::shared_ptr<Connection>& connection,
                               HttpRequest& request) {
    auto text = [](boost::beast::string_view v) { return std::string(v.data(), v.size()); };
    const std::string target = text(request.target());
    const std::string path = target.substr(0, target.find('?'));
    const auto method = request.method();
    const bool get = method == boost::beast::http::verb::get;
    const bool post = method == boost::beast::http::verb::post;
    auto only = [&](bool allowed) {
        if (!allowed)
            sendError(
                *connection,
                {405, "Method Not Allowed: " + text(request.method_string()) + " " + path, {}});
        return allowed;
    };
    if (path == "/health") {
        if (only(get)) health(*connection);
    } else if (path == "/v1/models") {
        if (only(get))
            connection->reply(200, "application/json",
                              modelsJson(options.model, created, engine.config().maxModelLen));
    } else if (path == "/v1/completions" || path == "/v1/chat/completions") {
        if (only(post))
            completion(
                connection, request,
                path == "/v1/completions" ? Endpoint::Completions : Endpoint::ChatCompletions);
    } else if (options.profiler && (path == "/start_profile" || path == "/stop_profile")) {
        if (!only(post)) return;
        std::string error = options.profiler(path == "/start_profile");
        if (error.empty())
            connection->reply(200, "", {});
        else
            sendError(*connection, {500, error, {}});
    } else {
        sendError(*connection,
                  {404, "Not Found: " + text(request.method_string()) + " " + path, {}});
    }
}

void OpenAiServer::Impl::health(Connection& connection) {
    EngineStats stats = engine.stats();
    switch (stats.state) {
        case EngineState::Ready:
            return connection.reply(200, "", {});
        case EngineState::Starting:
            return sendError(connection,
                             {503, "the server is starting: the model is not loaded yet", {}});
        case EngineState::Draining:
        case EngineState::Stopped:
            return sendError(connection, {503, "the server is shutting down", {}});
        case EngineState::Failed:
            return sendError(connection, {503, "the engine failed: " + stats.failure, {}});
    }
}

void OpenAiServer::Impl::completion(const std::shared_ptr<Connection>& connection,
                                    const HttpRequest& request, Endpoint endpoint) {
    auto parsed = parseCompletionRequest(request.body(), endpoint);
    if (auto* error = std::get_if<ApiError>(&parsed)) return sendError(*connection, *error);
    auto& r = std::get<CompletionRequest>(parsed);
    if (r.model && *r.model != options.model)
        return sendError(*connection,
                         {404, "The model `" + *r.model + "` does not exist.", "model"});

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
            return sendError(*connection, {400, sub.invalid->message, param});
        }
        case SubmitStatus::QueueFull:
            return sendError(*connection, {429, sub.message, {}});
        case SubmitStatus::NotReady:
            return sendError(*connection,
                             {503, "the server is starting: the model is not loaded yet", {}});
        case SubmitStatus::ShuttingDown:
            return sendError(*connection, {503, sub.message, {}});
    }
    auto reply = std::make_shared<Completion>(
        responses, connection, std::move(sub.stream),
        ResponseFormat(endpoint, options.model, newId(endpoint), now()), r.stream, r.includeUsage,
        request.find(kEmitTimeHeader) != request.end());
    reply->start(*connection);
}

OpenAiServer::OpenAiServer(Engine& engine, ServerOptions options)
    : impl_(std::make_unique<Impl>(engine, std::move(options))) {
    Impl& impl = *impl_;
    const ServerOptions& o = impl.options;
    impl.rules.maxBodyBytes = o.maxBodyBytes;
    impl.rules.readTimeout = o.readTimeout;
    impl.rules.writeTimeout = o.writeTimeout;
    impl.rules.keepAlive = o.keepAlive;
    impl.rules.stopping = &impl.stopping;
    impl.rules.errorBody = [](int status, const std::string& message) {
        return errorJson({status, message, {}});
    };
    impl.rules.onRequest = [&impl](const std::shared_ptr<Connection>& c, HttpRequest& request) {
        impl.route(c, request);
    };
}

OpenAiServer::~OpenAiServer() {
    shutdown(0ms);
}

int OpenAiServer::bind() {
    // Asio sends with MSG_NOSIGNAL; this is for any other write to a closed
    // socket in the process (a client's hang-up must not end the server).
    std::signal(SIGPIPE, SIG_IGN);
    Impl& impl = *impl_;
    const ServerOptions& o = impl.options;
    // Each connection is a descriptor: keep a margin for the process's own
    // (the store, logs, the GPU driver's).
    impl.maxConnections = static_cast<int>(
        std::clamp<long>(std::min<long>(o.maxConnections, openFileLimit() - 64), 1, 1 << 20));
    auto fail = [&](const std::string& why) {
        return std::runtime_error("cannot listen on " + o.host + ":" + std::to_string(o.port) +
                                  ": " + why);
    };
    boost::system::error_code ec;
    tcp::resolver resolver(impl.loop);
    auto endpoints = resolver.resolve(o.host, std::to_string(o.port),
                                      tcp::resolver::passive | tcp::resolver::numeric_service, ec);
    if (ec || endpoints.empty()) throw fail(ec ? ec.message() : "no address");
    const tcp::endpoint at = endpoints.begin()->endpoint();
    impl.acceptor.open(at.protocol(), ec);
    // SO_REUSEADDR (a restart need not wait for TIME_WAIT), never SO_REUSEPORT:
    // with it a second server on the same port would start and share the
    // traffic instead of failing.
    if (!ec) impl.acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) impl.acceptor.bind(at, ec);
    if (!ec) impl.acceptor.listen(net::socket_base::max_listen_connections, ec);
    if (ec) {
        boost::system::error_code ignored;
        impl.acceptor.close(ignored);
        throw fail(ec.message());
    }
    return impl.acceptor.local_endpoint().port();
}

void OpenAiServer::serve() {
    Impl& impl = *impl_;
    {
        std::lock_guard lock(impl.mutex);
        impl.serveEntered = true;
        if (impl.shuttingDown) return;
    }
    if (impl.acceptor.is_open()) {
        net::post(impl.loop, [&impl] { impl.accept(); });
        std::vector<std::thread> helpers;
        const int threads = impl.options.threads > 0 ? impl.options.threads : 2;
        for (int i = 1; i < threads; ++i)
            helpers.emplace_back([&impl] { impl.loop.run(); });
        impl.loop.run();
        for (auto& t : helpers)
            t.join();
    }
    {
        std::lock_guard lock(impl.mutex);
        impl.serveReturned = true;
    }
    impl.changed.notify_all();
}

void OpenAiServer::shutdown(std::chrono::milliseconds drainTimeout) {
    Impl& impl = *impl_;
    bool serving = false;
    {
        std::unique_lock lock(impl.mutex);
        if (impl.shuttingDown) {
            impl.changed.wait(lock, [&] { return impl.shutDown; });
            return;
        }
        impl.shuttingDown = true;
        serving = impl.serveEntered;
    }
    // New requests get 503 from here; running ones finish or are aborted.
    impl.engine.drain(drainTimeout);
    impl.stopping = true;
    impl.responses.waitForNone(kFlushGrace);
    impl.loop.stop();
    if (serving) {
        std::unique_lock lock(impl.mutex);
        impl.changed.wait(lock, [&] { return impl.serveReturned; });
    }
    impl.closeAll();
    // Let the handlers of what was closed run to their end (each sees its
    // operation aborted), so connections and replies are released now.
    impl.loop.restart();
    impl.loop.run_for(1s);
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
