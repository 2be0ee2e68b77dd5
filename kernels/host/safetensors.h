// Reader of Hugging Face .safetensors files: an 8-byte little-endian header
// length, a JSON header (name → dtype, shape, data_offsets relative to the
// data section), then the raw tensor bytes. Every error names the file, the
// tensor and the reason; nothing is read before the whole header checks out.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ws {

class SafetensorsError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct SafetensorsTensor {
    std::string name;
    std::string dtype;  // "BF16", "F32", "I8", …
    std::vector<std::int64_t> shape;
    std::uint64_t offset = 0;  // absolute position in the file
    std::uint64_t bytes = 0;
};

class SafetensorsFile {
  public:
    explicit SafetensorsFile(std::string path);  // throws SafetensorsError

    const std::string& path() const { return path_; }
    const std::vector<SafetensorsTensor>& tensors() const { return tensors_; }
    const SafetensorsTensor* find(const std::string& name) const;
    // The tensor, checked for dtype and shape; throws naming what differs.
    const SafetensorsTensor& require(const std::string& name, const std::string& dtype,
                                     const std::vector<std::int64_t>& shape) const;
    // Reads a tensor's bytes into dst (t.bytes long).
    void read(const SafetensorsTensor& t, void* dst) const;

  private:
    std::string path_;
    std::uint64_t fileSize_ = 0;
    std::vector<SafetensorsTensor> tensors_;
};

// Bytes per element of a safetensors dtype; 0 when unknown.
int safetensorsDtypeSize(const std::string& dtype);

}  // namespace ws
