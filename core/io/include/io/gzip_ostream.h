// An output stream that gzip-compresses what is written to it into another
// stream, as it comes (zlib's deflate with a gzip wrapper, as PyTorch's
// .json.gz traces are): exports of any size never hold their text.
#pragma once

#include <memory>
#include <ostream>
#include <streambuf>
#include <vector>

namespace ws {

class GzipOStream : public std::ostream {
  public:
    explicit GzipOStream(std::ostream& sink, int level = 6);
    ~GzipOStream() override;
    // Writes the rest and the gzip trailer; false (and the stream's badbit)
    // when the sink failed. Called by the destructor when not called before.
    bool finish();

  private:
    class Buffer : public std::streambuf {
      public:
        Buffer(std::ostream& sink, int level);
        ~Buffer() override;
        bool finish();

      protected:
        int_type overflow(int_type c) override;
        int sync() override;

      private:
        bool deflateInput(int flush);
        struct Stream;
        std::unique_ptr<Stream> z_;
        std::ostream& sink_;
        std::vector<char> in_, out_;
        bool finished_ = false;
    };
    Buffer buffer_;
};

}  // namespace ws
