#include "io/gzip_ostream.h"

#include <zlib.h>

#include <stdexcept>

namespace ws {

struct GzipOStream::Buffer::Stream {
    z_stream z{};
};

GzipOStream::Buffer::Buffer(std::ostream& sink, int level)
    : z_(std::make_unique<Stream>()), sink_(sink), in_(1 << 18), out_(1 << 18) {
    // 15 + 16: a gzip wrapper (not zlib's), the largest window.
    if (deflateInit2(&z_->z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("cannot start gzip compression");
    setp(in_.data(), in_.data() + in_.size());
}

GzipOStream::Buffer::~Buffer() {
    deflateEnd(&z_->z);
}

bool GzipOStream::Buffer::deflateInput(int flush) {
    z_stream& z = z_->z;
    z.next_in = reinterpret_cast<Bytef*>(pbase());
    z.avail_in = static_cast<uInt>(pptr() - pbase());
    int rc = Z_OK;
    do {
        z.next_out = reinterpret_cast<Bytef*>(out_.data());
        z.avail_out = static_cast<uInt>(out_.size());
        rc = ::deflate(&z, flush);
        if (rc == Z_STREAM_ERROR) return false;
        sink_.write(out_.data(), static_cast<std::streamsize>(out_.size() - z.avail_out));
        if (!sink_) return false;
    } while (z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    setp(in_.data(), in_.data() + in_.size());
    return true;
}

GzipOStream::Buffer::int_type GzipOStream::Buffer::overflow(int_type c) {
    if (finished_ || !deflateInput(Z_NO_FLUSH)) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
        *pptr() = traits_type::to_char_type(c);
        pbump(1);
    }
    return traits_type::not_eof(c);
}

// A flush of the stream passes what is buffered to zlib, which may keep it
// until it has a block (no Z_SYNC_FLUSH: that would cost compression).
int GzipOStream::Buffer::sync() {
    if (finished_) return 0;
    return deflateInput(Z_NO_FLUSH) && sink_.flush() ? 0 : -1;
}

bool GzipOStream::Buffer::finish() {
    if (finished_) return true;
    finished_ = true;
    return deflateInput(Z_FINISH) && sink_.flush();
}

GzipOStream::GzipOStream(std::ostream& sink, int level)
    : std::ostream(nullptr), buffer_(sink, level) {
    rdbuf(&buffer_);
}

GzipOStream::~GzipOStream() {
    finish();
}

bool GzipOStream::finish() {
    if (!buffer_.finish()) {
        setstate(std::ios::badbit);
        return false;
    }
    return true;
}

}  // namespace ws
