#include "record/serve_response_reader.h"

#include <boost/beast/http.hpp>
#include <limits>
#include <optional>

#include "serve_stream.h"

namespace ws {

namespace http = boost::beast::http;

struct ServeResponseReader::Parts {
    ServeStream stream;
    std::optional<http::response_parser<http::buffer_body>> parser;
    std::string pending;    // bytes the parser has not taken yet
    bool leftover = false;  // bytes followed the response: the connection is not reused
    char body[16384];

    http::response_parser<http::buffer_body>& parse() {
        if (!parser) {
            parser.emplace();
            parser->eager(true);
            // No limit: a stream runs as long as the server sends. (Not
            // boost::none: Boost 1.74 compares a Content-Length against the
            // empty optional and refuses every body.)
            parser->body_limit(std::numeric_limits<std::uint64_t>::max());
            parser->header_limit(128 * 1024);  // libcurl takes headers of 100 KiB
        }
        return *parser;
    }
};

ServeResponseReader::ServeResponseReader() : parts_(std::make_unique<Parts>()) {}
ServeResponseReader::~ServeResponseReader() = default;

ServeRequestResult& ServeResponseReader::result() {
    return parts_->stream.result;
}

void ServeResponseReader::finish(const std::string& transportError, int datasetInput) {
    parts_->stream.finish(transportError, datasetInput);
}

bool ServeResponseReader::keepAlive() const {
    return parts_->parser && parts_->parser->is_done() && parts_->parser->keep_alive() &&
           !parts_->leftover;
}

void ServeResponseReader::restart() {
    parts_->parser.reset();
    parts_->pending.clear();
    parts_->leftover = false;
    gotBytes_ = false;
}

ServeResponseReader::Progress ServeResponseReader::feed(const char* data, std::size_t size,
                                                        std::int64_t atNs) {
    Parts& p = *parts_;
    auto* parser = &p.parse();
    if (size > 0) gotBytes_ = true;
    if (!p.pending.empty()) {
        p.pending.append(data, size);
        data = p.pending.data();
        size = p.pending.size();
    }
    std::size_t used = 0;
    while (true) {
        auto& body = parser->get().body();
        body.data = p.body;
        body.size = sizeof p.body;
        boost::beast::error_code ec;
        const std::size_t took =
            parser->put(boost::asio::const_buffer(data + used, size - used), ec);
        used += took;
        const std::size_t produced = sizeof p.body - body.size;
        if (parser->is_header_done() && p.stream.status() == 0)
            p.stream.setStatus(parser->get().result_int());
        if (produced > 0 && !p.stream.body(p.body, produced, atNs)) {
            failure_ = "malformed SSE";  // the stream holds the event's text
            return Progress::Failed;
        }
        if (parser->is_done()) {
            // An interim response (100 Continue, 103 Early Hints) comes before
            // the real one on the same connection: read on with a new parser.
            const unsigned status = parser->get().result_int();
            if (status >= 100 && status < 200 && status != 101) {
                p.parser.reset();
                p.stream.setStatus(0);
                parser = &p.parse();
                if (used < size) continue;
                break;
            }
            p.leftover = used < size;
            return Progress::Done;
        }
        if (ec == http::error::need_buffer) continue;
        if (ec == http::error::need_more) break;
        if (ec) {
            failure_ = "malformed HTTP response: " + ec.message();
            return Progress::Failed;
        }
        if (used == size || (took == 0 && produced == 0)) break;
    }
    if (used == size)
        p.pending.clear();
    else if (data == p.pending.data())
        p.pending.erase(0, used);
    else
        p.pending.assign(data + used, size - used);
    return Progress::More;
}

ServeResponseReader::Progress ServeResponseReader::closed() {
    Parts& p = *parts_;
    if (p.parser && p.parser->is_header_done()) {
        boost::beast::error_code ec;
        p.parser->put_eof(ec);  // ends a body that runs to the close
        if (!ec && p.parser->is_done()) return Progress::Done;
    }
    failure_ = gotBytes_ ? "the server closed the connection before the response ended"
                         : "the server closed the connection without a response";
    return Progress::Failed;
}

}  // namespace ws
