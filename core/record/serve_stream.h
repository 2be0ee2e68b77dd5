// One streamed completion as the client sees it, whatever carries the bytes
// (libcurl or the kernel-stamped socket loop): the response body split into
// SSE lines, each `data:` event parsed, every chunk that carries choices
// timed, and at the end the request's outcome (error text or success).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "record/serve_load.h"

namespace ws {

class ServeStream {
  public:
    // The response's status, once its header is read; body bytes of a non-200
    // response are kept (the start of them) for the error text.
    void setStatus(long status) { status_ = status; }
    long status() const { return status_; }

    // Body bytes that arrived at `atNs` (store time base); false = malformed
    // SSE, stop the transfer.
    bool body(const char* data, std::size_t size, std::int64_t atNs);

    // The outcome: the first of a malformed or error event, the transport's
    // error (empty = none), a non-200 status, a missing [DONE], no chunk.
    void finish(const std::string& transportError, int datasetInput);

    ServeRequestResult result;

  private:
    bool event(std::string_view data, std::int64_t atNs);

    long status_ = 0;
    bool sawDone_ = false;
    std::size_t roleChunks_ = 0;  // chat role chunks without content, among the chunks
    std::string line_;            // a line not yet ended
    std::string errorBody_;
    std::string sseError_;
    std::optional<std::int64_t> emitNs_;  // the server's write time of what follows
};

}  // namespace ws
