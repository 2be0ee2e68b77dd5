// libFuzzer harness: the capture stream a collector sends the recorder, fed to
// wire::Decoder in two pieces (the first byte picks where the stream is cut,
// as a socket read may cut it anywhere). Every sink is set and looks at what
// it is handed. Expected: std::runtime_error on a malformed stream.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "wire/frames.h"

namespace {

std::size_t seen = 0;

template <typename R>
void look(const R& r) {
    seen += static_cast<std::size_t>(r.startNs != r.endNs);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    auto stream = ws::fuzz::bytes(data + 1, size - 1);
    std::size_t cut = data[0] % (stream.size() + 1);
    ws::wire::Sink sink;
    sink.hello = [](const ws::wire::Hello& h) { seen += static_cast<std::size_t>(h.pid); };
    sink.device = [](const ws::DeviceInfo& d) { seen += d.name.size(); };
    sink.overhead = [](const ws::OverheadRecord& r) { seen += r.kind.size(); };
    sink.dropped = [](std::int64_t n) { seen += static_cast<std::size_t>(n); };
    sink.queryCalls = [](std::int64_t n) { seen += static_cast<std::size_t>(n); };
    sink.bye = [] { ++seen; };
    sink.metric = [](const ws::KernelMetricRecord& r) { seen += r.metric.size(); };
    sink.kernel = [](const ws::KernelRecord& r) {
        look(r);
        seen += r.name.size();
    };
    sink.memcpy = [](const ws::MemcpyRecord& r) { look(r); };
    sink.memset = [](const ws::MemsetRecord& r) { look(r); };
    sink.apiCall = [](const ws::ApiCallRecord& r) {
        look(r);
        seen += r.name.size();
    };
    sink.range = [](const ws::RangeRecord& r) {
        look(r);
        seen += r.name.size() + r.domain.size();
    };
    ws::wire::Decoder decoder(std::move(sink));
    ws::fuzz::expectOnlyRuntimeErrors("wire::Decoder::feed", [&] {
        decoder.feed(stream.substr(0, cut));
        decoder.feed(stream.substr(cut));
    });
    return 0;
}
