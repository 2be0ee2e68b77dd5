// The load loop of `bench serve`: requests sent on the schedule of vLLM's
// client (arrival offsets, max concurrency), carried by a RequestLoop (the
// kernel-stamped socket loop for http://, libcurl otherwise), stopped by
// Ctrl-C or the run timeout keeping what was measured. Chunk times are steady
// clock (CLOCK_MONOTONIC) readings converted to Unix time by an offset
// measured once at the start, the time base of runs recorded without a CUDA
// process.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "record/serve_load.h"
#include "record/served_recording.h"
#include "serve_request_loop.h"
#include "server_requests.h"

namespace ws {

std::int64_t steadyNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               ServeClock::now().time_since_epoch())
        .count();
}

std::int64_t unixNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string requestBody(const ServeLoadOptions& o, const ServePrompt& p) {
    nlohmann::json body = {{"model", o.model},
                           {"temperature", o.temperature},
                           {"stream", true},
                           {"stream_options", {{"include_usage", true}}}};
    if (o.backend == "openai-chat") {
        body["messages"] = nlohmann::json::array({{{"role", "user"}, {"content", p.text}}});
        body["max_completion_tokens"] = p.outputLen;
    } else {
        if (p.tokenIds.empty())
            body["prompt"] = p.text;
        else
            body["prompt"] = p.tokenIds;
        body["max_tokens"] = p.outputLen;
    }
    if (o.ignoreEos) body["ignore_eos"] = true;
    return body.dump();
}

std::vector<std::pair<std::string, std::string>> requestHeaders() {
    std::vector<std::pair<std::string, std::string>> h = {{"Content-Type", "application/json"},
                                                          {"Accept", "text/event-stream"},
                                                          {kEmitTimeHeader, "1"}};
    if (const char* key = std::getenv("OPENAI_API_KEY"))
        h.emplace_back("Authorization", "Bearer " + std::string(key));
    return h;
}

std::unique_ptr<RequestLoop> makeRequestLoop(const ServeLoadOptions& o) {
    if (o.httpClient == "libcurl") return makeCurlLoop(o);
    if (o.httpClient == "socket") return makeSocketLoop(o);
    if (o.httpClient != "auto")
        throw std::runtime_error("--http-client: '" + o.httpClient + "' (auto, socket or libcurl)");
    // Proxies are libcurl's to honour (http_proxy, all_proxy; no_proxy).
    bool proxied = false;
    for (const char* name : {"http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"})
        if (const char* v = std::getenv(name); v && *v) proxied = true;
    // Credentials in the URL (user:password@) are libcurl's too (Basic auth).
    const std::string url = requestUrl(o);
    const bool plain = url.rfind("http://", 0) == 0 &&
                       url.find('@') >= url.find('/', std::string("http://").size());
    return plain && !proxied ? makeSocketLoop(o) : makeCurlLoop(o);
}

namespace {

using Clock = ServeClock;

// This thread's CPU time, user and system.
std::int64_t threadCpuNs() {
    rusage u{};
    getrusage(RUSAGE_THREAD, &u);
    auto ns = [](const timeval& t) {
        return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 +
               static_cast<std::int64_t>(t.tv_usec) * 1000;
    };
    return ns(u.ru_utime) + ns(u.ru_stime);
}

// unix - steady, read between two steady readings.
std::int64_t measureClockOffset() {
    std::int64_t a = steadyNs();
    std::int64_t u = unixNs();
    std::int64_t b = steadyNs();
    return u - (a + (b - a) / 2);
}

bool stopRequested(const ServeLoadOptions& o) {
    return o.stop && o.stop->load();
}

// --profile: one of the server's profiler switches; a refusal is kept, the
// load goes on (as vLLM's bench does). A switch may work before it answers
// (a CUDA profiler's stop flushes), so it gets 30 s. The start gives way to
// Ctrl-C; the stop is sent even after one (else the server goes on
// profiling), then given 5 s.
void switchProfiler(const ServeLoadOptions& o, const char* path, bool start, ServeLoadResult& out) {
    std::string error;
    const long timeoutMs = !start && stopRequested(o) ? 5000 : 30000;
    const long status = serverRequest("POST", endpointBase(o.endpoint) + path, error, timeoutMs,
                                      start ? o.stop : nullptr);
    if (status == 200) return;
    if (status == 404)
        error +=
            " (the server offers no profiler switch: vLLM 0.13 and later add it when started "
            "with --profiler-config '{\"profiler\": \"cuda\"}', earlier ones with "
            "VLLM_TORCH_CUDA_PROFILE=1)";
    out.profileErrors.push_back(error);
}

}  // namespace

