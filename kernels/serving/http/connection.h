// One client connection of the HTTP server, on an Asio event loop: reads each
// request with Boost.Beast's parser under one deadline for head and body,
// hands it to the server, and writes its reply, whole or as a chunked stream,
// each write under its own deadline. It watches for the client leaving while
// a reply is being produced, and closes on any failure: what a reply holds
// (its attachment) is released then, which is how a request learns its client
// has gone. Nothing here knows the OpenAI API; openai_server.cpp does.
//
// Every member runs on the connection's strand (from a handler, or through
// post()); close() may also be called once the loop has stopped.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/string_body.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace ws::serving::http {

class Connection;
using HttpRequest = boost::beast::http::request<boost::beast::http::string_body>;

struct ConnectionRules {
    std::size_t maxHeadBytes = 16 << 10;  // request line and headers (431 past it)
    std::size_t maxBodyBytes = 4 << 20;   // 413 past it
    std::chrono::seconds readTimeout{10};
    std::chrono::seconds writeTimeout{30};
    std::chrono::seconds keepAlive{5};
    // The body of an error the connection answers by itself (400, 408, 413,
    // 431): the server's JSON error shape.
    std::function<std::string(int status, const std::string& message)> errorBody;
    // Called with each complete request; it answers through reply() or
    // beginStream(), now or later.
    std::function<void(const std::shared_ptr<Connection>&, HttpRequest&)> onRequest;
    // Set while the server stops: no connection is kept alive past its reply.
    const std::atomic<bool>* stopping = nullptr;
};

class Connection : public std::enable_shared_from_this<Connection> {
  public:
    // `ticket` is held as long as the connection lives (the server counts them).
    Connection(boost::asio::ip::tcp::socket socket, const ConnectionRules& rules,
               std::shared_ptr<void> ticket);
    ~Connection();
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    void start();  // reads the first request

    // The reply to the current request. An empty content type sends none.
    void reply(int status, std::string_view contentType, std::string body);
    // A streamed reply: 200, chunked; send() queues a chunk (written as soon
    // as the one before has left, so chunks queued meanwhile go out as one);
    // endStream() ends it once the queue is written.
    void beginStream(std::string_view contentType);
    void send(std::string data);
    void endStream();
    // Whatever produces the current reply: kept until the reply ends or the
    // connection closes, whichever is first.
    void attach(std::shared_ptr<void> producer) { producer_ = std::move(producer); }

    template <class F>
    void post(F&& f) {
        boost::asio::post(socket_.get_executor(), std::forward<F>(f));
    }
    void close();
    bool closed() const { return closed_; }

  private:
    enum class Phase { Head, Body, Handling };

    void readHead();
    void onHead(boost::system::error_code ec);
    void readBody();
    void onBody(boost::system::error_code ec);
    void readFailed(boost::system::error_code ec);
    void replyError(int status, const std::string& message);
    void dispatch();
    void watchClient();
    void flush();
    void onWritten(boost::system::error_code ec, bool last);
    void endReply();
    void arm(std::chrono::seconds timeout);

    boost::asio::ip::tcp::socket socket_;
    boost::asio::steady_timer deadline_;
    const ConnectionRules& rules_;
    std::shared_ptr<void> ticket_;
    boost::beast::flat_buffer buffer_;
    std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
    Phase phase_ = Phase::Head;
    bool firstRequest_ = true;
    bool timedOut_ = false;
    std::chrono::seconds armed_{0};  // the deadline now running, for the 408's text
    bool keepAlive_ = false;
    bool closed_ = false;
    unsigned watch_ = 0;  // the generation of the client watch; a stale wake-up is ignored
    // The reply being written.
    std::shared_ptr<void> producer_;
    bool writing_ = false;
    std::string queued_;
    std::string inflight_;
    bool streaming_ = false;
    bool ending_ = false;
};

}  // namespace ws::serving::http
