// The recording launcher: starts a program with the capture library injected,
// receives its records over a Unix socket and is the store's only writer for
// the run. It owns the run: status, exit code, the program's output as the
// run's log, device samples, cancellation. Its parts: ChildProcess (the
// program), CaptureServer (the socket and its decoders), RecordingSession
// (records into the store, and the finishing step).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/records.h"
#include "record/gpu_metrics_sampler.h"

namespace ws {

class ChildProcess;
class CaptureServer;
class RecordingSession;
class Store;

// The program could not be started; no run was created.
class RecordError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct RecordOutcome;

// Work that runs beside the recorded program and decides when it ends: bench
// serve --server waits for the server, drives the load, and then has the
// recorder stop it, all in one run.
struct Companion {
    // On its own thread once the program started. When it returns, the
    // recorder stops the program: SIGINT to its process group, SIGTERM
    // `stopGraceMs` later, SIGKILL after as long again.
    std::function<void()> run;
    // On the recorder's thread, at most once, when the program ended before
    // it was asked to: `run` should then return soon (its load cannot go on).
    std::function<void()> programEnded;
    // On the recorder's thread after the program ended and its records are
    // stored, before the run's status is written: adds the companion's rows
    // to the run and may lower `outcome.status`.
    std::function<void(Store& store, RunId run, RecordOutcome& outcome)> finish;
    int stopGraceMs = 10'000;
};

struct RecordRequest {
    std::string storePath;
    std::string label;
    std::optional<WorkloadInfo> workload;
    std::string variant;
    std::vector<std::string> argv;  // program and its arguments, passed as given
    std::vector<std::string> env;   // extra KEY=VALUE entries
    std::vector<std::pair<std::string, std::string>> properties;  // stored with the run
    std::string workingDir;
    std::string injectLibrary;        // libwarpscope_inject.so; empty runs without CUDA capture
    bool echoOutput = true;           // copy the program's stdout/stderr to ours
    bool echoOutputToStderr = false;  // both to our stderr (our stdout is someone else's)
    int flushIntervalMs = 100;
    int sampleIntervalMs = 50;  // device samples (NVML); 0: none
    int progressIntervalMs = 500;
    std::function<void(const RecordProgress&)> onProgress;
    std::optional<Companion> companion;
    // GPU metrics over time (CUPTI PM sampling), started before the program.
    std::optional<GpuMetricsRequest> gpuMetrics;
};

struct RecordOutcome {
    RunId run = 0;
    RunStatus status = RunStatus::Failed;
    std::optional<int> exitCode;
    std::optional<int> signal;
    RecordProgress totals;
    // With a companion: the program ended after the recorder asked it to stop
    // (its exit code or signal then says how it took the request, and the run's
    // status is the companion's).
    bool stoppedOnRequest = false;
    std::string errorTail;  // the last lines the program wrote to stderr
};

class Recorder {
  public:
    explicit Recorder(RecordRequest request);
    ~Recorder();
    Recorder(const Recorder&) = delete;
    Recorder& operator=(const Recorder&) = delete;

    // Runs the program to its end. Throws RecordError when it cannot be
    // started (nothing is stored then) and StoreError for store failures;
    // after a store failure the program has been killed and reaped, and the
    // run is marked failed with what was written, where the store allows.
    RecordOutcome run();
    // Asks the program to stop: SIGINT first, SIGKILL on a second call. Safe
    // to call from a signal handler.
    void cancel();

  private:
    std::string checkRequest() const;  // the resolved program, or RecordError
    RecordOutcome supervise(ChildProcess& child, CaptureServer& server, RecordingSession& session,
                            GpuMetricsSampler* gpuMetrics, std::string& gpuMetricsLog);
    RecordRequest request_;
    int cancelPipe_[2] = {-1, -1};
};

// Resolves argv[0] like execvp: a path with a slash as is, else through PATH.
// Throws RecordError naming the program and why it cannot run.
std::string resolveProgram(const std::string& program);

}  // namespace ws
