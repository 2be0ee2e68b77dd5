// A test client for the serving HTTP layer: plain requests through
// cpp-httplib's client, and streamed responses split into their server-sent
// events as they arrive, with a hook that can stop reading (a slow reader) or
// hang up (a client that goes away mid-stream).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace ws::testing {

struct HttpReply {
    int status = 0;  // 0: no response (connection failed)
    std::string body;
    std::string contentType;
    std::string contentEncoding;
    std::string error;  // httplib's error when status is 0
};

HttpReply httpGet(int port, const std::string& path);
HttpReply httpPost(int port, const std::string& path, const std::string& body);

struct SseReply {
    int status = 0;
    std::string contentType;
    std::string contentEncoding;
    std::vector<std::string> events;    // each event's text after "data: "
    std::vector<std::string> comments;  // comment lines before an event, after the ':'
    std::string malformed;              // the first block that is not "data: ...\n\n"
    std::string body;                   // everything received, for error replies
    bool completed = false;             // the response ended (not cancelled, no error)
    std::string error;                  // httplib's error otherwise
};

// Posts `body` and reads the reply as server-sent events. `onEvent` is called
// for each event as it arrives (after it was appended to `events`); returning
// false hangs up.
SseReply ssePost(int port, const std::string& path, const std::string& body,
                 const std::function<bool(const std::string& data)>& onEvent = {},
                 const std::vector<std::pair<std::string, std::string>>& headers = {});

// Sends raw bytes on a fresh connection and returns the response that comes
// back: its head and as many body bytes as its Content-Length says (for
// requests httplib's client would not send).
std::string rawExchange(int port, const std::string& bytes);

}  // namespace ws::testing
