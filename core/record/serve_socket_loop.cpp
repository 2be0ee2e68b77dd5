// The socket transport of `bench serve` for plain http:// endpoints: one
// non-blocking TCP connection per running request (kept alive and reused
// after a complete response), every socket on one epoll set, responses parsed
// by Boost.Beast's HTTP parser. Each socket asks the kernel to stamp arriving
// segments and every read returns that stamp with the bytes
// (record/stamped_receive.h), so a chunk's time is when it reached this host,
// not when this thread got round to it: a decode step
// that ends 1,000 streams at once is read one socket after another, and
// stamping at read time added the wait behind the others to TTFT and ITL.
// One read per ready socket and no extra poll() per read, as libcurl does.
#include <curl/curl.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <boost/beast/http.hpp>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "record/serve_response_reader.h"
#include "record/stamped_receive.h"
#include "serve_request_loop.h"

namespace ws {

namespace {

namespace http = boost::beast::http;

// Host, port and target of an http:// URL, split by libcurl's URL API.
struct Target {
    std::string host;        // for getaddrinfo (no IPv6 brackets)
    std::string port;        // digits
    std::string hostHeader;  // as the URL gave it
    std::string path;        // with the query
};

Target splitUrl(const std::string& url) {
    CURLU* u = curl_url();
    if (!u) throw std::runtime_error("libcurl: curl_url failed");
    std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> owned(u, curl_url_cleanup);
    if (curl_url_set(u, CURLUPART_URL, url.c_str(), 0) != CURLUE_OK)
        throw std::runtime_error("--endpoint: '" + url + "' is not a URL");
    auto part = [&](CURLUPart what, unsigned flags = 0) {
        char* s = nullptr;
        std::string v;
        if (curl_url_get(u, what, &s, flags) == CURLUE_OK && s) v = s;
        curl_free(s);
        return v;
    };
    if (part(CURLUPART_SCHEME) != "http")
        throw std::runtime_error("the socket client takes http:// endpoints only: '" + url + "'");
    Target t;
    t.host = part(CURLUPART_HOST);
    t.hostHeader = t.host;
    if (t.host.size() > 2 && t.host.front() == '[') t.host = t.host.substr(1, t.host.size() - 2);
    t.port = part(CURLUPART_PORT, CURLU_DEFAULT_PORT);
    if (!part(CURLUPART_PORT).empty()) t.hostHeader += ":" + t.port;
    t.path = part(CURLUPART_PATH);
    if (auto q = part(CURLUPART_QUERY); !q.empty()) t.path += "?" + q;
    return t;
}

std::string errnoText(int e) {
    return std::strerror(e);
}

// Unix minus steady time, read between two steady readings (the narrowest
// of up to four tries), so a preemption between the reads does not shift
// every stamp.
std::int64_t unixMinusSteady() {
    std::int64_t best = 0, width = INT64_MAX;
    for (int i = 0; i < 4 && width > 10'000; ++i) {
        const std::int64_t a = steadyNs(), u = unixNs(), b = steadyNs();
        if (b - a < width) {
            width = b - a;
            best = u - (a + (b - a) / 2);
        }
    }
    return best;
}

std::string formatSeconds(double s) {
    char text[32];
    std::snprintf(text, sizeof text, s < 10 ? "%.3g s" : "%.0f s", s);
    return text;
}

struct Conn {
    int fd = -1;
    enum class State { Connecting, Sending, Receiving } state = State::Connecting;
    std::size_t attempt = 0;  // which address (connectOrder) this connection tries
    bool reused = false;      // a kept-alive connection: may be closed under us once
    std::string request;
    std::size_t sent = 0;
    std::int64_t offsetNs = 0;
    ServeClock::time_point deadline{}, connectDeadline{}, attemptDeadline{};
    std::string sendError;  // sending failed; a response may still be read
    std::size_t slot = 0;   // index in live_
    ServeResponseReader reader;
};

class SocketLoop final : public RequestLoop {
  public:
    explicit SocketLoop(const ServeLoadOptions& o) : o_(o), target_(splitUrl(requestUrl(o))) {
        epoll_ = epoll_create1(EPOLL_CLOEXEC);
        if (epoll_ < 0) throw std::runtime_error("epoll_create1 failed: " + errnoText(errno));
        addrinfo hints{};
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        addrinfo* found = nullptr;
        if (int rc = getaddrinfo(target_.host.c_str(), target_.port.c_str(), &hints, &found);
            rc != 0)
            resolveError_ =
                "Could not resolve host: " + target_.host + " (" + gai_strerror(rc) + ")";
        for (addrinfo* a = found; a; a = a->ai_next)
            addresses_.emplace_back(reinterpret_cast<const char*>(a->ai_addr), a->ai_addrlen);
        if (found) freeaddrinfo(found);
    }
    ~SocketLoop() override {
        for (auto& c : live_)
            if (c->fd >= 0) ::close(c->fd);
        for (int fd : idle_)
            ::close(fd);
        ::close(epoll_);
    }
    SocketLoop(const SocketLoop&) = delete;
    SocketLoop& operator=(const SocketLoop&) = delete;

