// The serving engine: a loop on its own thread that takes submitted requests
// into the scheduler, runs one step at a time on a backend, and hands each
// request its tokens through its RequestStream. Thread-safe: submit, drain,
// stats and the streams may be used from any thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "serving/backend.h"
#include "serving/engine_config.h"
#include "serving/request_stream.h"
#include "serving/scheduler.h"

namespace ws::serving {

enum class EngineState {
    Starting,  // the backend is preparing: requests are refused (503)
    Ready,
    Draining,  // shutting down: running requests finish, new ones are refused
    Stopped,
    Failed,  // the backend threw: every request ended with its message
};
const char* toString(EngineState state);

struct EngineStats {
    EngineState state = EngineState::Starting;
    std::int64_t steps = 0;
    std::int64_t submitted = 0;
    std::int64_t finished = 0;  // ended by EOS or length
    std::int64_t aborted = 0;   // cancelled by the client, or by a drain / stop
    std::int64_t preemptions = 0;
    std::int64_t promptTokens = 0;  // of submitted requests
    std::int64_t outputTokens = 0;  // produced
    int running = 0;
    int waiting = 0;  // queued, not running (new and preempted)
    int active = 0;   // every request the engine holds
    int kvBlocksUsed = 0;
    int kvBlocksTotal = 0;
    StepStats lastStep;
    std::string failure;
};

enum class SubmitStatus { Accepted, Invalid, QueueFull, NotReady, ShuttingDown };

// Why a request cannot run: `field` is what it concerns ("prompt",
// "max_tokens" or "temperature"), for the HTTP layer to name the parameter.
struct InvalidRequest {
    std::string field;
    std::string message;
};

struct Submission {
    SubmitStatus status = SubmitStatus::Invalid;
    std::shared_ptr<RequestStream> stream;  // when accepted
    std::optional<InvalidRequest> invalid;  // when invalid
    std::string message;                    // otherwise, why it was refused
};

class Engine {
  public:
    Engine(EngineConfig config, std::unique_ptr<Backend> backend);
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    const EngineConfig& config() const { return config_; }
    const Backend& backend() const { return *backend_; }
    // Called on the engine's thread after every step (the GPU backend's NVTX
    // range goes there). Set it before start().
    void setStepObserver(std::function<void(const StepStats&)> observer);
    // Called once on the engine's thread when the backend is prepared, under
    // the lock the state is read with, just before it turns Ready: whatever it
    // prints precedes every answer that reports the engine ready (/health's
    // 200), and a request sent on seeing it is admitted. It must not call
    // back into the engine. Set it before start().
    void setReadyObserver(std::function<void()> observer);

    // Starts the loop; the backend prepares on the loop's thread, and the
    // engine is Ready when it is done. Returns at once.
    void start();
    EngineState state() const;
    // Waits until Ready (true) or Failed / stopped / timed out (false).
    bool waitUntilReady(std::chrono::milliseconds timeout) const;

    // What is wrong with a request before it is queued, if anything.
    std::optional<InvalidRequest> check(const std::vector<TokenId>& prompt,
                                        const SamplingParams& sampling) const;
    Submission submit(std::vector<TokenId> prompt, const SamplingParams& sampling);

    // Refuses new requests from now on, lets the admitted ones finish for up
    // to `timeout`, then aborts what is left with an error. Returns true when
    // every request finished on its own.
    bool drain(std::chrono::milliseconds timeout);
    // Aborts every request now; each stream ends with `error`.
    void abortAll(const std::string& error);
    // Aborts what is left and joins the loop.
    void stop();

    EngineStats stats() const;
    // Waits until `done(stats)` holds, re-checked after every step; false on timeout.
    bool waitFor(const std::function<bool(const EngineStats&)>& done,
                 std::chrono::milliseconds timeout) const;

  private:
    struct Incoming {
        std::shared_ptr<RequestStream> stream;
        std::vector<TokenId> prompt;
        SamplingParams sampling;
        std::uint64_t seed = 0;
    };

    void loop();
    void step();
    void publish(bool notify);

    const EngineConfig config_;
    const std::unique_ptr<Backend> backend_;
    std::function<void(const StepStats&)> observer_;
    std::function<void()> readyObserver_;

    // Only the loop's thread touches these.
    Scheduler scheduler_;
    std::unordered_map<SeqId, std::shared_ptr<RequestStream>> streams_;

    mutable std::mutex mutex_;
    mutable std::condition_variable wake_;     // the loop waits for work
    mutable std::condition_variable changed_;  // stats changed
    std::vector<Incoming> inbox_;
    std::optional<std::string> abortAll_;
    bool stopping_ = false;
    EngineStats stats_;
    SeqId nextId_ = 1;
    std::mt19937_64 seeds_;
    std::thread thread_;
};

}  // namespace ws::serving
