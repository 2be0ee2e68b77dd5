#include "io/trace_reader.h"

#include <sys/stat.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "io/import_run.h"

namespace ws {

struct TraceReader::Inflate {
    z_stream z{};
    bool ready = false;
    ~Inflate() {
        if (ready) inflateEnd(&z);
    }
};

bool isGzip(const std::string& head) {
    return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
           static_cast<unsigned char>(head[1]) == 0x8b;
}

TraceReader::TraceReader(const std::string& path, ReadProgress progress)
    : path_(path), progress_(std::move(progress)), input_(1 << 20) {
    file_ = std::fopen(path.c_str(), "rb");
    if (!file_) importError(path, "(file)", std::string("cannot be read: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fileno(file_), &st) == 0) fileBytes_ = static_cast<std::int64_t>(st.st_size);
    unsigned char magic[2] = {0, 0};
    std::size_t n = std::fread(magic, 1, 2, file_);
    gzipped_ = n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    std::rewind(file_);
    if (gzipped_) {
        inflate_ = std::make_unique<Inflate>();
        // 15 + 16: a gzip wrapper (not zlib's), the largest window.
        if (inflateInit2(&inflate_->z, 15 + 16) != Z_OK)
            importError(path, "(file)", "cannot start inflating the gzip stream");
        inflate_->ready = true;
    }
}

TraceReader::~TraceReader() {
    if (file_) std::fclose(file_);
}

std::size_t TraceReader::readRaw(unsigned char* out, std::size_t size) {
    std::size_t n = std::fread(out, 1, size, file_);
    if (n == 0 && std::ferror(file_))
        importError(path_, "(file)", std::string("cannot be read: ") + std::strerror(errno));
    fileBytesRead_ += static_cast<std::int64_t>(n);
    if (progress_ && n > 0) progress_(fileBytesRead_, fileBytes_);
    return n;
}

std::size_t TraceReader::read(char* out, std::size_t size) {
    if (!gzipped_) return readRaw(reinterpret_cast<unsigned char*>(out), size);
    z_stream& z = inflate_->z;
    z.next_out = reinterpret_cast<Bytef*>(out);
    z.avail_out = static_cast<uInt>(size);
    while (z.avail_out == size && !streamEnded_) {
        if (z.avail_in == 0) {
            std::size_t n = readRaw(input_.data(), input_.size());
            if (n == 0) importError(path_, "(file)", "the gzip stream is truncated");
            z.next_in = input_.data();
            z.avail_in = static_cast<uInt>(n);
        }
        int rc = ::inflate(&z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            // gzip files may hold several members one after the other.
            if (z.avail_in == 0) {
                unsigned char next = 0;
                std::size_t n = readRaw(&next, 1);
                if (n == 0) {
                    streamEnded_ = true;
                    break;
                }
                input_[0] = next;
                z.next_in = input_.data();
                z.avail_in = 1;
            }
            inflateReset(&z);
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            importError(path_, "(file)",
                        std::string("not a valid gzip stream: ") + (z.msg ? z.msg : "damaged"));
        }
    }
    return size - z.avail_out;
}

bool BufferedInput::refill() {
    pos_ = 0;
    size_ = reader_.read(buffer_.data(), buffer_.size());
    return size_ > 0;
}

}  // namespace ws