    void start(std::int64_t id, const ServePrompt& p, std::int64_t offsetNs) override {
        auto c = std::make_unique<Conn>();
        c->offsetNs = offsetNs;
        c->reader.result().id = id;
        c->request = serialize(requestBody(o_, p));
        const auto now = ServeClock::now();
        // At most ~115 days: a larger --request-timeout would overflow the clock.
        c->deadline = now + std::chrono::duration_cast<ServeClock::duration>(
                                std::chrono::duration<double>(std::min(o_.requestTimeoutS, 1e7)));
        c->reader.result().startNs = steadyNs() + offsetNs;
        c->slot = live_.size();
        Conn* raw = c.get();
        live_.push_back(std::move(c));
        noteLive(live_.size());
        if (!resolveError_.empty())
            end(*raw, resolveError_);
        else if (!reuseIdle(*raw))
            connect(*raw);
    }

    void step(int waitMs, std::vector<ServeRequestResult>& done) override {
        checkTimeouts();
        if (!ended_.empty()) waitMs = 0;
        epoll_event events[256];
        const int n = epoll_wait(epoll_, events, 256, waitMs);
        unixMinusSteady_ = unixMinusSteady();
        for (int i = 0; i < n; ++i) {
            auto* c = static_cast<Conn*>(events[i].data.ptr);
            if (c->fd < 0) continue;  // ended earlier in this batch
            if (c->state == Conn::State::Connecting)
                connected(*c);
            else if (c->state == Conn::State::Sending && !(events[i].events & EPOLLIN))
                send(*c);
            else
                receive(*c);  // an answer, even one sent before the request was
        }
        for (auto& r : ended_)
            done.push_back(std::move(r));
        ended_.clear();
        graveyard_.clear();
    }

    void abortAll(const std::string& why, std::vector<ServeRequestResult>& done) override {
        while (!live_.empty()) {
            Conn& c = *live_.back();
            end(c, "");
            ended_.back().error = why;
        }
        for (auto& r : ended_)
            done.push_back(std::move(r));
        ended_.clear();
        graveyard_.clear();
    }

    // Requests that ended inside start() (no address, no socket) count until
    // step() hands them over, so the caller steps at least once more.
    std::size_t live() const override { return live_.size() + ended_.size(); }

    std::string stampSource() const override {
        if (kernelStamped_ == 0 && noStamp_ + stampOutside_ == 0)
            return "kernel receive time (SO_TIMESTAMPING)";
        if (noStamp_ + stampOutside_ == 0)
            return "kernel receive time (SO_TIMESTAMPING) for every read";
        return "kernel receive time (SO_TIMESTAMPING) for " + std::to_string(kernelStamped_) +
               " reads, read time for " + std::to_string(noStamp_ + stampOutside_) + " (" +
               std::to_string(noStamp_) + " without a stamp, " + std::to_string(stampOutside_) +
               " stamped outside their request)";
    }

  private:
    std::string serialize(std::string body) const {
        http::request<http::string_body> req{http::verb::post, target_.path, 11};
        req.set(http::field::host, target_.hostHeader);
        req.set(http::field::user_agent, "warpscope-bench");
        for (const auto& [name, value] : requestHeaders())
            req.set(name, value);
        req.keep_alive(true);
        req.body() = std::move(body);
        req.prepare_payload();
        std::ostringstream out;
        out << req;
        return out.str();
    }

    void watch(Conn& c, std::uint32_t events, bool add) {
        epoll_event ev{};
        ev.events = events;
        ev.data.ptr = &c;
        epoll_ctl(epoll_, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, c.fd, &ev);
    }

