// Bodiless HTTP requests to a server under benchmark (its /health, its
// profiler switch), through libcurl. Private to record/.
#pragma once

#include <atomic>
#include <string>

namespace ws {

// The HTTP status of METHOD url (GET, or POST with an empty body), or 0 with
// the reason in `error`; any status but 200 also sets `error`. A set `stop`
// (SIGINT) abandons the request within about a second (libcurl asks that
// often while nothing moves). It waits `timeoutMs` at most. With `body`, the
// answer's body is kept there (at most 1 MiB; past that the request fails).
long serverRequest(const char* method, const std::string& url, std::string& error, long timeoutMs,
                   const std::atomic<bool>* stop = nullptr, std::string* body = nullptr);

}  // namespace ws
