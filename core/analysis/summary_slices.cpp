#include "summary_slices.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "store/chunk_directory.h"

namespace ws::summary {

namespace {
// Fewer records than this per slice are not worth a thread.
constexpr std::int64_t kRecordsPerSlice = 1'000'000;
}  // namespace

std::optional<SlicePlan> planSlices(Store& store, RunId run, TimeWindow window, unsigned slices) {
    std::vector<std::pair<std::int64_t, std::int64_t>> chunks;  // first start, records
    SlicePlan plan;
    for (auto kind : {codec::ChunkKind::Kernel, codec::ChunkKind::Memcpy, codec::ChunkKind::Memset,
                      codec::ChunkKind::ApiCall})
        for (const LaneChunks& lane : chunkDirectory(store, run, kind))
            for (const ChunkSpan& c : lane.chunks) {
                if (c.maxEndNs < c.firstStartNs) return std::nullopt;
                if (!(c.firstStartNs < window.endNs && c.maxEndNs > window.beginNs)) continue;
                chunks.emplace_back(c.firstStartNs, c.count);
                plan.records += c.count;
            }
    // Ranges are read in slices too (rangesStartingIn), not counted.
    for (const LaneChunks& lane : chunkDirectory(store, run, codec::ChunkKind::Range))
        for (const ChunkSpan& c : lane.chunks)
            if (c.maxEndNs < c.firstStartNs) return std::nullopt;
    std::sort(chunks.begin(), chunks.end());
    std::int64_t n = slices;
    if (n == 0) {
        n = std::max<std::int64_t>(1, std::thread::hardware_concurrency());
        n = std::min(n, std::max<std::int64_t>(1, plan.records / kRecordsPerSlice));
    }
    std::int64_t seen = 0;
    std::size_t next = 1;  // the cut wanted next
    for (const auto& [firstStart, count] : chunks) {
        // A cut where the records before it reach the next share.
        while (next < static_cast<std::size_t>(n) &&
               seen >= plan.records * static_cast<std::int64_t>(next) / n)
            ++next, plan.cuts.push_back(firstStart);
        seen += count;
    }
    std::erase_if(plan.cuts,
                  [&](std::int64_t cut) { return cut <= window.beginNs || cut >= window.endNs; });
    plan.cuts.erase(std::unique(plan.cuts.begin(), plan.cuts.end()), plan.cuts.end());
    return plan;
}

}  // namespace ws::summary
