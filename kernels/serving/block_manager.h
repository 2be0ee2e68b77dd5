// The paged KV cache's bookkeeping: a pool of fixed-size blocks (16 token
// slots each by default) and, per sequence, a block table listing the blocks
// that hold its positions in order (position p lives in block table[p / size],
// slot p % size). Blocks are handed out and taken back whole; nothing here
// touches the cache's memory, which the backend owns.
#pragma once

#include <cstdint>
#include <vector>

namespace ws::serving {

using BlockId = std::int32_t;
using BlockTable = std::vector<BlockId>;

class BlockManager {
  public:
    BlockManager(int numBlocks, int blockSize);

    int numBlocks() const { return numBlocks_; }
    int blockSize() const { return blockSize_; }
    int numFree() const { return static_cast<int>(free_.size()); }
    int numUsed() const { return numBlocks_ - numFree(); }
    // Blocks needed to hold `tokens` positions.
    int blocksFor(int tokens) const { return (tokens + blockSize_ - 1) / blockSize_; }

    // Grows `table` until it holds `tokens` positions. When the pool has too
    // few free blocks, returns false and leaves `table` as it was.
    bool grow(BlockTable& table, int tokens);
    // Returns every block of `table` to the pool and clears it. A block that is
    // not handed out (a double free, or a foreign id) throws std::logic_error
    // before anything is returned.
    void release(BlockTable& table);
    bool inUse(BlockId block) const;

  private:
    int numBlocks_;
    int blockSize_;
    std::vector<BlockId> free_;        // a stack: the last freed is reused first
    std::vector<std::uint8_t> inUse_;  // per block: handed out
};

}  // namespace ws::serving
