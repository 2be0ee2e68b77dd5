// The client of `warpscope-cli bench serve`: load against any OpenAI-compatible
// server (vLLM, SGLang, TGI, llama.cpp, warpscope-workload serve) with the
// flags and meanings of `vllm bench serve`, measured per request and per
// streamed chunk, then stored as a run.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/records.h"

namespace ws {

class Store;

struct ServePrompt;

struct ServeLoadOptions {
    std::string endpoint;  // http://HOST:PORT (the backend's path is added) or a full URL
    std::string backend =
        "openai";  // openai (/v1/completions) | openai-chat (/v1/chat/completions)
    std::string model;
    int numPrompts = 1000;
    int inputLen = 1024;    // --random-input-len
    int outputLen = 128;    // --random-output-len
    double rangeRatio = 0;  // lengths drawn uniformly from [len*(1-r), len*(1+r)]
    double requestRate = std::numeric_limits<double>::infinity();  // requests/s
    double burstiness = 1;   // gamma shape; 1 = Poisson arrivals
    int maxConcurrency = 0;  // 0 = no limit
    std::uint64_t seed = 0;
    bool ignoreEos = false;
    double temperature = 0;
    bool warmup = true;  // one request before measuring, never stored
    // vLLM's --profile: POST /start_profile after the warm-up and
    // /stop_profile once the last request ended, so a server with a profiler
    // switch traces the measured requests only (vLLM started with
    // --profiler-config '{"profiler": "cuda"}', or VLLM_TORCH_CUDA_PROFILE=1
    // before 0.13, calls cudaProfilerStart/Stop, which `--capture-range
    // cudaProfilerApi` turns into Warpscope's capture window).
    bool profile = false;
    double requestTimeoutS = 600;  // a request still running then fails
    double runTimeoutS = 0;        // 0 = none; past it, running requests fail, none start
    const std::atomic<bool>* stop =
        nullptr;  // set (e.g. by SIGINT): stop, keeping what was measured
    // A dataset read from a file (serve_file_dataset.h), its first numPrompts
    // sent; null = vLLM's random dataset drawn from the options above.
    std::shared_ptr<const std::vector<ServePrompt>> prompts;
    // auto | socket (http:// only; chunks carry the kernel's receive time) |
    // libcurl (any URL; chunks timed when read). auto: socket for http://
    // without a proxy in the environment.
    std::string httpClient = "auto";
};

// The URL requests go to: the endpoint as given when it has a path, else the
// backend's path appended.
std::string requestUrl(const ServeLoadOptions& options);

// vLLM's random dataset: per request an input and an output length drawn
// uniformly (integers, inclusive) from [floor(len*(1-r)), ceil(len*(1+r))], and a
// prompt of that many tokens: token ids for openai (ids 32-126, valid in any
// vocabulary), text of that many printable ASCII characters for openai-chat.
// A prompt with text and no token ids is sent as text by either backend.
struct ServePrompt {
    std::vector<int> tokenIds;
    std::string text;
    int inputLen = 0;
    int outputLen = 0;
};
std::vector<ServePrompt> randomDataset(const ServeLoadOptions& options);

// Send times in seconds from the start: the first at 0, then gaps drawn from a
// gamma distribution of shape `burstiness` and mean 1/rate (exponential, that
// is Poisson arrivals, when burstiness is 1), as vLLM; all 0 for an infinite rate.
std::vector<double> arrivalOffsets(int count, double requestRate, double burstiness,
                                   std::uint64_t seed);

// Sent with every request: Warpscope's own server then writes ": emit <Unix
// ns>" before each streamed write (serving/http/openai_protocol.h, the same
// name; other servers ignore it), and a chunk's arrival minus that time is
// what the client and the loopback add.
inline constexpr const char* kEmitTimeHeader = "X-Warpscope-Emit-Time";

struct ServeRequestResult {
    std::int64_t id = 0;
    std::int64_t startNs = 0;           // when it was sent (store time base)
    std::vector<std::int64_t> chunkNs;  // arrival of each chunk with choices (text or not)
    // Per chunk after an emit comment: arrival (Unix ns, before any
    // move to the capture clock) minus the server's write time.
    std::vector<std::int64_t> emitDelayNs;
    int promptTokens = 0;  // usage.prompt_tokens, else the dataset's length
    int outputTokens = 0;  // usage.completion_tokens, else chunks seen
    bool usageReported = false;
    std::string error;  // empty = success
    int httpStatus = 0;
};

struct ServeLoadResult {
    std::vector<ServeRequestResult> requests;  // sent ones, in id order; never the warm-up
    int notSent = 0;                           // left when stopped or past the run timeout
    std::int64_t startedNs = 0;                // benchmark start (store time base)
    std::int64_t endedNs = 0;
    std::int64_t clockOffsetNs = 0;  // unix ns - steady ns, measured at the start
    bool interrupted = false;        // options.stop was set
    bool runTimedOut = false;
    std::string warmupError;                 // the warm-up failed: nothing was measured
    std::vector<std::string> profileErrors;  // --profile: what the server answered, when not 200
    int peakConcurrency = 0;                 // most requests in flight at once
    std::int64_t clientCpuNs = 0;            // CPU time of the load loop's thread (user + system)
    std::string stampSource;                 // how chunk arrivals were timed, in words
    // Chunks read, and those read together with another (one time for all).
    std::size_t chunksRead = 0, chunksSharingARead = 0;
    int failed() const;
};

// What the client and the loopback added to the chunks Warpscope's server
// stamped (ServeRequestResult::emitDelayNs), over every request: to each
// chunk's arrival; to TTFT (the first chunk's delay); and to ITL (how much a
// chunk's delay differs from the one before it in its stream, since an ITL
// is the difference of two arrivals).
struct EmitDelays {
    std::size_t chunks = 0;  // none: the server sent no emit times
    std::int64_t p50Ns = 0, p99Ns = 0, maxNs = 0;
    std::int64_t firstP50Ns = 0, firstP99Ns = 0;  // over requests whose every chunk was stamped
    std::int64_t itlP50Ns = 0, itlP99Ns = 0;      // |delay[i] - delay[i-1]|, same requests
};
EmitDelays emitDelays(const ServeLoadResult& result);

// Runs the load on this thread (serve_request_loop.h: a socket loop or libcurl). Throws
// std::runtime_error for a bad endpoint; request failures are results, not exceptions.
ServeLoadResult runServeLoad(const ServeLoadOptions& options);

struct ServeRunInfo {
    std::string label;
    std::string command;       // the full command line
    std::string settingsJson;  // the options as JSON (stored as the workload's config)
    std::string clock = "CLOCK_MONOTONIC + offset to Unix time measured at the start";
};

// Writes a load's requests, tokens, bench.* and client.* properties and each
// error into the log of `run` (one just begun, or one being recorded); request
// ids follow any the run holds already. Returns the status the load alone
// gives a run: ok, failed (a request failed, the warm-up failed, timed out) or
// killed (interrupted).
RunStatus writeServeRequests(Store& store, RunId run, const ServeLoadOptions& options,
                             const ServeLoadResult& result, const ServeRunInfo& info);

// Stores the measured requests and tokens as one run: ok when every request
// succeeded, failed (with the failure rate in the log and properties) when any
// did, killed when interrupted. Each error's text is in the run's log.
RunId storeServeRun(Store& store, const ServeLoadOptions& options, const ServeLoadResult& result,
                    const ServeRunInfo& info);

}  // namespace ws
