// An OpenAI-compatible HTTP server in front of the serving engine (the API
// subset of openai_protocol.h), on Boost.Beast and an Asio event loop.
//
// Why an event loop: with a thread per connection (cpp-httplib, until
// 2026-12-06) 32 clients sending a header line a second held every worker,
// so nobody else was answered, and a shutdown waited for them. Here no
// connection holds a thread: each waits in the loop, its request head and
// body have one deadline together, each write has its own, and a shutdown
// closes whatever is left once the engine has drained (docs/reliability.md).
//
// It lives beside the engine in kernels/serving because it depends on the
// engine alone (plus cpp-httplib and JSON): no store, no configs, no capture.
// The same server runs the CPU backend (tests, the load client's tests, users
// without a GPU) and the GPU backend; app/ holds only the main() that builds
// an engine from a workload config and hands it here. core/record is the
// client side (the load generator), which must not link the server.
//
// Lifecycle: bind() (port 0 picks a free one), serve() on a thread of yours,
// engine.start() — until the engine is ready, requests get 503 — and
// shutdown() to drain: new requests get 503, admitted ones finish (or, past
// the drain timeout, end with an error event / a 503), their last bytes get
// up to half a second to leave, then every connection and the listener close
// and serve() returns. Join serve()'s thread before destroying this.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace ws::serving {
class Engine;
}

namespace ws::serving::http {

struct ServerOptions {
    std::string host = "127.0.0.1";
    int port = 8000;                      // 0: any free port (bind() says which)
    std::string model = "warpscope";      // the served model's name (GET /v1/models)
    std::size_t maxBodyBytes = 4u << 20;  // larger request bodies get 413
    // Threads running the event loop (parsing, JSON, writes); 0: two. No
    // connection holds one.
    int threads = 0;
    // Open connections at most; past it a new connection is closed at once.
    // Bounds the memory clients can hold: each costs its buffers, at most the
    // request head (16 KiB) and body (maxBodyBytes) while they arrive.
    int maxConnections = 4096;
    // The whole request (head and body) must arrive within this after its
    // first byte is awaited: 408 otherwise (a slow or stalled client).
    std::chrono::seconds readTimeout{10};
    std::chrono::seconds writeTimeout{30};  // a client that reads nothing for this long is dropped
    std::chrono::seconds keepAlive{5};      // an idle kept-alive connection is closed after this
    // POST /start_profile (true) and /stop_profile (false), as vLLM's server
    // offers them to `vllm bench serve --profile`: the error text, or empty
    // when the switch was made (200). Unset: the routes are not there (404).
    std::function<std::string(bool start)> profiler;
};

class OpenAiServer {
  public:
    OpenAiServer(Engine& engine, ServerOptions options);
    ~OpenAiServer();
    OpenAiServer(const OpenAiServer&) = delete;
    OpenAiServer& operator=(const OpenAiServer&) = delete;

    // Binds the listening socket and returns its port. Throws std::runtime_error
    // when the address is taken or invalid.
    int bind();
    // Serves until shutdown(); returns once every connection is closed.
    void serve();
    // Drains and stops (see above); blocks until done. Idempotent, any thread.
    void shutdown(std::chrono::milliseconds drainTimeout);
    // Completion responses being produced now.
    int activeResponses() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace ws::serving::http
