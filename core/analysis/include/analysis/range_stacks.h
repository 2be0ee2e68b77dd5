// The NVTX ranges of a run arranged per thread, each with the range around
// it, so the ranges open on a thread at any moment are found by one search.
// That is how a kernel is attributed to ranges: those open on the thread that
// launched it, when it launched it, or, for a kernel replayed from a CUDA
// graph, those open on the thread that captured its node, when it did.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/records.h"

namespace ws {

class RangeStacks {
  public:
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

    // Keeps a reference to `ranges`; marks are left out.
    explicit RangeStacks(const std::vector<RangeRecord>& ranges);

    // Index of the innermost range open on `thread` at `timeNs`; kNone when none.
    std::size_t innermost(std::uint32_t thread, std::int64_t timeNs) const;
    // The range around range `i`; kNone for an outermost one.
    std::size_t parent(std::size_t i) const { return parent_[i]; }
    // "outer/…/inner": the names of the ranges open there; empty when none.
    std::string path(std::uint32_t thread, std::int64_t timeNs) const;

  private:
    const std::vector<RangeRecord>& ranges_;
    std::map<std::uint32_t, std::vector<std::size_t>> byThread_;  // sorted by start
    std::vector<std::size_t> parent_;
};

}  // namespace ws
