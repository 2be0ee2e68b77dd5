// A run's event chunks described by their own columns (first start, last
// end, record count, busy time), read without decoding a record: the
// coarsest level of detail of a lane, what a timeline of a hundred million
// events draws before (or instead of) reading the events themselves.
#pragma once

#include <cstdint>
#include <vector>

#include "model/records.h"
#include "wire/event_codec.h"

namespace ws {

class Store;

struct ChunkSpan {
    std::int64_t firstStartNs = 0;
    std::int64_t maxEndNs = 0;
    std::int64_t count = 0;   // records in the chunk
    std::int64_t busyNs = 0;  // sum of their durations
};

struct LaneChunks {
    codec::ChunkKind kind = codec::ChunkKind::Kernel;
    std::uint32_t groupId = 0;      // device (GPU records) or process (API calls, ranges)
    std::uint32_t laneId = 0;       // stream or thread
    std::vector<ChunkSpan> chunks;  // by first start
};

// Every lane of `kind` in the run, ordered by group then lane. One indexed
// query; on a run of 100 M kernels about 25 k chunks per kind.
std::vector<LaneChunks> chunkDirectory(Store& store, RunId id, codec::ChunkKind kind);

}  // namespace ws
