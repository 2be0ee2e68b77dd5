// The load loop of `bench serve`: every request is one curl easy handle on one
// curl multi handle, driven from this thread through curl's socket interface
// and epoll, so a wakeup costs the sockets that have data, not all of them
// (with 1,000 streams, poll() over every socket was most of the client's
// time); the SSE stream is split into
// lines here and each event parsed with nlohmann_json. Chunk times are read
// from the steady clock (CLOCK_MONOTONIC) as the bytes arrive and converted to
// Unix time by an offset measured once at the start, the time base of runs
// recorded without a CUDA process.
#include <curl/curl.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "record/serve_load.h"

namespace ws {

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
constexpr std::size_t kBodyKept = 2048;  // of an error response's body

std::int64_t steadyNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
        .count();
}

std::int64_t unixNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

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

void initCurlOnce() {
    static std::once_flag once;
    std::call_once(once, [] {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
            throw std::runtime_error("libcurl could not be initialised");
    });
}

std::string requestBody(const ServeLoadOptions& o, const ServePrompt& p) {
    json body = {{"model", o.model},
                 {"temperature", o.temperature},
                 {"stream", true},
                 {"stream_options", {{"include_usage", true}}}};
    if (o.backend == "openai-chat") {
        body["messages"] = json::array({{{"role", "user"}, {"content", p.text}}});
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

// The Unix ns of an ": emit NS" comment; nullopt unless it is all digits.
std::optional<std::int64_t> parseEmitTime(std::string_view digits) {
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || end != digits.data() + digits.size() || v <= 0) return std::nullopt;
    return v;
}

struct Transfer {
    CURL* easy = nullptr;
    curl_slist* headers = nullptr;
    std::string payload;
    std::string line;  // a line not yet ended
    std::string body;  // start of a non-200 body
    std::string sseError;
    bool chat = false;
    bool sawDone = false;
    std::optional<std::int64_t> emitNs;  // the server's write time of what follows
    long status = 0;
    char curlError[CURL_ERROR_SIZE] = {};
    ServeRequestResult result;
    std::int64_t offsetNs = 0;

    ~Transfer() {
        if (easy) curl_easy_cleanup(easy);
        if (headers) curl_slist_free_all(headers);
    }

    // One `data:` event; false stops the transfer (malformed SSE).
    bool event(const std::string& data, std::int64_t atNs) {
        if (data == "[DONE]") {
            sawDone = true;
            return true;
        }
        auto j = json::parse(data, nullptr, false);
        if (j.is_discarded() || !j.is_object()) {
            sseError = "malformed SSE event: " + data.substr(0, 200);
            return false;
        }
        if (auto e = j.find("error"); e != j.end()) {
            std::string message =
                e->is_object() && e->contains("message") && (*e)["message"].is_string()
                    ? (*e)["message"].get<std::string>()
                    : e->dump();
            if (sseError.empty()) sseError = "error event: " + message;
            return true;
        }
        if (auto c = j.find("choices"); c != j.end() && c->is_array() && !c->empty()) {
            const json& choice = (*c)[0];
            const json* text = nullptr;
            if (chat) {
                if (auto d = choice.find("delta"); d != choice.end() && d->is_object())
                    if (auto t = d->find("content"); t != d->end()) text = &*t;
            } else if (auto t = choice.find("text"); t != choice.end()) {
                text = &*t;
            }
            if (text && text->is_string() && !text->get_ref<const std::string&>().empty()) {
                result.chunkNs.push_back(atNs);
                if (emitNs) result.emitDelayNs.push_back(atNs - *emitNs);
            }
        }
        if (auto u = j.find("usage"); u != j.end() && u->is_object()) {
            auto count = [&](const char* key, int& into) {
                if (auto v = u->find(key); v != u->end() && v->is_number_integer()) {
                    into = v->get<int>();
                    return true;
                }
                return false;
            };
            count("prompt_tokens", result.promptTokens);
            if (count("completion_tokens", result.outputTokens)) result.usageReported = true;
        }
        return true;
    }

    std::size_t receive(const char* data, std::size_t size) {
        const std::int64_t atNs = steadyNs() + offsetNs;
        if (status == 0) curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
        if (status != 200) {
            body.append(data, std::min(size, kBodyKept - std::min(kBodyKept, body.size())));
            return size;
        }
        line.append(data, size);
        std::size_t begin = 0;
        for (auto end = line.find('\n'); end != std::string::npos;
             begin = end + 1, end = line.find('\n', begin)) {
            std::string_view l(line.data() + begin, end - begin);
            if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
            if (l.substr(0, 7) == ": emit ") {
                emitNs = parseEmitTime(l.substr(7));
                continue;
            }
            if (l.substr(0, 5) != "data:") continue;  // blank, comment, event:, id:, retry:
            l.remove_prefix(5);
            if (!l.empty() && l.front() == ' ') l.remove_prefix(1);
            if (!event(std::string(l), atNs)) return 0;  // aborts with CURLE_WRITE_ERROR
        }
        line.erase(0, begin);
        return size;
    }

    static std::size_t write(char* data, std::size_t, std::size_t n, void* self) {
        return static_cast<Transfer*>(self)->receive(data, n);
    }

    // The request's outcome once curl is done with it.
    void finish(CURLcode code, int datasetInput) {
        if (status == 0) curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
        result.httpStatus = static_cast<int>(status);
        if (result.promptTokens == 0) result.promptTokens = datasetInput;
        if (!result.usageReported) result.outputTokens = static_cast<int>(result.chunkNs.size());
        if (!sseError.empty())
            result.error = sseError;
        else if (code != CURLE_OK)
            result.error = std::string(curl_easy_strerror(code)) +
                           (curlError[0] ? std::string(": ") + curlError : std::string());
        else if (status != 200)
            result.error = "HTTP " + std::to_string(status) + ": " + body;
        else if (!sawDone)
            result.error = "the stream ended without [DONE]";
        else if (result.chunkNs.empty())
            result.error = "the stream carried no output text";
    }
};

class Loop {
  public:
    Loop(const ServeLoadOptions& o) : o_(o), url_(requestUrl(o)) {
        initCurlOnce();
        epoll_ = epoll_create1(EPOLL_CLOEXEC);
        if (epoll_ < 0) throw std::runtime_error("epoll_create1 failed");
        multi_ = curl_multi_init();
        if (!multi_) {
            ::close(epoll_);
            throw std::runtime_error("libcurl: curl_multi_init failed");
        }
        curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &Loop::onSocket);
        curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
        curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &Loop::onTimer);
        curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
    }
    ~Loop() {
        for (auto& t : live_)
            curl_multi_remove_handle(multi_, t->easy);
        curl_multi_cleanup(multi_);
        ::close(epoll_);
    }
    Loop(const Loop&) = delete;
    Loop& operator=(const Loop&) = delete;

    void start(std::int64_t id, const ServePrompt& p, std::int64_t offsetNs) {
        auto t = std::make_unique<Transfer>();
        t->chat = o_.backend == "openai-chat";
        t->offsetNs = offsetNs;
        t->result.id = id;
        t->payload = requestBody(o_, p);
        t->easy = curl_easy_init();
        if (!t->easy) throw std::runtime_error("libcurl: curl_easy_init failed");
        t->headers = curl_slist_append(t->headers, "Content-Type: application/json");
        t->headers = curl_slist_append(t->headers, "Accept: text/event-stream");
        t->headers = curl_slist_append(t->headers, (std::string(kEmitTimeHeader) + ": 1").c_str());
        if (const char* key = std::getenv("OPENAI_API_KEY"))
            t->headers = curl_slist_append(t->headers,
                                           ("Authorization: Bearer " + std::string(key)).c_str());
        CURL* e = t->easy;
        curl_easy_setopt(e, CURLOPT_URL, url_.c_str());
        curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->headers);
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, t->payload.c_str());
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
                         static_cast<curl_off_t>(t->payload.size()));
        curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &Transfer::write);
        curl_easy_setopt(e, CURLOPT_WRITEDATA, t.get());
        curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->curlError);
        curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
        curl_easy_setopt(e, CURLOPT_PRIVATE, t.get());
        auto timeoutMs = static_cast<long>(std::min(o_.requestTimeoutS * 1000.0, 2.0e9));
        curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeoutMs);
        curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, std::min(timeoutMs, 30'000L));
        t->result.startNs = steadyNs() + offsetNs;
        if (curl_multi_add_handle(multi_, e) != CURLM_OK)
            throw std::runtime_error("libcurl: curl_multi_add_handle failed");
        live_.push_back(std::move(t));
        peak_ = std::max(peak_, static_cast<int>(live_.size()));
    }

    // Runs transfers for up to `waitMs`; finished ones go to `done`.
    void step(int waitMs, std::vector<ServeRequestResult>& done) {
        int running = 0;
        if (timerDue()) curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
        int wait = waitMs;
        if (timerMs_ >= 0) {
            auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(timerAt_ - Clock::now());
            wait = static_cast<int>(std::clamp<std::int64_t>(left.count(), 0, waitMs));
        }
        epoll_event events[256];
        const int n = epoll_wait(epoll_, events, 256, wait);
        for (int i = 0; i < n; ++i) {
            int flags = 0;
            if (events[i].events & (EPOLLIN | EPOLLHUP)) flags |= CURL_CSELECT_IN;
            if (events[i].events & EPOLLOUT) flags |= CURL_CSELECT_OUT;
            if (events[i].events & EPOLLERR) flags |= CURL_CSELECT_ERR;
            curl_multi_socket_action(multi_, events[i].data.fd, flags, &running);
        }
        if (timerDue()) curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
        collect(done);
    }

    // Ends every running request with `why`, keeping what it received.
    void abortAll(const std::string& why, std::vector<ServeRequestResult>& done) {
        for (auto& t : live_) {
            curl_multi_remove_handle(multi_, t->easy);
            t->finish(CURLE_OK, dataset(t->result.id));
            t->result.error = why;
            done.push_back(std::move(t->result));
        }
        live_.clear();
    }

    std::size_t live() const { return live_.size(); }
    int peak() const { return peak_; }
    void setInputLens(const std::vector<ServePrompt>* prompts) { prompts_ = prompts; }

  private:
    int dataset(std::int64_t id) const {
        return prompts_ && id >= 0 && static_cast<std::size_t>(id) < prompts_->size()
                   ? (*prompts_)[static_cast<std::size_t>(id)].inputLen
                   : 0;
    }
    void collect(std::vector<ServeRequestResult>& done) {
        int left = 0;
        while (CURLMsg* m = curl_multi_info_read(multi_, &left)) {
            if (m->msg != CURLMSG_DONE) continue;
            Transfer* t = nullptr;
            curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &t);
            CURLcode code = m->data.result;
            curl_multi_remove_handle(multi_, m->easy_handle);
            auto it = std::find_if(live_.begin(), live_.end(),
                                   [&](const auto& p) { return p.get() == t; });
            if (it == live_.end()) continue;
            t->finish(code, dataset(t->result.id));
            done.push_back(std::move(t->result));
            std::swap(*it, live_.back());  // order does not matter; done is sorted by id
            live_.pop_back();
        }
    }

    // curl asks to watch a socket (or to stop): mirrored into the epoll set.
    static int onSocket(CURL*, curl_socket_t s, int what, void* self, void*) {
        auto* loop = static_cast<Loop*>(self);
        if (what == CURL_POLL_REMOVE) {
            epoll_ctl(loop->epoll_, EPOLL_CTL_DEL, s, nullptr);
            return 0;
        }
        epoll_event ev{};
        ev.data.fd = s;
        if (what & CURL_POLL_IN) ev.events |= EPOLLIN;
        if (what & CURL_POLL_OUT) ev.events |= EPOLLOUT;
        if (epoll_ctl(loop->epoll_, EPOLL_CTL_MOD, s, &ev) != 0)
            epoll_ctl(loop->epoll_, EPOLL_CTL_ADD, s, &ev);
        return 0;
    }
    // curl's single timer: -1 none, else due in `ms` (0: at once).
    static int onTimer(CURLM*, long ms, void* self) {
        auto* loop = static_cast<Loop*>(self);
        loop->timerMs_ = ms;
        if (ms >= 0) loop->timerAt_ = Clock::now() + std::chrono::milliseconds(ms);
        return 0;
    }
    bool timerDue() const { return timerMs_ >= 0 && Clock::now() >= timerAt_; }

    const ServeLoadOptions& o_;
    std::string url_;
    int epoll_ = -1;
    CURLM* multi_ = nullptr;
    long timerMs_ = -1;
    Clock::time_point timerAt_{};
    std::vector<std::unique_ptr<Transfer>> live_;
    const std::vector<ServePrompt>* prompts_ = nullptr;
    int peak_ = 0;
};

bool stopRequested(const ServeLoadOptions& o) {
    return o.stop && o.stop->load();
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
        Loop warm(o);
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

    Loop loop(o);
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
    out.notSent = static_cast<int>(n - next);
    out.peakConcurrency = loop.peak();
    std::sort(done.begin(), done.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    out.requests = std::move(done);
    return out;
}

}  // namespace ws
