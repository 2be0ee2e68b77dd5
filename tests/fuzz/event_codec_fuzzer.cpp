// libFuzzer harness: an event chunk blob as the store reads it from
// event_chunks. Input: [kind][format][count, u16 little-endian][blob]. A chunk
// that decodes is encoded again and decoded again: encoding what was decoded
// must reach a fixed point (the same bytes twice), or compact would change
// records. Expected: std::runtime_error on a damaged blob, an unknown format
// or a string id the lookup does not know.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "codec_strings.h"
#include "fuzz_support.h"
#include "wire/event_codec.h"

namespace {

using ws::codec::Format;

// The string table a chunk refers to (codec_strings.h); other ids are refused.
struct Strings {
    std::map<std::int64_t, std::string> byId;
    std::map<std::string, std::int64_t> byText;
    Strings() {
        for (const char* s : ws::fuzz::kCodecStrings)
            add(s);
    }
    std::int64_t add(const std::string& s) {
        auto [it, added] = byText.try_emplace(s, static_cast<std::int64_t>(byText.size()) + 1);
        if (added) byId[it->second] = s;
        return it->second;
    }
};

template <typename R>
void roundTrip(std::string_view blob, std::int64_t count, ws::codec::Lane lane, Format format) {
    Strings strings;
    ws::codec::Lookup lookup = [&](std::int64_t id) -> const std::string& {
        auto it = strings.byId.find(id);
        if (it == strings.byId.end()) throw std::runtime_error("unknown string id");
        return it->second;
    };
    ws::codec::Intern intern = [&](std::string_view s) { return strings.add(std::string(s)); };
    std::vector<R> first;
    ws::codec::decode(blob, count, lane, lookup, first, format);

    auto encode = [&](const std::vector<R>& records) {
        std::vector<const R*> pointers;
        for (const auto& r : records)
            pointers.push_back(&r);
        std::string out;
        ws::codec::encode(pointers, intern, out, format);
        return out;
    };
    auto encoded = encode(first);
    std::vector<R> second;
    ws::codec::decode(encoded, static_cast<std::int64_t>(first.size()), lane, lookup, second,
                      format);
    if (encode(second) != encoded) {
        std::fprintf(stderr,
                     "warpscope fuzz: event codec: decode(encode(records)) re-encodes "
                     "differently\n");
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 4) return 0;
    auto format = static_cast<Format>(data[1] % 4);  // 0 and 3 are unknown formats
    std::int64_t count = data[2] | (data[3] << 8);
    ws::codec::Lane lane{7, 13};
    auto blob = ws::fuzz::bytes(data + 4, size - 4);
    ws::fuzz::expectOnlyRuntimeErrors("codec::decode", [&] {
        switch (data[0] % 5) {
            case 0:
                return roundTrip<ws::KernelRecord>(blob, count, lane, format);
            case 1:
                return roundTrip<ws::MemcpyRecord>(blob, count, lane, format);
            case 2:
                return roundTrip<ws::MemsetRecord>(blob, count, lane, format);
            case 3:
                return roundTrip<ws::ApiCallRecord>(blob, count, lane, format);
            default:
                return roundTrip<ws::RangeRecord>(blob, count, lane, format);
        }
    });
    return 0;
}
