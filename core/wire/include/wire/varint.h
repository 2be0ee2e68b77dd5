// LEB128 varints with zigzag for signed values: the number format of event
// chunks and of the capture wire protocol.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ws::varint {

class Out {
  public:
    explicit Out(std::string& s) : s_(s) {}
    void u(std::uint64_t v) {
        while (v >= 0x80) {
            s_.push_back(static_cast<char>(v | 0x80));
            v >>= 7;
        }
        s_.push_back(static_cast<char>(v));
    }
    // Zigzag, so small negative values stay short.
    void s(std::int64_t v) {
        u((static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63));
    }
    void str(std::string_view v) {
        u(v.size());
        s_.append(v);
    }

  private:
    std::string& s_;
};

class In {
  public:
    explicit In(std::string_view s) : p_(s.data()), end_(s.data() + s.size()) {}
    std::uint64_t u() {
        std::uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (p_ == end_) throw std::runtime_error("truncated data");
            auto byte = static_cast<std::uint8_t>(*p_++);
            v |= std::uint64_t(byte & 0x7f) << shift;
            if (!(byte & 0x80)) return v;
        }
        throw std::runtime_error("malformed number");
    }
    std::int64_t s() {
        auto v = u();
        return static_cast<std::int64_t>((v >> 1) ^ (~(v & 1) + 1));
    }
    // Steps over a number (either kind) without decoding it; throws as u() would.
    void skip() {
        for (int i = 0; i < 10; ++i) {
            if (p_ == end_) throw std::runtime_error("truncated data");
            if (!(static_cast<std::uint8_t>(*p_++) & 0x80)) return;
        }
        throw std::runtime_error("malformed number");
    }
    std::uint32_t u32() { return static_cast<std::uint32_t>(u()); }
    std::int32_t i32() { return static_cast<std::int32_t>(s()); }
    std::string str() {
        auto n = u();
        if (n > static_cast<std::uint64_t>(end_ - p_)) throw std::runtime_error("truncated text");
        std::string v(p_, static_cast<std::size_t>(n));
        p_ += n;
        return v;
    }
    // The next n raw bytes; throws when fewer are left.
    std::string_view bytes(std::size_t n) {
        if (n > static_cast<std::size_t>(end_ - p_)) throw std::runtime_error("truncated data");
        std::string_view v(p_, n);
        p_ += n;
        return v;
    }
    std::string_view rest() const { return {p_, static_cast<std::size_t>(end_ - p_)}; }

  private:
    const char* p_;
    const char* end_;
};

}  // namespace ws::varint
