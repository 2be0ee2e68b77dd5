// The launch calls one slice of a sliced summary holds for its kernels'
// NVTX ranges, where no correlation id belongs to two calls (what
// the sliced summary checks): a kernel is then credited to its call's range
// exactly when that call started at most the horizon before the kernel and
// was read by then, as KernelAttribution's streamed lookup credits it. Held
// as KernelAttribution holds them: a plain launch whose kernel was credited
// leaves the table for a list in start order and a set of ids, until the
// horizon forgets it (memory of the launches of a horizon, ~16 bytes each).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

namespace ws::summary {

// Correlation ids as bits, in pages of 2^16 ids made when first used.
class IdBits {
  public:
    void insert(std::uint32_t id);
    void erase(std::uint32_t id);
    bool contains(std::uint32_t id) const;
    void clear();

  private:
    std::vector<std::unique_ptr<std::uint64_t[]>> pages_;  // by id >> 16
};

class SliceLaunches {
  public:
    static constexpr std::uint32_t kNone = 0xffffffffu;

    // A call in start order with the innermost range open where it started.
    void add(std::uint32_t correlationId, std::int64_t startNs, std::uint32_t range, bool graph);
    void forgetBefore(std::int64_t ns);
    // The range of the kernel's launch (kNone if not held); a plain kernel
    // of a plain launch moves it to the credited list.
    std::uint32_t credit(std::uint32_t correlationId, bool plainKernel);

  private:
    struct Launch {
        std::uint32_t range = 0;
        bool graph = false;
        std::uint64_t seq = 0;  // its place in byStart_ (+ forgotten_)
    };
    struct Slot {
        std::uint32_t correlationId = 0;  // 0: empty (id 0 is never kept)
        Launch launch;
    };
    struct Held {
        std::int64_t startNs = 0;
        std::uint32_t correlationId = 0;
        std::uint32_t range : 31 = 0;
        std::uint32_t credited : 1 = 0;
    };
    std::size_t home(std::uint32_t correlationId) const;
    Slot* find(std::uint32_t correlationId);
    const Slot* find(std::uint32_t correlationId) const;
    bool tryEmplace(std::uint32_t correlationId, Launch launch);
    void erase(std::uint32_t correlationId);
    void grow();
    // A second kernel of a credited launch: every credited launch goes back
    // into the table and none leaves it again.
    void keepCredited();

    std::vector<Slot> slots_;  // open addressing, linear probing
    std::size_t size_ = 0;
    std::deque<Held> byStart_;
    std::uint64_t forgotten_ = 0;
    IdBits credited_;
    std::size_t creditedHeld_ = 0;
    bool crediting_ = true;
};

}  // namespace ws::summary
