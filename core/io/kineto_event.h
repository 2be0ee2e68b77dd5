// One element of a Kineto trace's traceEvents, read by simdjson's On-Demand
// parser in a single pass over its fields (and its args' fields) into the
// values the importer uses, whatever order they are written in. Fields of
// the wrong type read as missing, as nlohmann's checks did before.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace ws {

struct KinetoEvent {
    bool object = false;  // false: the element is not a JSON object
    // Strings point into the reader's buffer: valid until the next read().
    std::string_view ph, cat, name;
    // A number's value, or nothing when missing or not a number; ts and dur
    // keep every digit of an epoch-based microsecond time (long double).
    std::optional<long double> ts, dur;
    std::uint32_t pid = 0, tid = 0;  // numbers, or the digits of "stream 7"
    struct Dims {
        bool present = false;  // an array of exactly three
        std::array<std::optional<std::int64_t>, 3> v;
    };
    // Args that are integers (or floats that fit one); nothing when missing,
    // not a number or too large.
    std::optional<std::int64_t> device, context, stream, correlation, registers, sharedMemory, cbid,
        bytes;
    bool bytesPresent = false;
    Dims grid, block;
};

class KinetoEventReader {
  public:
    KinetoEventReader();
    ~KinetoEventReader();
    KinetoEventReader(const KinetoEventReader&) = delete;
    KinetoEventReader& operator=(const KinetoEventReader&) = delete;

    // Reads the `size` bytes at `data` (with simdjson's padding readable after
    // them) into `out`. Returns an empty string, or why the bytes are not
    // valid JSON.
    std::string read(const char* data, std::size_t size, KinetoEvent& out);

  private:
    struct Parser;
    std::unique_ptr<Parser> parser_;
};

}  // namespace ws
