#include "sse_client.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <csignal>

namespace ws::testing {

namespace {

using namespace std::chrono_literals;

httplib::Client client(int port) {
    // httplib's client sends without MSG_NOSIGNAL: a server that goes away
    // mid-request must fail the request, not kill the test with SIGPIPE.
    static const bool ignored = std::signal(SIGPIPE, SIG_IGN) != SIG_ERR;
    (void)ignored;
    httplib::Client c("127.0.0.1", port);
    c.set_connection_timeout(30s);
    c.set_read_timeout(120s);  // generous: a loaded machine, a sanitizer build
    c.set_write_timeout(60s);
    return c;
}

HttpReply fromResult(const httplib::Result& result) {
    HttpReply reply;
    if (!result) {
        reply.error = httplib::to_string(result.error());
        return reply;
    }
    reply.status = result->status;
    reply.body = result->body;
    reply.contentType = result->get_header_value("Content-Type");
    reply.contentEncoding = result->get_header_value("Content-Encoding");
    return reply;
}

}  // namespace

HttpReply httpGet(int port, const std::string& path) {
    auto c = client(port);
    return fromResult(c.Get(path));
}

HttpReply httpPost(int port, const std::string& path, const std::string& body) {
    auto c = client(port);
    return fromResult(c.Post(path, body, "application/json"));
}

SseReply ssePost(int port, const std::string& path, const std::string& body,
                 const std::function<bool(const std::string& data)>& onEvent,
                 const std::vector<std::pair<std::string, std::string>>& headers) {
    auto c = client(port);
    SseReply reply;
    std::string pending;
    httplib::Request req;
    req.method = "POST";
    req.path = path;
    req.body = body;
    req.set_header("Content-Type", "application/json");
    for (const auto& [k, v] : headers)
        req.set_header(k.c_str(), v);
    req.response_handler = [&](const httplib::Response& res) {
        reply.status = res.status;
        reply.contentType = res.get_header_value("Content-Type");
        reply.contentEncoding = res.get_header_value("Content-Encoding");
        return true;
    };
    req.content_receiver = [&](const char* data, std::size_t size, std::uint64_t, std::uint64_t) {
        reply.body.append(data, size);
        if (reply.status != 200) return true;
        pending.append(data, size);
        std::size_t end;
        while ((end = pending.find("\n\n")) != std::string::npos) {
            std::string block = pending.substr(0, end);
            pending.erase(0, end + 2);
            // Comment lines (": emit NS") before the event's data line.
            while (block.rfind(':', 0) == 0 && block.find('\n') != std::string::npos) {
                reply.comments.push_back(block.substr(1, block.find('\n') - 1));
                block.erase(0, block.find('\n') + 1);
            }
            if (block.rfind("data: ", 0) != 0 || block.find('\n') != std::string::npos) {
                if (reply.malformed.empty()) reply.malformed = block;
                continue;
            }
            reply.events.push_back(block.substr(6));
            if (onEvent && !onEvent(reply.events.back())) return false;
        }
        return true;
    };
    auto result = c.send(req);
    reply.completed = static_cast<bool>(result);
    if (!result) reply.error = httplib::to_string(result.error());
    if (reply.completed && !pending.empty() && reply.malformed.empty()) reply.malformed = pending;
    return reply;
}

std::string rawExchange(int port, const std::string& bytes) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return {};
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::string reply;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
        timeval timeout{60, 0};
        ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
        std::size_t sent = 0;
        while (sent < bytes.size()) {
            ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
            if (n <= 0) break;
            sent += static_cast<std::size_t>(n);
        }
        char buf[4096];
        ssize_t n;
        std::size_t wanted = std::string::npos;  // head + body, once the head is in
        while (reply.size() < wanted && (n = ::recv(fd, buf, sizeof buf, 0)) > 0) {
            reply.append(buf, static_cast<std::size_t>(n));
            std::size_t head = reply.find("\r\n\r\n");
            if (head == std::string::npos || wanted != std::string::npos) continue;
            std::size_t at = reply.find("Content-Length: ");
            std::size_t length =
                at < head ? std::stoul(reply.substr(at + 16, reply.find("\r\n", at) - at - 16)) : 0;
            wanted = head + 4 + length;
        }
    }
    ::close(fd);
    return reply;
}

}  // namespace ws::testing
