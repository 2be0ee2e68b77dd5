// One streamed response read from raw bytes as they arrive: the HTTP
// response (status, headers, chunked / Content-Length / to-the-close body)
// parsed by Boost.Beast, its body as SSE events into a ServeRequestResult.
// Bytes may be split anywhere; nothing a peer sends can crash it or make it
// loop: every call consumes what it is given or ends the response.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "record/serve_load.h"

namespace ws {

class ServeResponseReader {
  public:
    ServeResponseReader();
    ~ServeResponseReader();
    ServeResponseReader(const ServeResponseReader&) = delete;
    ServeResponseReader& operator=(const ServeResponseReader&) = delete;

    enum class Progress { More, Done, Failed };
    // Bytes that arrived at `atNs` (store time base). Done: the whole
    // response is read; Failed: failure() says why (the HTTP or SSE error).
    Progress feed(const char* data, std::size_t size, std::int64_t atNs);
    // The peer closed the connection: Done when the body ran to the close.
    Progress closed();
    const std::string& failure() const { return failure_; }
    bool gotBytes() const { return gotBytes_; }
    // Both sides keep the connection for another request (after Done).
    bool keepAlive() const;
    // Forgets the response so far: the request is sent again elsewhere.
    void restart();

    // The request's measurements; finish() writes its outcome into them.
    ServeRequestResult& result();
    void finish(const std::string& transportError, int datasetInput);

  private:
    struct Parts;
    std::unique_ptr<Parts> parts_;
    std::string failure_;
    bool gotBytes_ = false;
};

}  // namespace ws
