// The OpenAI server against clients that do not play by the rules (issue 45's
// probe of 2026-12-06): heads sent a line at a time, bodies that never end,
// lying lengths, `Expect: 100-continue`, and a shutdown while such clients
// hold connections. Each case failed on the thread-per-connection server.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "sse_client.h"
#include "test_server.h"

namespace ws::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;

// A connected socket to the server (closed by its destructor).
class RawClient {
  public:
    explicit RawClient(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(static_cast<std::uint16_t>(port));
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
        timeval timeout{30, 0};
        ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    }
    ~RawClient() { ::close(fd_); }
    RawClient(const RawClient&) = delete;
    RawClient& operator=(const RawClient&) = delete;

    bool connected() const { return connected_; }
    bool send(const std::string& bytes) {
        return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
               static_cast<ssize_t>(bytes.size());
    }
    // What arrives until `until` is in it, the peer closes, or 30 s pass.
    std::string receive(const std::string& until) {
        std::string got;
        char buf[4096];
        while (got.find(until) == std::string::npos) {
            const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
            if (n <= 0) break;
            got.append(buf, static_cast<std::size_t>(n));
        }
        return got;
    }

  private:
    int fd_;
    bool connected_ = false;
};

std::string completionBody(const std::string& prompt, int maxTokens) {
    return json{{"prompt", prompt}, {"max_tokens", maxTokens}, {"temperature", 0}}.dump();
}

std::string postHead(std::size_t length, const std::string& extra = {}) {
    return "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
           extra + "Content-Length: " + std::to_string(length) + "\r\n\r\n";
}

TEST(HostileClients, SlowHeadsHoldNoThreadAndMeetTheirDeadline) {
    auto options = TestServer::defaultOptions();
    options.threads = 1;  // the strictest case: one thread for everyone
    options.readTimeout = 3s;
    TestServer s(TestServer::defaultConfig(), {0us, 0us, 0us}, options);
    // More slow clients than the old server had threads, each with half a head.
    std::vector<std::unique_ptr<RawClient>> slow;
    for (int i = 0; i < 64; ++i) {
        slow.push_back(std::make_unique<RawClient>(s.port()));
        ASSERT_TRUE(slow.back()->connected());
        ASSERT_TRUE(slow.back()->send("POST /v1/completions HTTP/1.1\r\nHost: x\r\n"));
    }
    const auto start = std::chrono::steady_clock::now();
    HttpReply reply = httpPost(s.port(), "/v1/completions", completionBody("polite", 4));
    EXPECT_EQ(reply.status, 200) << reply.error;
    // Answered while every slow client still waited on its deadline.
    EXPECT_LT(std::chrono::steady_clock::now() - start, options.readTimeout);
    // Then each slow client gets 408, naming the deadline.
    std::string answer = slow.front()->receive("\r\n\r\n");
    EXPECT_EQ(answer.rfind("HTTP/1.1 408", 0), 0u) << answer.substr(0, 200);
    answer += slow.front()->receive("}}");
    EXPECT_NE(answer.find("did not arrive within 3 s"), std::string::npos) << answer;
}

TEST(HostileClients, AStalledBodyIs408AndReachesNoEngine) {
    auto options = TestServer::defaultOptions();
    options.readTimeout = 1s;
    TestServer s(TestServer::defaultConfig(), {0us, 0us, 0us}, options);
    std::string reply = rawExchange(s.port(), postHead(100) + "{\"prompt\":");
    EXPECT_EQ(reply.rfind("HTTP/1.1 408", 0), 0u) << reply.substr(0, 200);
    EXPECT_NE(reply.find("100 bytes announced by Content-Length"), std::string::npos) << reply;
    EXPECT_EQ(s.engine().stats().submitted, 0);
}

TEST(HostileClients, LyingLengthsGetAnAnswer) {
    TestServer s;
    // Negative: not a length.
    std::string reply = rawExchange(
        s.port(), "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n{}");
    EXPECT_EQ(reply.rfind("HTTP/1.1 400", 0), 0u) << reply.substr(0, 200);
    EXPECT_NE(reply.find("Content-Length"), std::string::npos) << reply;
    // Huge: refused from the head, before any body byte is awaited.
    reply = rawExchange(s.port(), postHead(999999999999999ull));
    EXPECT_EQ(reply.rfind("HTTP/1.1 413", 0), 0u) << reply.substr(0, 200);
    // Past 64 bits.
    reply = rawExchange(s.port(),
                        "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: "
                        "99999999999999999999999\r\n\r\n");
    EXPECT_EQ(reply.rfind("HTTP/1.1 400", 0), 0u) << reply.substr(0, 200);
    // Two different lengths.
    reply = rawExchange(s.port(),
                        "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
                        "Content-Length: 3\r\n\r\n{}");
    EXPECT_EQ(reply.rfind("HTTP/1.1 400", 0), 0u) << reply.substr(0, 200);
    // A head past its limit.
    reply = rawExchange(s.port(), "GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " +
                                      std::string(32 << 10, 'a') + "\r\n\r\n");
    EXPECT_EQ(reply.rfind("HTTP/1.1 431", 0), 0u) << reply.substr(0, 200);
    EXPECT_EQ(s.engine().stats().submitted, 0);
}

// curl sends a body over 1 KiB with `Expect: 100-continue` and waits for the
// interim answer before the body (docs/serving.md's curl -d examples).
TEST(HostileClients, ExpectContinueGetsItsInterimAnswer) {
    TestServer s;
    const std::string body = completionBody(std::string(9000, 'x'), 3);
    RawClient client(s.port());
    ASSERT_TRUE(client.send(postHead(body.size(), "Expect: 100-continue\r\n")));
    std::string interim = client.receive("\r\n\r\n");
    EXPECT_EQ(interim.rfind("HTTP/1.1 100", 0), 0u) << interim;
    ASSERT_TRUE(client.send(body));
    std::string reply = client.receive("\"usage\"");
    EXPECT_EQ(reply.rfind("HTTP/1.1 200", 0), 0u) << reply.substr(0, 200);
}

TEST(HostileClients, ShutdownIsNotHeldBySlowClients) {
    auto options = TestServer::defaultOptions();
    options.readTimeout = 60s;  // longer than the test: only the shutdown can end them
    options.writeTimeout = 60s;
    TestServer s(TestServer::defaultConfig(), {1ms, 0us, 0us}, options);
    std::vector<std::unique_ptr<RawClient>> clients;
    for (int i = 0; i < 32; ++i) {  // slow heads
        clients.push_back(std::make_unique<RawClient>(s.port()));
        clients.back()->send("POST /v1/completions HTTP/1.1\r\n");
    }
    // A stream whose client reads nothing.
    const std::string body = json{
        {"prompt", "unread"},
        {"max_tokens", 16000},
        {"stream", true},
        {"ignore_eos", true}}.dump();
    clients.push_back(std::make_unique<RawClient>(s.port()));
    clients.back()->send(postHead(body.size()) + body);
    ASSERT_TRUE(
        s.engine().waitFor([](const serving::EngineStats& st) { return st.running == 1; }, 60s));
    const auto start = std::chrono::steady_clock::now();
    s.shutdown(200ms);
    // The drain (0.2 s) and the grace for last writes (0.5 s), with room for a loaded machine.
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
    EXPECT_EQ(s.engine().stats().active, 0);
}

}  // namespace
}  // namespace ws::testing
