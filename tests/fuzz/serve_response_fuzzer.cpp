// libFuzzer harness: bytes a server sends back to bench serve's socket client,
// fed to ServeResponseReader in pieces (the first byte picks chat or
// completions and the piece size), then the close. The reader documents no
// exception: every malformed response is a failure() value, so anything
// thrown is a finding, and so is a chunk time out of order.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>

#include "fuzz_support.h"
#include "record/serve_response_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const bool chat = data[0] & 1;
    const std::size_t piece = 1 + (data[0] >> 1);  // 1..128 bytes a read
    auto text = ws::fuzz::bytes(data + 1, size - 1);
    try {
        ws::ServeResponseReader reader(chat);
        auto progress = ws::ServeResponseReader::Progress::More;
        std::int64_t at = 1000;
        for (std::size_t i = 0; i < text.size() && progress == decltype(progress)::More;
             i += piece, at += 10)
            progress = reader.feed(text.data() + i, std::min(piece, text.size() - i), at);
        if (progress == decltype(progress)::More) progress = reader.closed();
        if (progress == decltype(progress)::Failed && reader.failure().empty()) std::abort();
        reader.keepAlive();
        reader.finish("", 4);
        const auto& r = reader.result();
        if (!std::is_sorted(r.chunkNs.begin(), r.chunkNs.end())) std::abort();
        if (progress == decltype(progress)::Done && r.error.empty() && r.chunkNs.empty())
            std::abort();  // a success carries text
    } catch (const std::exception& e) {
        ws::fuzz::undocumentedException("ServeResponseReader", e);
    } catch (...) {
        ws::fuzz::undocumentedException("ServeResponseReader");
    }
    return 0;
}
