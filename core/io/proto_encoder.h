// The protocol buffers wire format, written only: varints, fixed 64-bit
// values and length-delimited fields, as Perfetto's trace format needs them
// (io/perfetto_trace.h). A message is built into a byte string and nested
// into its parent as a length-delimited field. Decoding is left to protobuf
// itself, which the tests read every exported trace with.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace ws::proto {

class Message {
  public:
    void varint(int field, std::uint64_t value) {
        key(field, 0);
        raw(value);
    }
    // int32 and int64 fields: negative values as their 64-bit two's complement.
    void signedVarint(int field, std::int64_t value) {
        varint(field, static_cast<std::uint64_t>(value));
    }
    void fixed64(int field, std::uint64_t value) {
        key(field, 1);
        char bytes[8];
        for (int i = 0; i < 8; ++i)
            bytes[i] = static_cast<char>((value >> (8 * i)) & 0xff);  // little-endian
        out_.append(bytes, 8);
    }
    void doubleValue(int field, double value) {
        std::uint64_t bits;
        std::memcpy(&bits, &value, sizeof bits);
        fixed64(field, bits);
    }
    void bytes(int field, std::string_view value) {
        key(field, 2);
        raw(value.size());
        out_.append(value);
    }
    void message(int field, const Message& nested) { bytes(field, nested.out_); }
    const std::string& data() const { return out_; }
    void clear() { out_.clear(); }

  private:
    void key(int field, int wireType) {
        raw(static_cast<std::uint64_t>(field) << 3 | static_cast<std::uint64_t>(wireType));
    }
    void raw(std::uint64_t v) {
        while (v >= 0x80) {
            out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
            v >>= 7;
        }
        out_.push_back(static_cast<char>(v));
    }
    std::string out_;
};

}  // namespace ws::proto
