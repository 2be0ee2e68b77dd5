#include "serving/block_manager.h"

#include <stdexcept>
#include <string>

namespace ws::serving {

BlockManager::BlockManager(int numBlocks, int blockSize)
    : numBlocks_(numBlocks), blockSize_(blockSize) {
    if (numBlocks < 1) throw std::invalid_argument("a KV pool needs at least one block");
    if (blockSize < 1) throw std::invalid_argument("a KV block holds at least one token");
    free_.reserve(static_cast<std::size_t>(numBlocks));
    for (BlockId b = numBlocks - 1; b >= 0; --b)
        free_.push_back(b);  // block 0 is handed out first
    inUse_.assign(static_cast<std::size_t>(numBlocks), 0);
}

bool BlockManager::grow(BlockTable& table, int tokens) {
    int needed = blocksFor(tokens) - static_cast<int>(table.size());
    if (needed <= 0) return true;
    if (needed > numFree()) return false;
    for (int i = 0; i < needed; ++i) {
        BlockId b = free_.back();
        free_.pop_back();
        inUse_[static_cast<std::size_t>(b)] = 1;
        table.push_back(b);
    }
    return true;
}

void BlockManager::release(BlockTable& table) {
    // Checked before anything is returned: each block handed out, and listed
    // once (marked 2 while this table is being checked).
    constexpr std::uint8_t kChecking = 2;
    for (std::size_t i = 0; i < table.size(); ++i) {
        BlockId b = table[i];
        if (inUse(b) && inUse_[static_cast<std::size_t>(b)] != kChecking) {
            inUse_[static_cast<std::size_t>(b)] = kChecking;
            continue;
        }
        bool twice = inUse(b);  // in use, so already seen in this table
        for (std::size_t j = 0; j < i; ++j)
            inUse_[static_cast<std::size_t>(table[j])] = 1;
        throw std::logic_error("KV block " + std::to_string(b) +
                               (twice ? " appears twice in one block table"
                                      : " released but not in use (double free or foreign id)"));
    }
    for (BlockId b : table) {
        inUse_[static_cast<std::size_t>(b)] = 0;
        free_.push_back(b);
    }
    table.clear();
}

bool BlockManager::inUse(BlockId block) const {
    return block >= 0 && block < numBlocks_ && inUse_[static_cast<std::size_t>(block)] != 0;
}

}  // namespace ws::serving
