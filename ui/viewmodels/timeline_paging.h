// A run too large to hold in memory opened as an overview (see
// timeline_data.h); loadTimelineDetail and detailWindowFor are declared
// there, beside loadTimeline.
#pragma once

#include <functional>
#include <memory>

#include "viewmodels/timeline_data.h"

namespace ws::ui {

// Lanes from the store's chunk directory, NVTX ranges, tokens and counters
// whole; no single GPU or API event yet. Throws load::LoadStopped.
std::shared_ptr<const TimelineData> openPagedTimeline(Store& store, RunId run,
                                                      const std::function<bool()>& stop,
                                                      std::int64_t firstRecordNs);

}  // namespace ws::ui
