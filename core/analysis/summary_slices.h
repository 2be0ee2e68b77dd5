// Where a sliced summary cuts a run's time: at chunks' first starts, so that
// the slices hold about as many records each (kernels, copies, memsets and
// API calls, from the store's chunk directory, without decoding a record).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "model/records.h"
#include "store/run_queries.h"

namespace ws {
class Store;
}

namespace ws::summary {

struct SlicePlan {
    // The starts of slices 1 … n-1 inside the window, ascending; slice 0
    // begins with the run, the last one ends with it.
    std::vector<std::int64_t> cuts;
    std::int64_t records = 0;  // in chunks overlapping the window
};

// Up to `slices` slices (0: one per core, and one per kRecordsPerSlice
// records at most). nullopt where a chunk ends before its first start (a
// record ending before it starts: slices could miss records).
std::optional<SlicePlan> planSlices(Store& store, RunId run, TimeWindow window, unsigned slices);

}  // namespace ws::summary
