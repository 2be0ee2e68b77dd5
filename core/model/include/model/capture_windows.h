// record --capture-range cudaProfilerApi: what a traced window is stored as,
// shared by the collector that makes them, the recorder that counts them and
// whatever states them (analysis/capture_cost.h).
#pragma once

namespace ws::capture_window {

// Each window: a process-wide range (thread 0, start/end, as CUDA's
// synchronization ranges) of this name and domain.
inline constexpr const char* kName = "capture range";
inline constexpr const char* kDomain = "Warpscope";
// Run properties the recorder keeps: how many windows, and their total length.
inline constexpr const char* kCountProperty = "capture.windows";
inline constexpr const char* kTracedNsProperty = "capture.windows_ns";
// The run's capture.range (app/cli/inject_library.h) when it was windowed,
// and the collector's environment variable that asks for it.
inline constexpr const char* kRangeProperty = "capture.range";
inline constexpr const char* kProfilerApi = "cudaProfilerApi";
inline constexpr const char* kEnvironment = "WARPSCOPE_CAPTURE_RANGE";

}  // namespace ws::capture_window
