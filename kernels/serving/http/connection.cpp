#include "serving/http/connection.h"

#include <sys/socket.h>

#include <boost/asio/write.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/chunk_encode.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include <cerrno>

namespace ws::serving::http {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using boost::system::error_code;

Connection::Connection(net::ip::tcp::socket socket, const ConnectionRules& rules,
                       std::shared_ptr<void> ticket)
    : socket_(std::move(socket)),
      deadline_(socket_.get_executor()),
      rules_(rules),
      ticket_(std::move(ticket)) {}

Connection::~Connection() {
    close();
}

void Connection::start() {
    readHead();
}

// One deadline at a time: the request (head and body together), or a write.
// When it passes, the socket's operations are cancelled and their handler
// finds timedOut_ set.
void Connection::arm(std::chrono::seconds timeout) {
    timedOut_ = false;
    armed_ = timeout;
    deadline_.expires_after(timeout);
    deadline_.async_wait([self = shared_from_this()](error_code ec) {
        if (ec || self->closed_) return;
        self->timedOut_ = true;
        error_code ignored;
        self->socket_.cancel(ignored);
    });
}

void Connection::readHead() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(rules_.maxHeadBytes));
    parser_->body_limit(rules_.maxBodyBytes);
    phase_ = Phase::Head;
    // A connection's first request, head and body together, must arrive
    // within readTimeout; a kept-alive one waits keepAlive for its next head,
    // then readTimeout for that request's body.
    arm(firstRequest_ ? rules_.readTimeout : rules_.keepAlive);
    bhttp::async_read_header(
        socket_, buffer_, *parser_,
        [self = shared_from_this()](error_code ec, std::size_t) { self->onHead(ec); });
}

void Connection::onHead(error_code ec) {
    if (closed_) return;
    if (ec) return readFailed(ec);
    if (parser_->is_done()) return dispatch();
    phase_ = Phase::Body;
    if (!firstRequest_) arm(rules_.readTimeout);
    if (!beast::iequals(parser_->get()[bhttp::field::expect], "100-continue")) return readBody();
    // curl sends bodies over 1 KiB this way and waits up to a second for it.
    auto interim =
        std::make_shared<bhttp::response<bhttp::empty_body>>(bhttp::status::continue_, 11);
    bhttp::async_write(socket_, *interim,
                       [self = shared_from_this(), interim](error_code werr, std::size_t) {
                           if (self->closed_) return;
                           if (werr) return self->readFailed(werr);
                           self->readBody();
                       });
}

void Connection::readBody() {
    bhttp::async_read(
        socket_, buffer_, *parser_,
        [self = shared_from_this()](error_code ec, std::size_t) { self->onBody(ec); });
}

void Connection::onBody(error_code ec) {
    if (closed_) return;
    if (ec) return readFailed(ec);
    dispatch();
}

void Connection::readFailed(error_code ec) {
    const bool gotSome = parser_ && parser_->got_some();
    if (timedOut_) {
        if (!gotSome) return close();  // an idle connection, closed quietly
        const std::string seconds = std::to_string(armed_.count());
        if (phase_ == Phase::Head)
            return replyError(408, "the request head did not arrive within " + seconds + " s");
        const auto length = parser_->content_length();
        return replyError(408, "the request body did not arrive within " + seconds + " s" +
                                   (length ? " (" + std::to_string(*length) +
                                                 " bytes announced by Content-Length)"
                                           : std::string()));
    }
    if (ec == bhttp::error::body_limit)
        return replyError(413, "the request body is larger than the server's limit of " +
                                   std::to_string(rules_.maxBodyBytes) + " bytes");
    if (ec == bhttp::error::header_limit)
        return replyError(431, "the request head is larger than the server's limit of " +
                                   std::to_string(rules_.maxHeadBytes) + " bytes");
    // The client went away (before, between or in the middle of requests).
    if (ec == bhttp::error::end_of_stream || ec == bhttp::error::partial_message ||
        ec == net::error::eof || ec == net::error::connection_reset ||
        ec == net::error::operation_aborted || ec == net::error::broken_pipe || !gotSome)
        return close();
    replyError(400, "malformed HTTP request: " + ec.message());
}

void Connection::replyError(int status, const std::string& message) {
    keepAlive_ = false;  // what follows on this connection cannot be trusted to be a request
    phase_ = Phase::Handling;
    reply(status, "application/json", rules_.errorBody(status, message));
}

