// A real OpenAI server with the CPU backend on 127.0.0.1 and a free port, in
// this process: the engine, the HTTP server on its own thread, and a drain at
// the end.
#pragma once

#include <memory>
#include <mutex>
#include <thread>

#include "serving/cpu_backend.h"
#include "serving/engine.h"
#include "serving/http/openai_server.h"

namespace ws::testing {

class TestServer {
  public:
    explicit TestServer(serving::EngineConfig config = defaultConfig(),
                        serving::CpuPace pace = {std::chrono::microseconds(0),
                                                 std::chrono::microseconds(0),
                                                 std::chrono::microseconds(0)},
                        serving::http::ServerOptions options = defaultOptions(),
                        bool startEngine = true)
        : engine_(config, std::make_unique<serving::CpuBackend>(pace)), server_(engine_, options) {
        port_ = server_.bind();
        thread_ = std::thread([this] { server_.serve(); });
        if (startEngine) start();
    }
    ~TestServer() { shutdown(std::chrono::milliseconds(0)); }
    TestServer(const TestServer&) = delete;
    TestServer& operator=(const TestServer&) = delete;

    void start() {
        engine_.start();
        engine_.waitUntilReady(std::chrono::seconds(60));
    }
    int port() const { return port_; }
    serving::Engine& engine() { return engine_; }
    serving::http::OpenAiServer& server() { return server_; }
    // Drains and stops; the thread that ran serve() has returned afterwards.
    void shutdown(std::chrono::milliseconds drainTimeout) {
        server_.shutdown(drainTimeout);
        std::lock_guard lock(joinMutex_);
        if (thread_.joinable()) thread_.join();
    }

    static serving::EngineConfig defaultConfig() {
        serving::EngineConfig c;
        c.maxNumSeqs = 16;
        c.maxNumBatchedTokens = 256;
        c.numBlocks = 2048;
        c.maxModelLen = 16384;
        c.maxWaiting = 64;
        return c;
    }
    static serving::http::ServerOptions defaultOptions() {
        serving::http::ServerOptions o;
        o.port = 0;
        o.model = "test-model";
        o.writeTimeout = std::chrono::seconds(120);
        return o;
    }

  private:
    serving::Engine engine_;
    serving::http::OpenAiServer server_;
    int port_ = 0;
    std::thread thread_;
    std::mutex joinMutex_;
};

}  // namespace ws::testing
