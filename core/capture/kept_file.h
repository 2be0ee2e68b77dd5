// The files the samplers keep for tests (WARPSCOPE_PC_SAMPLING_KEEP,
// WARPSCOPE_GPU_METRICS_KEEP): values in the machine's byte order, byte runs
// after their 64-bit length; read back with every length checked against
// what the file holds, so a damaged file is refused, never overrun.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

namespace ws::capture::kept {

template <typename T>
void put(std::FILE* f, T v) {
    std::fwrite(&v, sizeof v, 1, f);
}

inline void putBytes(std::FILE* f, const void* data, std::uint64_t n) {
    put<std::uint64_t>(f, n);
    std::fwrite(data, 1, n, f);
}

class Reader {
  public:
    // The whole file, or nullopt when it cannot be read.
    static std::optional<Reader> open(const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        if (!in) return std::nullopt;
        return Reader(std::string(std::istreambuf_iterator<char>(in), {}));
    }
    template <typename T>
    bool get(T& v) {
        if (left() < sizeof v) return false;
        std::memcpy(&v, bytes_.data() + at_, sizeof v);
        at_ += sizeof v;
        return true;
    }
    // A run written by putBytes, of at most `most` bytes.
    template <typename Out>
    bool bytes(Out& out, std::uint64_t most) {
        std::uint64_t n = 0;
        if (!get(n) || n > most || left() < n) return false;
        out.assign(bytes_.data() + at_, bytes_.data() + at_ + n);
        at_ += n;
        return true;
    }
    bool literal(std::string_view want) {
        if (bytes_.compare(at_, want.size(), want) != 0) return false;
        at_ += want.size();
        return true;
    }
    bool done() const { return at_ == bytes_.size(); }
    std::size_t at() const { return at_; }
    std::size_t left() const { return bytes_.size() - at_; }

  private:
    explicit Reader(std::string bytes) : bytes_(std::move(bytes)) {}
    std::string bytes_;
    std::size_t at_ = 0;
};

}  // namespace ws::capture::kept
