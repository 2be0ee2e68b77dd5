// Sorts more records than should be held in memory: past `memoryRecords`,
// each full batch is sorted and written to an unnamed temporary file, and the
// batches are merged back as they are read (an external merge sort). Memory
// stays at about `memoryRecords` records plus one read block per batch.
// For trivially copyable records only (they go to the file as bytes).
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <queue>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace ws {

template <typename T, typename Less>
class SpillingSorter {
    static_assert(std::is_trivially_copyable_v<T>, "records are spilled as bytes");

  public:
    explicit SpillingSorter(std::size_t memoryRecords, Less less = {})
        : limit_(std::max<std::size_t>(memoryRecords, 1)), less_(less) {}
    ~SpillingSorter() {
        if (file_) std::fclose(file_);
    }
    SpillingSorter(const SpillingSorter&) = delete;
    SpillingSorter& operator=(const SpillingSorter&) = delete;

    void push(const T& record) {
        memory_.push_back(record);
        ++size_;
        if (memory_.size() >= limit_) spill();
    }
    std::size_t size() const { return size_; }
    // Batches written to the temporary file so far.
    std::size_t spilledBatches() const { return batches_.size(); }

    // Every record in order (equal records in no fixed order); empties the sorter.
    void drain(const std::function<void(const T&)>& visit) {
        std::sort(memory_.begin(), memory_.end(), less_);
        if (batches_.empty()) {
            for (const auto& r : memory_)
                visit(r);
        } else {
            merge(visit);
        }
        std::vector<T>().swap(memory_);
        batches_.clear();
        size_ = 0;
    }

  private:
    struct Batch {
        long offset;
        std::size_t count;
    };
    // A batch read back a block at a time; the in-memory batch is one too.
    struct Cursor {
        std::vector<T> block;
        std::size_t at = 0;
        long offset = 0;
        std::size_t left = 0;  // records still in the file
    };
    static constexpr std::size_t kBlock = 4096;

    [[noreturn]] static void fail(const char* what) {
        throw std::runtime_error(std::string("temporary sort file: ") + what + ": " +
                                 std::strerror(errno));
    }

    void spill() {
        if (!file_ && !(file_ = std::tmpfile())) fail("cannot be created");
        std::sort(memory_.begin(), memory_.end(), less_);
        if (std::fseek(file_, 0, SEEK_END) != 0) fail("seek failed");
        long offset = std::ftell(file_);
        if (std::fwrite(memory_.data(), sizeof(T), memory_.size(), file_) != memory_.size())
            fail("write failed (disk full?)");
        batches_.push_back({offset, memory_.size()});
        memory_.clear();
    }

    bool refill(Cursor& c) {
        c.block.resize(std::min(kBlock, c.left));
        c.at = 0;
        if (c.block.empty()) return false;
        if (std::fseek(file_, c.offset, SEEK_SET) != 0) fail("seek failed");
        if (std::fread(c.block.data(), sizeof(T), c.block.size(), file_) != c.block.size())
            fail("read failed");
        c.offset += static_cast<long>(c.block.size() * sizeof(T));
        c.left -= c.block.size();
        return true;
    }

    void merge(const std::function<void(const T&)>& visit) {
        std::vector<Cursor> cursors(batches_.size() + 1);
        for (std::size_t i = 0; i < batches_.size(); ++i) {
            cursors[i].offset = batches_[i].offset;
            cursors[i].left = batches_[i].count;
            refill(cursors[i]);
        }
        cursors.back().block.swap(memory_);
        // Smallest head first: the queue's order is the reverse of less_.
        auto later = [&](std::size_t a, std::size_t b) {
            return less_(cursors[b].block[cursors[b].at], cursors[a].block[cursors[a].at]);
        };
        std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> heads(later);
        for (std::size_t i = 0; i < cursors.size(); ++i)
            if (!cursors[i].block.empty()) heads.push(i);
        while (!heads.empty()) {
            std::size_t i = heads.top();
            heads.pop();
            Cursor& c = cursors[i];
            visit(c.block[c.at]);
            if (++c.at < c.block.size() || refill(c)) heads.push(i);
        }
    }

    std::size_t limit_;
    Less less_;
    std::vector<T> memory_;
    std::size_t size_ = 0;
    std::FILE* file_ = nullptr;
    std::vector<Batch> batches_;
};

}  // namespace ws
