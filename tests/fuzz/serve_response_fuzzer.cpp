// libFuzzer harness: bytes a server sends back to bench serve's socket client,
// fed to ServeResponseReader whole and again in pieces (the first byte picks
// the piece size), then the close. The reader
// documents no exception: every malformed response is a failure() value, so
// anything thrown is a finding; so is a response read differently depending
// on where the bytes were split (a dropped or repeated body byte), or a
// failure without its reason.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "record/serve_response_reader.h"

namespace {

using Progress = ws::ServeResponseReader::Progress;

struct Outcome {
    Progress progress = Progress::More;
    ws::ServeRequestResult result;
    std::string failure;
};

Outcome read(std::string_view text, std::size_t piece) {
    ws::ServeResponseReader reader;
    Outcome out;
    for (std::size_t i = 0; i < text.size() && out.progress == Progress::More; i += piece)
        out.progress = reader.feed(text.data() + i, std::min(piece, text.size() - i),
                                   static_cast<std::int64_t>(i));
    if (out.progress == Progress::More) out.progress = reader.closed();
    if (out.progress == Progress::Failed && reader.failure().empty()) std::abort();
    reader.keepAlive();
    out.failure = reader.failure();
    reader.finish("", 4);
    out.result = std::move(reader.result());
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::size_t piece = 1 + data[0];  // 1..256 bytes a read
    auto text = ws::fuzz::bytes(data + 1, size - 1);
    try {
        const Outcome whole = read(text, std::max<std::size_t>(text.size(), 1));
        const Outcome pieces = read(text, piece);
        const auto& a = whole.result;
        const auto& b = pieces.result;
        // Either both read a whole response, alike to the last byte, or both
        // fail: where in garbage Beast notices it may depend on the split
        // (it resumes its search for the header's end where it stopped).
        if (whole.progress != pieces.progress) std::abort();
        if (whole.progress == Progress::Done &&
            (a.httpStatus != b.httpStatus || a.error != b.error ||
             a.chunkNs.size() != b.chunkNs.size() || a.promptTokens != b.promptTokens ||
             a.outputTokens != b.outputTokens || a.usageReported != b.usageReported))
            std::abort();
        if (!std::is_sorted(b.chunkNs.begin(), b.chunkNs.end())) std::abort();
    } catch (const std::exception& e) {
        ws::fuzz::undocumentedException("ServeResponseReader", e);
    } catch (...) {
        ws::fuzz::undocumentedException("ServeResponseReader");
    }
    return 0;
}