    // A kept-alive connection the server has not closed, else false.
    bool reuseIdle(Conn& c) {
        while (!idle_.empty()) {
            int fd = idle_.back();
            idle_.pop_back();
            char b;
            ssize_t got = ::recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
            if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                c.fd = fd;
                c.reused = true;
                c.state = Conn::State::Sending;
                c.reader.restart();
                watch(c, EPOLLOUT | EPOLLIN, true);
                return true;
            }
            ::close(fd);  // closed by the server, or it sent something unasked
        }
        return false;
    }

    // The address of attempt k: the one that last connected first, then the
    // others in getaddrinfo's order.
    std::size_t connectOrder(std::size_t k) const {
        if (k == 0) return preferred_;
        return k - 1 < preferred_ ? k - 1 : k;
    }
    std::string where() const { return target_.host + " port " + target_.port; }

    // A new connection, from attempt `attempt` on: an address that refuses at
    // once, or does not answer within 1 s while others are left (IPv6 listed
    // but not routed), gives way to the next.
    void connect(Conn& c, std::size_t attempt = 0) {
        const auto now = ServeClock::now();
        if (attempt == 0) c.connectDeadline = std::min(c.deadline, now + std::chrono::seconds(30));
        c.reused = false;
        c.sent = 0;
        c.sendError.clear();
        c.reader.restart();
        std::string lastError = "no address";
        for (; attempt < addresses_.size(); ++attempt) {
            const auto& a = addresses_[connectOrder(attempt)];
            const auto* sa = reinterpret_cast<const sockaddr*>(a.data());
            int fd = ::socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
            if (fd < 0) {
                lastError = errnoText(errno);
                continue;
            }
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            enableReceiveStamps(fd);  // where refused, reads are timed when made
            c.fd = fd;
            c.attempt = attempt;
            c.attemptDeadline = attempt + 1 < addresses_.size()
                                    ? std::min(c.connectDeadline, now + std::chrono::seconds(1))
                                    : c.connectDeadline;
            if (::connect(fd, sa, static_cast<socklen_t>(a.size())) == 0) {
                c.state = Conn::State::Sending;
                watch(c, EPOLLOUT | EPOLLIN, true);
                return;
            }
            if (errno == EINPROGRESS) {
                c.state = Conn::State::Connecting;
                watch(c, EPOLLOUT, true);
                return;
            }
            lastError = errnoText(errno);
            ::close(fd);
            c.fd = -1;
        }
        end(c, "Failed to connect to " + where() + ": " + lastError);
    }

    void closeSocket(Conn& c) {
        epoll_ctl(epoll_, EPOLL_CTL_DEL, c.fd, nullptr);
        ::close(c.fd);
        c.fd = -1;
    }

    void connected(Conn& c) {
        int err = 0;
        socklen_t len = sizeof err;
        getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &err, &len);
        if (err != 0) {
            if (c.attempt + 1 < addresses_.size()) {  // e.g. ::1 refused, 127.0.0.1 listens
                closeSocket(c);
                connect(c, c.attempt + 1);
            } else {
                end(c, "Failed to connect to " + where() + ": " + errnoText(err));
            }
            return;
        }
        preferred_ = connectOrder(c.attempt);
        c.state = Conn::State::Sending;
        watch(c, EPOLLOUT | EPOLLIN, false);
        send(c);
    }

    void send(Conn& c) {
        while (c.sent < c.request.size()) {
            ssize_t n =
                ::send(c.fd, c.request.data() + c.sent, c.request.size() - c.sent, MSG_NOSIGNAL);
            if (n < 0) {
                if (errno == EAGAIN || errno == EWOULDBLOCK) return;  // EPOLLOUT again
                if (c.reused) return retry(c);
                // The server may have answered and closed before taking it
                // all (413, 401): read that answer, as libcurl does.
                c.sendError = errnoText(errno);
                break;
            }
            c.sent += static_cast<std::size_t>(n);
        }
        c.state = Conn::State::Receiving;
        watch(c, EPOLLIN, false);
    }

    // A reused connection the server closed before answering: once more on a
    // new one, as browsers and libcurl do.
    void retry(Conn& c) {
        closeSocket(c);
        connect(c);
    }

