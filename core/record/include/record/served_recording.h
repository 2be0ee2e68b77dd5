// bench serve --server: a server started under capture as `record` starts a
// program, a load driven against it once it answers, then the server stopped,
// all stored as ONE run: the client's requests and tokens beside the server's
// kernels, API calls, NVTX ranges and device samples, on one clock.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "record/recorder.h"
#include "record/serve_load.h"

namespace ws {

// Polls GET /health at the endpoint's scheme://host:port until it answers
// 200 (or, where /health is 404, until GET /v1/models does), every 100 ms.
enum class ServerWait { Ready, Ended, TimedOut, Stopped };
struct ServerWaitResult {
    ServerWait state = ServerWait::TimedOut;
    std::string lastError;  // what the last poll saw (connection refused, HTTP 503, ...)
    double waitedS = 0;
};
ServerWaitResult waitForServer(const std::string& endpoint, double timeoutS,
                               const std::atomic<bool>& ended, const std::atomic<bool>& stop);
// scheme://host:port of an endpoint URL; throws std::runtime_error when it has none.
std::string endpointBase(const std::string& endpoint);
// The first model a server lists at GET /v1/models (its `data[0].id`), as
// `vllm bench serve` picks one when --model is not given; throws
// std::runtime_error saying what the server answered otherwise.
std::string firstServedModel(const std::string& endpoint);

struct ServedRecordingRequest {
    RecordRequest record;   // the server's command, store, capture library, label
    ServeLoadOptions load;  // its stop is the recording's own
    ServeRunInfo info;
    double serverTimeoutS = 600;                  // for /health or /v1/models to answer 200
    std::function<void(double waitedS)> onReady;  // on the load's thread, before it starts
};

struct ServedRecordingOutcome {
    RecordOutcome record;  // the run, its status, how the server ended
    ServeLoadResult load;  // on the capture clock when the load ran
    bool loadRan = false;  // the server answered and the load was started
    std::string failure;   // why the server side failed the run, empty when it did not
    // The model the requests named: the load's own, or where it had none,
    // the first the server listed at /v1/models once it answered.
    std::string model;
};

class ServedRecording {
  public:
    explicit ServedRecording(ServedRecordingRequest request);
    // Throws RecordError when the server cannot be started (no run is kept),
    // StoreError for store failures.
    ServedRecordingOutcome run();
    // First call: stop the load (or the wait), keeping what was measured; the
    // server is then stopped as usual. Later calls go to the recorder (SIGINT,
    // then SIGKILL to the server). Safe in a signal handler.
    void cancel();

  private:
    ServedRecordingRequest request_;
    std::atomic<bool> stop_{false};
    std::atomic<bool> serverEnded_{false};
    std::atomic<int> cancels_{0};
    std::atomic<Recorder*> recorder_{nullptr};
};

}  // namespace ws
