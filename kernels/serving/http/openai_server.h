// An OpenAI-compatible HTTP server in front of the serving engine (the API
// subset of openai_protocol.h), on cpp-httplib from Debian.
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
// the drain timeout, end with an error event / a 503), then the listener
// closes and serve() returns. Join serve()'s thread before destroying this.
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
    // HTTP worker threads; each open connection holds one. 0: enough for every
    // running and queued request (max_num_seqs + max_waiting) and a few more,
    // so a full queue is answered 429 rather than left unread.
    int threads = 0;
    std::chrono::seconds readTimeout{10};
    std::chrono::seconds writeTimeout{30};  // a client that reads nothing for this long is dropped
    std::chrono::seconds keepAlive{5};
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
