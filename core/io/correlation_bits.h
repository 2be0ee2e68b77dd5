// A set of CUPTI correlation ids, one bit each: CUPTI numbers its
// correlations from 1 up, so a run of 100 M launches needs 12.5 MB here where
// a hash set of them took gigabytes (the trace exports' flows).
#pragma once

#include <cstdint>
#include <vector>

namespace ws {

class CorrelationBits {
  public:
    void set(std::uint32_t id) {
        if (id / 64 >= words_.size()) words_.resize(id / 64 + 1);
        words_[id / 64] |= std::uint64_t{1} << (id % 64);
    }
    bool test(std::uint32_t id) const {
        return id / 64 < words_.size() && (words_[id / 64] >> (id % 64) & 1);
    }

  private:
    std::vector<std::uint64_t> words_;
};

}  // namespace ws
