// Rewrites a store's event chunks in one blob format and gives the pages that
// deleted runs and rewritten chunks freed back to the file system (VACUUM).
// Stores written before the dictionary format shrink by about half.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "store/store.h"
#include "wire/event_codec.h"

namespace ws {

struct CompactResult {
    std::int64_t chunksRewritten = 0;  // committed; on cancel, those before the last batch
    std::int64_t bytesBefore = 0;      // the store file, with its write-ahead log folded in
    std::int64_t bytesAfter = 0;
    bool cancelled = false;
    // Set when the file was not vacuumed because a recording started or was
    // about to (compact yields to recordings); the rewritten chunks are kept.
    std::string vacuumSkipped;
};

// Called after each rewritten chunk with (done, total); returning false cancels:
// the batch in progress rolls back, earlier batches stay rewritten, every chunk
// reads the same either way, and the file is not vacuumed.
using CompactProgress = std::function<bool(std::int64_t done, std::int64_t total)>;

// Refused (StoreError) on a read-only store and while a run is being recorded.
// A recording that starts meanwhile is given the store: the rewriting yields
// between batches, and VACUUM is skipped or interrupted (the file unchanged).
CompactResult compactStore(Store& store, codec::Format format = codec::kWriteFormat,
                           const CompactProgress& progress = {});

}  // namespace ws
