// A small timeline built in memory for the timeline widget tests: two kernel
// streams on GPU 0, an NVTX lane and a CUDA API lane on Thread 1, one counter
// track. "gemv" kernels start at 100, 150, 300 (on both streams) and 500 µs
// after the run's start.
#pragma once

#include <memory>

#include "viewmodels/timeline_data.h"

namespace ws::testing {

inline constexpr std::int64_t kTimelineBeginNs = 5'000'000'000;

// Lanes: 0 GPU 0 · Stream 7, 1 GPU 0 · Stream 13, 2 Thread 1 · NVTX 0,
// 3 Thread 1 · CUDA API. `extraGemv` more gemv kernels on a fifth lane
// (GPU 1 · Stream 1), 1 µs apart from 1 ms on.
std::shared_ptr<const ui::TimelineData> smallTimeline(RunId run = 1, int extraGemv = 0);

}  // namespace ws::testing