ServeLoadResult runServeLoad(const ServeLoadOptions& o) {
    if (o.model.empty()) throw std::runtime_error("--model is required");
    if (o.backend != "openai" && o.backend != "openai-chat")
        throw std::runtime_error("--backend: '" + o.backend + "' (openai or openai-chat)");
    if (o.numPrompts < 1) throw std::runtime_error("--num-prompts must be at least 1");
    if (o.prompts && o.prompts->size() < static_cast<std::size_t>(o.numPrompts))
        throw std::runtime_error("the dataset holds fewer prompts than --num-prompts");
    const auto prompts =
        o.prompts ? std::vector<ServePrompt>(o.prompts->begin(), o.prompts->begin() + o.numPrompts)
                  : randomDataset(o);
    const auto offsets = arrivalOffsets(o.numPrompts, o.requestRate, o.burstiness, o.seed);
    ServeLoadResult out;
    out.clockOffsetNs = measureClockOffset();

    if (o.warmup) {
        // vLLM's initial single-prompt test: the first prompt, never stored.
        auto warmLoop = makeRequestLoop(o);
        RequestLoop& warm = *warmLoop;
        warm.setInputLens(&prompts);
        std::vector<ServeRequestResult> done;
        warm.start(0, prompts[0], out.clockOffsetNs);
        const auto deadline = Clock::now() + std::chrono::duration<double>(o.requestTimeoutS + 1);
        while (warm.live() > 0) {
            if (stopRequested(o)) {
                warm.abortAll("interrupted", done);
                out.interrupted = true;
                out.notSent = o.numPrompts;
                out.warmupError = "interrupted during the warm-up request";
                out.startedNs = out.endedNs = steadyNs() + out.clockOffsetNs;
                return out;
            }
            if (Clock::now() > deadline) warm.abortAll("timed out", done);
            warm.step(50, done);
        }
        if (!done.empty() && !done[0].error.empty()) {
            out.warmupError = done[0].error;
            out.startedNs = out.endedNs = steadyNs() + out.clockOffsetNs;
            out.notSent = o.numPrompts;
            return out;
        }
    }

    if (o.profile) switchProfiler(o, "/start_profile", true, out);
    auto mainLoop = makeRequestLoop(o);
    RequestLoop& loop = *mainLoop;
    loop.setInputLens(&prompts);
    std::vector<ServeRequestResult> done;
    const std::int64_t cpuAtStart = threadCpuNs();
    const auto start = Clock::now();
    out.startedNs = steadyNs() + out.clockOffsetNs;
    const bool runLimit = o.runTimeoutS > 0;
    const auto runDeadline = start + std::chrono::duration<double>(runLimit ? o.runTimeoutS : 0);
    std::size_t next = 0;
    const std::size_t n = prompts.size();
    while (true) {
        auto now = Clock::now();
        if (stopRequested(o) || (runLimit && now >= runDeadline)) {
            out.interrupted = stopRequested(o);
            out.runTimedOut = !out.interrupted;
            loop.abortAll(
                out.interrupted ? "interrupted (the run was stopped)" : "the run timed out", done);
            break;
        }
        const bool room =
            o.maxConcurrency <= 0 || loop.live() < static_cast<std::size_t>(o.maxConcurrency);
        auto due = [&](std::size_t i) {
            return start + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(offsets[i]));
        };
        if (room && next < n && now >= due(next)) {
            loop.start(static_cast<std::int64_t>(next), prompts[next], out.clockOffsetNs);
            ++next;
            continue;  // several may be due at once
        }
        if (next == n && loop.live() == 0) break;
        int waitMs = 100;
        if (room && next < n) {
            auto until = std::chrono::duration<double, std::milli>(due(next) - now).count();
            waitMs = static_cast<int>(std::clamp(std::ceil(until), 0.0, 100.0));
        }
        loop.step(waitMs, done);
    }
    out.endedNs = steadyNs() + out.clockOffsetNs;
    out.clientCpuNs = threadCpuNs() - cpuAtStart;
    if (o.profile) switchProfiler(o, "/stop_profile", false, out);
    out.notSent = static_cast<int>(n - next);
    out.peakConcurrency = loop.peak();
    out.stampSource = loop.stampSource();
    out.chunksRead = loop.chunksRead();
    out.chunksSharingARead = loop.chunksSharingARead();
    std::sort(done.begin(), done.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    out.requests = std::move(done);
    return out;
}

}  // namespace ws
