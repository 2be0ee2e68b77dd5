// Reads a trace file front to back in blocks, inflating it on the fly when it
// is gzip-compressed (`.json.gz`, as PyTorch's tensorboard_trace_handler
// writes it): the importers never hold the whole file, compressed or not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace ws {

// Bytes of the file read so far and the file's size, both counted on disk
// (compressed bytes for a .gz), for progress.
using ReadProgress = std::function<void(std::int64_t bytesRead, std::int64_t fileBytes)>;

// True when `head` starts with gzip's magic bytes.
bool isGzip(const std::string& head);

class TraceReader {
  public:
    // Throws std::runtime_error "<path>: (file): …; nothing was imported" when
    // the file cannot be opened.
    explicit TraceReader(const std::string& path, ReadProgress progress = {});
    ~TraceReader();
    TraceReader(const TraceReader&) = delete;
    TraceReader& operator=(const TraceReader&) = delete;

    // Up to `size` bytes of the (inflated) content; 0 at its end. A damaged or
    // truncated gzip stream throws, naming the file.
    std::size_t read(char* out, std::size_t size);

    bool gzipped() const { return gzipped_; }
    std::int64_t fileBytes() const { return fileBytes_; }
    std::int64_t fileBytesRead() const { return fileBytesRead_; }

  private:
    std::size_t readRaw(unsigned char* out, std::size_t size);

    std::string path_;
    ReadProgress progress_;
    std::FILE* file_ = nullptr;
    bool gzipped_ = false;
    bool streamEnded_ = false;  // the last gzip member ended and no input follows
    std::int64_t fileBytes_ = 0;
    std::int64_t fileBytesRead_ = 0;
    struct Inflate;
    std::unique_ptr<Inflate> inflate_;
    std::vector<unsigned char> input_;
};

// The input iterator nlohmann's parsers take, over bytes a source refills in
// place: `Source` has peek() (the current byte), next() and more() (true while
// a byte is left, refilling when it must).
template <typename Source>
class PullIterator {
  public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;

    explicit PullIterator(Source* source) : source_(source) {}
    const char& operator*() const { return source_->peek(); }
    PullIterator& operator++() {
        source_->next();
        return *this;
    }
    // Only ever compared with end(): true while a byte is left.
    bool operator!=(const PullIterator&) const { return source_->more(); }
    bool operator==(const PullIterator& other) const { return !(*this != other); }

  private:
    Source* source_;
};

// The content of a TraceReader for nlohmann's parsers: one buffer refilled in
// place, so memory stays at one block.
class BufferedInput {
  public:
    explicit BufferedInput(TraceReader& reader, std::size_t blockBytes = 1 << 20)
        : reader_(reader), buffer_(blockBytes) {}

    PullIterator<BufferedInput> begin() { return PullIterator<BufferedInput>(this); }
    PullIterator<BufferedInput> end() { return PullIterator<BufferedInput>(this); }

    const char& peek() const { return buffer_[pos_]; }
    void next() { ++pos_; }
    bool more() { return pos_ < size_ || refill(); }

  private:
    bool refill();

    TraceReader& reader_;
    std::vector<char> buffer_;
    std::size_t pos_ = 0, size_ = 0;
};

}  // namespace ws
