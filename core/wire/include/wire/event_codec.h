// Packs high-volume records (kernels, memcpys, memsets, API calls, NVTX ranges)
// into chunks: the records of one lane (device stream or host thread), sorted
// by start, delta- and varint-encoded into one blob. One SQLite row per chunk
// instead of one per record is what lets the store ingest over a million
// records a second (one row per record with all launch fields measured
// ~0.3-0.5 M rows/s on a 2-core machine).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "model/records.h"

namespace ws::codec {

// Which record type a chunk holds; stored as an integer in event_chunks.kind.
// The store's CHECK on that column spells the range again; a test holds the
// two together (tests/core/closed_lists_test.cpp).
enum class ChunkKind : int { Kernel = 1, Memcpy = 2, Memset = 3, ApiCall = 4, Range = 5 };
inline constexpr ChunkKind kFirstChunkKind = ChunkKind::Kernel;
inline constexpr ChunkKind kLastChunkKind = ChunkKind::Range;

// (group, lane): (device, stream) for GPU records, (process, thread) for host ones.
struct Lane {
    std::uint32_t group = 0;
    std::uint32_t lane = 0;
    auto operator<=>(const Lane&) const = default;
};

inline Lane laneOf(const KernelRecord& r) {
    return {r.deviceId, r.streamId};
}
inline Lane laneOf(const MemcpyRecord& r) {
    return {r.deviceId, r.streamId};
}
inline Lane laneOf(const MemsetRecord& r) {
    return {r.deviceId, r.streamId};
}
inline Lane laneOf(const ApiCallRecord& r) {
    return {r.processId, r.threadId};
}
inline Lane laneOf(const RangeRecord& r) {
    return {r.processId, r.threadId};
}

// A kernel as a pass over a whole run reads it (the summary): timing, what
// ties it to its launch, and its name as the store's `strings` id (ids and
// texts are one to one), so decoding one builds no string.
struct KernelBrief {
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::int64_t nameId = 0;
    std::uint64_t graphNodeId = 0;
    std::uint32_t correlationId = 0;
    std::uint32_t graphId = 0;
    std::int64_t durationNs() const { return endNs - startNs; }
};

// An API call the same way: name as a `strings` id.
struct ApiCallBrief {
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::int64_t nameId = 0;
    std::uint32_t processId = 0;
    std::uint32_t threadId = 0;
    std::uint32_t correlationId = 0;
    std::int32_t returnValue = 0;
    ApiKind kind = ApiKind::Runtime;
};

using Intern = std::function<std::int64_t(std::string_view)>;
using Lookup = std::function<const std::string&(std::int64_t)>;

// How a chunk's blob is laid out; stored in event_chunks.format.
enum class Format : int {
    // Every record carries all its fields: the first stores' format, and the
    // capture wire protocol's (one record per frame, nothing to share).
    Inline = 1,
    // Fields that repeat across records (a kernel's name and launch
    // configuration, an API call's name) are stored once per chunk and
    // referenced: about a third of the inline size for kernels.
    Dictionary = 2,
};
constexpr Format kWriteFormat = Format::Dictionary;

// Encodes records of one lane, already sorted by start, into `out`.
template <typename R>
void encode(const std::vector<const R*>& records, const Intern& intern, std::string& out,
            Format format);

// Decodes a chunk of `count` records of `lane`; throws std::runtime_error on a
// damaged blob rather than reading past it. R is a record type, or
// KernelBrief / ApiCallBrief from a kernel / API call chunk (`lookup` is not
// called for those).
template <typename R>
void decode(std::string_view blob, std::int64_t count, Lane lane, const Lookup& lookup,
            std::vector<R>& out, Format format);

template <typename T>
constexpr ChunkKind kindOf();
template <>
constexpr ChunkKind kindOf<KernelRecord>() {
    return ChunkKind::Kernel;
}
template <>
constexpr ChunkKind kindOf<MemcpyRecord>() {
    return ChunkKind::Memcpy;
}
template <>
constexpr ChunkKind kindOf<MemsetRecord>() {
    return ChunkKind::Memset;
}
template <>
constexpr ChunkKind kindOf<ApiCallRecord>() {
    return ChunkKind::ApiCall;
}
template <>
constexpr ChunkKind kindOf<RangeRecord>() {
    return ChunkKind::Range;
}
template <>
constexpr ChunkKind kindOf<KernelBrief>() {
    return ChunkKind::Kernel;
}
template <>
constexpr ChunkKind kindOf<ApiCallBrief>() {
    return ChunkKind::ApiCall;
}

}  // namespace ws::codec
