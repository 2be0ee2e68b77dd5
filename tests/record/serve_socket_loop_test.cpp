// bench serve's socket transport (--http-client socket) against a raw TCP
// peer that writes canned bytes, well-formed or broken on purpose, and the
// kernel receive stamps it times chunks by. The transport against the real
// server is in serve_load_test.cpp.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "record/serve_load.h"
#include "record/stamped_receive.h"

namespace ws::testing {
namespace {

using namespace std::chrono_literals;

std::int64_t unixNowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Listens on 127.0.0.1; runs `handler(fd, index)` for each accepted
// connection in turn on its own thread, then closes it.
class RawServer {
  public:
    explicit RawServer(std::function<void(int, int)> handler) : handler_(std::move(handler)) {
        listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        EXPECT_EQ(::bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
        EXPECT_EQ(::listen(listener_, 16), 0);
        socklen_t len = sizeof a;
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &len);
        port_ = ntohs(a.sin_port);
        thread_ = std::thread([this] { serve(); });
    }
    ~RawServer() {
        stop_ = true;
        thread_.join();
        ::close(listener_);
    }
    std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
    int connections() const { return accepted_; }
    bool stopping() const { return stop_; }

  private:
    void serve() {
        while (!stop_) {
            pollfd p{listener_, POLLIN, 0};
            if (::poll(&p, 1, 20) <= 0) continue;
            int fd = ::accept(listener_, nullptr, nullptr);
            if (fd < 0) continue;
            handler_(fd, accepted_++);
            ::close(fd);
        }
    }
    std::function<void(int, int)> handler_;
    int listener_ = -1;
    int port_ = 0;
    std::atomic<int> accepted_{0};
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

// Whatever the client sent within 5 s (a request arrives in one segment on
// loopback); empty when it closed.
std::string readRequest(int fd) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) return {};
    char buf[65536];
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

void write(int fd, const std::string& bytes) {
    ASSERT_EQ(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
}

const std::string kEvents =
    "data: {\"choices\":[{\"text\":\"a\"}]}\n\n"
    "data: {\"choices\":[{\"text\":\"b\"}]}\n\n"
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":2}}\n\n"
    "data: [DONE]\n\n";

std::string withLength(const std::string& body) {
    return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body;
}

ServeLoadOptions options(const RawServer& server, int prompts) {
    ServeLoadOptions o;
    o.endpoint = server.endpoint();
    o.model = "m";
    o.numPrompts = prompts;
    o.inputLen = 4;
    o.outputLen = 2;
    o.maxConcurrency = 1;
    o.warmup = false;
    o.requestTimeoutS = 10;
    o.httpClient = "socket";
    return o;
}

// A blocking loopback connection to `server` that asks for receive stamps;
// -1 where either fails.
int connectStamped(const RawServer& server) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<std::uint16_t>(std::stoi(server.endpoint().substr(17))));
    if (fd < 0 || !enableReceiveStamps(fd) ||
        ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        if (fd >= 0) ::close(fd);
        return -1;
    }
    return fd;
}

TEST(StampedReceive, TheStampIsWhenBytesArrivedNotWhenTheyWereRead) {
    RawServer server([](int fd, int) {
        std::this_thread::sleep_for(10ms);
        write(fd, "chunk");
        readRequest(fd);  // until the client closes
    });
    const int fd = connectStamped(server);
    ASSERT_GE(fd, 0);
    const std::int64_t connected = unixNowNs();
    std::this_thread::sleep_for(200ms);  // the chunk waits in the socket
    char buf[64];
    auto r = receiveStamped(fd, buf, sizeof buf);
    const std::int64_t readAt = unixNowNs();
    ::close(fd);
    ASSERT_EQ(r.bytes, 5);
    ASSERT_TRUE(r.unixNs.has_value());
    EXPECT_GE(*r.unixNs, connected);
    EXPECT_LT(*r.unixNs - connected, 150'000'000);  // sent ~10 ms after the connect
    EXPECT_GT(readAt - *r.unixNs, 50'000'000);      // read ~190 ms after it arrived
}

TEST(StampedReceive, StampsAreOnOnceTheHolderIsMadeAndStayOnWhileItLives) {
    ReceiveStampsOn on;
    ASSERT_TRUE(on.live());
    // A stream opened and answered at once: its very first read is stamped.
    RawServer server([](int fd, int) {
        write(fd, "chunk");
        readRequest(fd);
    });
    const int fd = connectStamped(server);
    ASSERT_GE(fd, 0);
    char buf[64];
    pollfd readable{fd, POLLIN, 0};
    ASSERT_EQ(::poll(&readable, 1, 5000), 1);  // the chunk has arrived
    const StampedRead r = receiveStamped(fd, buf, sizeof buf);
    ::close(fd);
    ASSERT_EQ(r.bytes, 5);
    EXPECT_TRUE(r.unixNs.has_value());
}

TEST(SocketClient, LengthAndCloseDelimitedStreamsCompleteOnAKeptConnection) {
    // Every request on one connection, answered with a Content-Length body.
    RawServer kept([](int fd, int) {
        while (!readRequest(fd).empty())
            write(fd, withLength(kEvents));
    });
    auto r = runServeLoad(options(kept, 3));
    ASSERT_EQ(r.requests.size(), 3u);
    for (const auto& q : r.requests) {
        EXPECT_TRUE(q.error.empty()) << q.error;
        EXPECT_EQ(q.chunkNs.size(), 2u);
        EXPECT_EQ(q.outputTokens, 2);
        EXPECT_EQ(q.promptTokens, 4);
    }
    EXPECT_EQ(kept.connections(), 1);
    EXPECT_NE(r.stampSource.find("kernel receive time (SO_TIMESTAMPING) for every read"),
              std::string::npos)
        << r.stampSource;
    // Each response came in one write: its two chunks share a read and its time.
    EXPECT_EQ(r.chunksRead, 6u);
    EXPECT_EQ(r.chunksSharingARead, 6u);

    // A body that runs to the close (no length, not chunked).
    RawServer closing([](int fd, int) {
        readRequest(fd);
        write(fd, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + kEvents);
    });
    r = runServeLoad(options(closing, 2));
    ASSERT_EQ(r.requests.size(), 2u);
    for (const auto& q : r.requests) {
        EXPECT_TRUE(q.error.empty()) << q.error;
        EXPECT_EQ(q.chunkNs.size(), 2u);
    }
    EXPECT_EQ(closing.connections(), 2);
}

TEST(SocketClient, ChunkedAndInterimResponsesOnAKeptConnection) {
    // A 103 Early Hints before each real response, then a chunked body.
    RawServer server([](int fd, int) {
        while (!readRequest(fd).empty()) {
            std::string body =
                "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
            for (std::size_t at = 0; at < kEvents.size(); at += 40) {
                const std::string part = kEvents.substr(at, 40);
                std::ostringstream size;
                size << std::hex << part.size();
                body += size.str() + "\r\n" + part + "\r\n";
            }
            write(fd, body + "0\r\n\r\n");
        }
    });
    auto r = runServeLoad(options(server, 3));
    ASSERT_EQ(r.requests.size(), 3u);
    for (const auto& q : r.requests) {
        EXPECT_TRUE(q.error.empty()) << q.error;
        EXPECT_EQ(q.httpStatus, 200);
        EXPECT_EQ(q.chunkNs.size(), 2u);
    }
    EXPECT_EQ(server.connections(), 1);
}

TEST(SocketClient, AnAnswerBeforeTheRequestWasSentIsRead) {
    // A 413 for a body the server will not take: answered after the first
    // segment, then closed with the rest unread (a reset), as a gateway does.
    RawServer server([](int fd, int) {
        readRequest(fd);
        write(fd,
              "HTTP/1.1 413 Payload Too Large\r\nContent-Length: 9\r\nConnection: "
              "close\r\n\r\ntoo large");
    });
    auto o = options(server, 1);
    auto prompts = std::make_shared<std::vector<ServePrompt>>(1);
    (*prompts)[0].text = std::string(8 << 20, 'x');  // 8 MiB: more than the socket buffers take
    (*prompts)[0].inputLen = 1;
    (*prompts)[0].outputLen = 2;
    o.prompts = prompts;
    auto r = runServeLoad(o);
    ASSERT_EQ(r.requests.size(), 1u);
    EXPECT_EQ(r.requests[0].error, "HTTP 413: too large");
}

TEST(SocketClient, AnUnknownHostFailsEveryRequestWithItsCause) {
    ServeLoadOptions o;
    o.endpoint = "http://no-such-host.invalid:8000";
    o.model = "m";
    o.numPrompts = 2;
    o.inputLen = 4;
    o.outputLen = 2;
    o.httpClient = "socket";
    auto r = runServeLoad(o);  // the warm-up fails: nothing is measured
    EXPECT_NE(r.warmupError.find("no-such-host.invalid"), std::string::npos) << r.warmupError;
    o.warmup = false;
    r = runServeLoad(o);
    ASSERT_EQ(r.requests.size(), 2u);
    EXPECT_EQ(r.failed(), 2);
    EXPECT_NE(r.requests[1].error.find("Could not resolve host"), std::string::npos)
        << r.requests[1].error;
}

TEST(SocketClient, AKeptConnectionClosedUnderARequestIsRetriedOnce) {
    // The first connection answers one request, then closes on the next one
    // unanswered, as a server's keep-alive timeout does.
    RawServer server([](int fd, int index) {
        readRequest(fd);
        write(fd, withLength(kEvents));
        if (index == 0) {
            readRequest(fd);
            return;
        }
        while (!readRequest(fd).empty())
            write(fd, withLength(kEvents));
    });
    auto r = runServeLoad(options(server, 3));
    ASSERT_EQ(r.requests.size(), 3u);
    for (const auto& q : r.requests)
        EXPECT_TRUE(q.error.empty()) << q.error;
    EXPECT_EQ(server.connections(), 2);
}

std::string onlyError(const RawServer& server, double timeoutS = 10) {
    auto o = options(server, 1);
    o.requestTimeoutS = timeoutS;
    auto r = runServeLoad(o);
    EXPECT_EQ(r.requests.size(), 1u);
    return r.requests.empty() ? "" : r.requests[0].error;
}

TEST(SocketClient, BrokenResponsesFailWithTheirCauseAndNothingHangs) {
    const auto started = std::chrono::steady_clock::now();
    RawServer garbage([](int fd, int) {
        readRequest(fd);
        write(fd, "NOT HTTP AT ALL\r\n\r\n");
    });
    EXPECT_NE(onlyError(garbage).find("malformed HTTP response"), std::string::npos)
        << onlyError(garbage);

    RawServer silentClose([](int fd, int) { readRequest(fd); });
    EXPECT_EQ(onlyError(silentClose), "the server closed the connection without a response");

    RawServer cut([](int fd, int) {
        readRequest(fd);
        const std::string event = "data: {\"choices\":[{\"text\":\"a\"}]}\n\n";
        std::ostringstream size;
        size << std::hex << event.size();
        write(fd, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + size.str() + "\r\n" +
                      event + "\r\n");
    });
    EXPECT_EQ(onlyError(cut), "the server closed the connection before the response ended");

    RawServer badEvent([](int fd, int) {
        readRequest(fd);
        write(fd, withLength("data: {\"choices\": [\n\n"));
    });
    EXPECT_NE(onlyError(badEvent).find("malformed SSE event"), std::string::npos);

    RawServer notFound([](int fd, int) {
        readRequest(fd);
        write(fd, "HTTP/1.1 404 Not Found\r\nContent-Length: 17\r\n\r\nno such model: m\n");
    });
    EXPECT_EQ(onlyError(notFound), "HTTP 404: no such model: m\n");

    // Accepts and never answers: the request's own timeout ends it.
    RawServer silent([](int fd, int) {
        readRequest(fd);
        readRequest(fd);  // until the client gives up and closes
    });
    EXPECT_NE(onlyError(silent, 0.3).find("timed out"), std::string::npos);
    EXPECT_LT(std::chrono::steady_clock::now() - started, 20s);
}

// As `vllm bench serve` times a stream: every event with choices is a token
// that arrived, its text empty, null or a chat delta without content (EOS
// and special tokens render no text); the usage event's empty choices are
// not. A stream with no such event has no first token: failed.
TEST(SocketClient, EveryChunkWithChoicesIsATokenTextOrNot) {
    RawServer server([](int fd, int) {
        readRequest(fd);
        write(fd, withLength("data: {\"choices\":[{\"text\":\"\"}]}\n\n"
                             "data: {\"choices\":[{\"text\":null}]}\n\n"
                             "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n"
                             "data: {\"choices\":[{\"text\":\"a\"}]}\n\n"
                             "data: {\"choices\":[],\"usage\":{\"completion_tokens\":3}}\n\n"
                             "data: [DONE]\n\n"));
    });
    auto r = runServeLoad(options(server, 1));
    ASSERT_EQ(r.requests.size(), 1u);
    EXPECT_TRUE(r.requests[0].error.empty()) << r.requests[0].error;
    EXPECT_EQ(r.requests[0].chunkNs.size(), 4u);
    EXPECT_EQ(r.requests[0].outputTokens, 3);

    // Without usage the tokens are the chunks, less chat's role chunk.
    RawServer noUsage([](int fd, int) {
        readRequest(fd);
        write(fd,
              withLength(
                  "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n"
                  "data: {\"choices\":[{\"delta\":{\"content\":\"\"}}]}\n\n"
                  "data: {\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n\n"
                  "data: [DONE]\n\n"));
    });
    r = runServeLoad(options(noUsage, 1));
    ASSERT_EQ(r.requests.size(), 1u);
    EXPECT_TRUE(r.requests[0].error.empty()) << r.requests[0].error;
    EXPECT_EQ(r.requests[0].chunkNs.size(), 3u);
    EXPECT_FALSE(r.requests[0].usageReported);
    EXPECT_EQ(r.requests[0].outputTokens, 2);

    RawServer usageOnly([](int fd, int) {
        readRequest(fd);
        write(fd, withLength("data: {\"choices\":[],\"usage\":{\"completion_tokens\":0}}\n\n"
                             "data: [DONE]\n\n"));
    });
    EXPECT_EQ(onlyError(usageOnly), "the stream carried no chunk with choices (no token to time)");
}

TEST(SocketClient, HttpsIsLibcurlsAndABadChoiceIsRefused) {
    ServeLoadOptions o;
    o.endpoint = "https://127.0.0.1:1";
    o.model = "m";
    o.numPrompts = 1;
    o.warmup = false;
    o.httpClient = "socket";
    EXPECT_THROW(runServeLoad(o), std::runtime_error);
    o.httpClient = "auto";  // libcurl: the request fails, nothing throws
    auto r = runServeLoad(o);
    ASSERT_EQ(r.requests.size(), 1u);
    EXPECT_FALSE(r.requests[0].error.empty());
    EXPECT_NE(r.stampSource.find("libcurl"), std::string::npos);
    o.httpClient = "fastest";
    EXPECT_THROW(runServeLoad(o), std::runtime_error);
}

}  // namespace
}  // namespace ws::testing
