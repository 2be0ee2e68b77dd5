// A set of 32-bit ids that several threads insert into at once, as bits in
// pages of 2^16 ids made when first used: the correlation ids of a run's
// launch calls take a few pages per million.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

namespace ws::summary {

class ConcurrentIdBits {
  public:
    ConcurrentIdBits() : pages_(std::size_t(1) << 16) {}
    ~ConcurrentIdBits() {
        for (auto& page : pages_)
            delete[] page.load();
    }
    ConcurrentIdBits(const ConcurrentIdBits&) = delete;
    ConcurrentIdBits& operator=(const ConcurrentIdBits&) = delete;

    // False when `id` was there already.
    bool insert(std::uint32_t id) {
        auto& slot = pages_[id >> 16];
        Word* page = slot.load(std::memory_order_acquire);
        if (!page) {
            Word* made = new Word[1024]();
            if (slot.compare_exchange_strong(page, made, std::memory_order_acq_rel))
                page = made;
            else
                delete[] made;  // another thread made it first: `page` is theirs
        }
        const std::uint64_t bit = std::uint64_t(1) << (id & 63);
        return (page[(id >> 6) & 1023].fetch_or(bit, std::memory_order_relaxed) & bit) == 0;
    }
    // After the inserting threads were joined.
    bool contains(std::uint32_t id) const {
        const Word* page = pages_[id >> 16].load(std::memory_order_acquire);
        return page && (page[(id >> 6) & 1023].load(std::memory_order_relaxed) >> (id & 63) & 1);
    }

  private:
    using Word = std::atomic<std::uint64_t>;
    std::vector<std::atomic<Word*>> pages_;
};

}  // namespace ws::summary
