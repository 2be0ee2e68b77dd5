// The libcurl transport of `bench serve`: every request is one curl easy
// handle on one curl multi handle, driven from this thread through curl's
// socket interface and epoll, so a wakeup costs the sockets that have data,
// not all of them (with 1,000 streams, poll() over every socket was most of
// the client's time). A chunk is timed when curl hands its bytes over. Used
// for https:// and wherever a proxy is set: the socket loop takes plain http.
#include <curl/curl.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <stdexcept>

#include "serve_request_loop.h"
#include "serve_stream.h"

namespace ws {

namespace {

void initCurlOnce() {
    static std::once_flag once;
    std::call_once(once, [] {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
            throw std::runtime_error("libcurl could not be initialised");
    });
}

struct Transfer {
    Transfer() = default;
    ~Transfer() {
        if (easy) curl_easy_cleanup(easy);
        if (headers) curl_slist_free_all(headers);
    }
    Transfer(const Transfer&) = delete;
    Transfer& operator=(const Transfer&) = delete;

    CURL* easy = nullptr;
    curl_slist* headers = nullptr;
    std::string payload;
    char curlError[CURL_ERROR_SIZE] = {};
    std::int64_t offsetNs = 0;
    ServeStream stream;
    std::function<void(std::size_t)> noteRead;  // chunks this write carried

    std::size_t receive(const char* data, std::size_t size) {
        const std::int64_t atNs = steadyNs() + offsetNs;
        if (stream.status() == 0) {
            long status = 0;
            curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
            stream.setStatus(status);
        }
        const std::size_t before = stream.result.chunkNs.size();
        const bool ok = stream.body(data, size, atNs);
        noteRead(stream.result.chunkNs.size() - before);
        return ok ? size : 0;  // 0 aborts: CURLE_WRITE_ERROR
    }
    static std::size_t write(char* data, std::size_t, std::size_t n, void* self) {
        return static_cast<Transfer*>(self)->receive(data, n);
    }

    void finish(CURLcode code, int datasetInput) {
        if (stream.status() == 0) {
            long status = 0;
            curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
            stream.setStatus(status);
        }
        std::string error;
        if (code != CURLE_OK)
            error = std::string(curl_easy_strerror(code)) +
                    (curlError[0] ? std::string(": ") + curlError : std::string());
        stream.finish(error, datasetInput);
    }
};

class CurlLoop final : public RequestLoop {
  public:
    explicit CurlLoop(const ServeLoadOptions& o) : o_(o), url_(requestUrl(o)) {
        initCurlOnce();
        epoll_ = epoll_create1(EPOLL_CLOEXEC);
        if (epoll_ < 0) throw std::runtime_error("epoll_create1 failed");
        multi_ = curl_multi_init();
        if (!multi_) {
            ::close(epoll_);
            throw std::runtime_error("libcurl: curl_multi_init failed");
        }
        curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &CurlLoop::onSocket);
        curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
        curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &CurlLoop::onTimer);
        curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
    }
    ~CurlLoop() override {
        for (auto& t : live_)
            curl_multi_remove_handle(multi_, t->easy);
        curl_multi_cleanup(multi_);
        ::close(epoll_);
    }
    CurlLoop(const CurlLoop&) = delete;
    CurlLoop& operator=(const CurlLoop&) = delete;

    void start(std::int64_t id, const ServePrompt& p, std::int64_t offsetNs) override {
        auto t = std::make_unique<Transfer>();
        t->offsetNs = offsetNs;
        t->noteRead = [this](std::size_t chunks) { this->noteRead(chunks); };
        t->stream.result.id = id;
        t->payload = requestBody(o_, p);
        t->easy = curl_easy_init();
        if (!t->easy) throw std::runtime_error("libcurl: curl_easy_init failed");
        for (const auto& [name, value] : requestHeaders())
            t->headers = curl_slist_append(t->headers, (name + ": " + value).c_str());
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
        t->stream.result.startNs = steadyNs() + offsetNs;
        if (curl_multi_add_handle(multi_, e) != CURLM_OK)
            throw std::runtime_error("libcurl: curl_multi_add_handle failed");
        live_.push_back(std::move(t));
        noteLive(live_.size());
    }

    void step(int waitMs, std::vector<ServeRequestResult>& done) override {
        int running = 0;
        if (timerDue()) curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
        int wait = waitMs;
        if (timerMs_ >= 0) {
            auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(timerAt_ - ServeClock::now());
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

    void abortAll(const std::string& why, std::vector<ServeRequestResult>& done) override {
        for (auto& t : live_) {
            curl_multi_remove_handle(multi_, t->easy);
            t->finish(CURLE_OK, datasetInput(t->stream.result.id));
            t->stream.result.error = why;
            done.push_back(std::move(t->stream.result));
        }
        live_.clear();
    }

    std::size_t live() const override { return live_.size(); }
    std::string stampSource() const override { return "read time (libcurl)"; }

  private:
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
            t->finish(code, datasetInput(t->stream.result.id));
            done.push_back(std::move(t->stream.result));
            std::swap(*it, live_.back());  // order does not matter; done is sorted by id
            live_.pop_back();
        }
    }

    // curl asks to watch a socket (or to stop): mirrored into the epoll set.
    static int onSocket(CURL*, curl_socket_t s, int what, void* self, void*) {
        auto* loop = static_cast<CurlLoop*>(self);
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
        auto* loop = static_cast<CurlLoop*>(self);
        loop->timerMs_ = ms;
        if (ms >= 0) loop->timerAt_ = ServeClock::now() + std::chrono::milliseconds(ms);
        return 0;
    }
    bool timerDue() const { return timerMs_ >= 0 && ServeClock::now() >= timerAt_; }

    const ServeLoadOptions& o_;
    std::string url_;
    int epoll_ = -1;
    CURLM* multi_ = nullptr;
    long timerMs_ = -1;
    ServeClock::time_point timerAt_{};
    std::vector<std::unique_ptr<Transfer>> live_;
};

}  // namespace

std::unique_ptr<RequestLoop> makeCurlLoop(const ServeLoadOptions& options) {
    return std::make_unique<CurlLoop>(options);
}

}  // namespace ws