    void receive(Conn& c) {
        if (c.state != Conn::State::Receiving) {  // answered before the request was sent
            c.state = Conn::State::Receiving;
            watch(c, EPOLLIN, false);
        }
        const StampedRead r = receiveStamped(c.fd, buffer_, sizeof buffer_);
        const std::int64_t readNs = steadyNs();
        if (r.bytes < 0 && (r.error == EAGAIN || r.error == EWOULDBLOCK || r.error == EINTR))
            return;
        if (r.bytes <= 0 && !c.reader.gotBytes()) {
            if (c.reused) return retry(c);
            if (!c.sendError.empty()) return end(c, "sending the request failed: " + c.sendError);
        }
        if (r.bytes < 0) return end(c, "receiving failed: " + errnoText(r.error));
        if (r.bytes == 0) return settle(c, c.reader.closed());
        std::int64_t atNs = readNs;
        // The stamp on the steady clock lies between the request's start and
        // this read, up to the error of the offset between the clocks
        // (microseconds; a preempted reading, more), which is clipped. One
        // further off is not of this read's segments, or the clock was
        // stepped: read time then.
        const std::int64_t startSteady = c.reader.result().startNs - c.offsetNs;
        const std::int64_t steady = r.unixNs ? *r.unixNs - unixMinusSteady_ : 0;
        constexpr std::int64_t kSlackNs = 2'000'000;
        const bool stamped =
            r.unixNs && steady <= readNs + kSlackNs && steady >= startSteady - kSlackNs;
        if (stamped) atNs = std::clamp(steady, std::min(startSteady, readNs), readNs);
        ++(stamped ? kernelStamped_ : r.unixNs ? stampOutside_ : noStamp_);
        const std::size_t before = c.reader.result().chunkNs.size();
        const auto progress =
            c.reader.feed(buffer_, static_cast<std::size_t>(r.bytes), atNs + c.offsetNs);
        noteRead(c.reader.result().chunkNs.size() - before);
        settle(c, progress);
    }

    // Ends the request once its response is read or broken; a whole
    // response's connection goes back to the idle ones when both sides keep it.
    void settle(Conn& c, ServeResponseReader::Progress progress) {
        if (progress == ServeResponseReader::Progress::More) return;
        if (progress == ServeResponseReader::Progress::Done && c.reader.keepAlive()) {
            epoll_ctl(epoll_, EPOLL_CTL_DEL, c.fd, nullptr);
            idle_.push_back(c.fd);
            c.fd = -1;
        }
        end(c, progress == ServeResponseReader::Progress::Failed ? c.reader.failure() : "");
    }

    // The request's outcome moves to ended_; its connection is closed unless
    // settle() kept it.
    void end(Conn& c, const std::string& transportError) {
        if (c.fd >= 0) closeSocket(c);
        c.reader.finish(transportError, datasetInput(c.reader.result().id));
        ended_.push_back(std::move(c.reader.result()));
        const std::size_t slot = c.slot;
        graveyard_.push_back(std::move(live_[slot]));  // freed after the event batch
        if (slot + 1 != live_.size()) {
            live_[slot] = std::move(live_.back());
            live_[slot]->slot = slot;
        }
        live_.pop_back();
    }

    void checkTimeouts() {
        const auto now = ServeClock::now();
        if (now - lastTimeoutCheck_ < std::chrono::milliseconds(20)) return;
        lastTimeoutCheck_ = now;
        for (std::size_t i = live_.size(); i-- > 0;) {
            Conn& c = *live_[i];
            if (c.state == Conn::State::Connecting && now >= c.attemptDeadline &&
                c.attempt + 1 < addresses_.size() && now < c.connectDeadline) {
                closeSocket(c);
                connect(c, c.attempt + 1);
            } else if (c.state == Conn::State::Connecting && now >= c.connectDeadline) {
                end(c, "connecting to " + where() + " timed out");
            } else if (now >= c.deadline) {
                end(c, "the request timed out after " + formatSeconds(o_.requestTimeoutS));
            }
        }
    }

    const ServeLoadOptions& o_;
    Target target_;
    std::string resolveError_;
    std::vector<std::string> addresses_;  // sockaddr bytes, in getaddrinfo's order
    std::size_t preferred_ = 0;           // the address that last connected
    int epoll_ = -1;
    std::vector<std::unique_ptr<Conn>> live_;
    std::vector<std::unique_ptr<Conn>> graveyard_;
    std::vector<ServeRequestResult> ended_;
    std::vector<int> idle_;
    ReceiveStampsOn stampsOn_;  // before the first connection, so its reads are stamped too
    std::int64_t unixMinusSteady_ = unixMinusSteady();
    std::size_t kernelStamped_ = 0, noStamp_ = 0, stampOutside_ = 0;
    ServeClock::time_point lastTimeoutCheck_{};
    char buffer_[65536];
};

}  // namespace

std::unique_ptr<RequestLoop> makeSocketLoop(const ServeLoadOptions& options) {
    return std::make_unique<SocketLoop>(options);
}

}  // namespace ws