void Connection::dispatch() {
    deadline_.cancel();
    firstRequest_ = false;
    phase_ = Phase::Handling;
    HttpRequest& request = parser_->get();
    keepAlive_ = request.keep_alive() && !(rules_.stopping && *rules_.stopping);
    watchClient();
    try {
        rules_.onRequest(shared_from_this(), request);
    } catch (const std::exception& e) {
        if (!writing_ && !streaming_)
            replyError(500, std::string("internal server error: ") + e.what());
        else
            close();
    }
}

// While a reply is produced the connection reads nothing, so a client that
// hangs up would go unnoticed until the next write: wait for the socket to
// turn readable and look, without taking, whether that is its end.
void Connection::watchClient() {
    socket_.async_wait(net::ip::tcp::socket::wait_read, [self = shared_from_this(),
                                                         generation = watch_](error_code ec) {
        if (ec || self->closed_ || generation != self->watch_) return;
        char byte;
        const auto n = ::recv(self->socket_.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
        if (n > 0) return;  // the next request, pipelined: read after this reply
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return self->watchClient();
        self->close();  // its end (0) or an error
    });
}

void Connection::reply(int status, std::string_view contentType, std::string body) {
    if (closed_) return;
    auto response = std::make_shared<bhttp::response<bhttp::string_body>>(
        static_cast<bhttp::status>(status), 11);
    if (!contentType.empty())
        response->set(bhttp::field::content_type,
                      beast::string_view(contentType.data(), contentType.size()));
    response->keep_alive(keepAlive_);
    response->body() = std::move(body);
    response->prepare_payload();
    writing_ = true;
    arm(rules_.writeTimeout);
    bhttp::async_write(socket_, *response,
                       [self = shared_from_this(), response](error_code ec, std::size_t) {
                           self->onWritten(ec, true);
                       });
}

void Connection::beginStream(std::string_view contentType) {
    if (closed_) return;
    auto head = std::make_shared<bhttp::response<bhttp::empty_body>>(bhttp::status::ok, 11);
    head->set(bhttp::field::content_type,
              beast::string_view(contentType.data(), contentType.size()));
    head->set(bhttp::field::cache_control, "no-cache");
    head->keep_alive(keepAlive_);
    head->chunked(true);
    auto serializer = std::make_shared<bhttp::response_serializer<bhttp::empty_body>>(*head);
    streaming_ = true;
    writing_ = true;
    arm(rules_.writeTimeout);
    bhttp::async_write_header(socket_, *serializer,
                              [self = shared_from_this(), head, serializer](
                                  error_code ec, std::size_t) { self->onWritten(ec, false); });
}

void Connection::send(std::string data) {
    queued_ += data;
    flush();
}

void Connection::endStream() {
    ending_ = true;
    flush();
}

void Connection::flush() {
    if (closed_ || writing_ || !streaming_) return;
    auto self = shared_from_this();
    if (!queued_.empty()) {
        inflight_.swap(queued_);
        queued_.clear();
        writing_ = true;
        arm(rules_.writeTimeout);
        net::async_write(socket_, bhttp::make_chunk(net::buffer(inflight_)),
                         [self](error_code ec, std::size_t) { self->onWritten(ec, false); });
    } else if (ending_) {
        writing_ = true;
        arm(rules_.writeTimeout);
        net::async_write(socket_, bhttp::make_chunk_last(),
                         [self](error_code ec, std::size_t) { self->onWritten(ec, true); });
    }
}

void Connection::onWritten(error_code ec, bool last) {
    writing_ = false;
    if (closed_) return;
    deadline_.cancel();
    if (ec) return close();  // the client is gone or read nothing for writeTimeout
    if (last) return endReply();
    flush();
}

void Connection::endReply() {
    producer_.reset();
    streaming_ = ending_ = false;
    inflight_.clear();
    ++watch_;
    error_code ignored;
    socket_.cancel(ignored);  // the client watch
    if (!keepAlive_ || (rules_.stopping && *rules_.stopping)) {
        socket_.shutdown(net::ip::tcp::socket::shutdown_send, ignored);
        return close();
    }
    readHead();
}

void Connection::close() {
    if (closed_) return;
    closed_ = true;
    error_code ignored;
    deadline_.cancel(ignored);
    socket_.shutdown(net::ip::tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
    producer_.reset();  // a request still running learns its client is gone
}

}  // namespace ws::serving::http
