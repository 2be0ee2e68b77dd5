// record --capture-range cudaProfilerApi: the program's activity is traced
// only between cudaProfilerStart (or cuProfilerStart) and the next stop, as
// `nsys profile --capture-range=cudaProfilerApi` does, but every such window
// of the run rather than only the first. Outside the windows nothing is
// traced, so the program runs there at its untraced speed. Pure logic: the
// CUPTI callbacks that drive it are in profiler_api_windows.h.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>

#include "model/records.h"

namespace ws::capture {

// The name and domain a window is stored under (a range on the timeline, and
// what `--window range:capture range` selects).
inline constexpr const char* kCaptureWindowName = "capture range";
inline constexpr const char* kCaptureWindowDomain = "Warpscope";

struct CaptureWindowHooks {
    std::function<void(bool traced)> setTracing;  // turn the traced activity kinds on or off
    std::function<std::int64_t()> now;            // CUPTI's clock
    std::function<void(const RangeRecord&)> closed;
};

class CaptureWindows {
  public:
    CaptureWindows(CaptureWindowHooks hooks, std::uint32_t processId)
        : hooks_(std::move(hooks)), processId_(processId) {}
    // A profiler start returned on `thread`: tracing goes on unless a window
    // is already open (cudaProfilerStart calls cuProfilerStart inside it, and
    // programs call start twice).
    void started(std::uint32_t thread);
    // A profiler stop was entered on `thread`: tracing goes off and the open
    // window is handed to `closed`; nothing happens when none is open.
    void stopping(std::uint32_t thread);
    // The program exits with a window open: it ends now.
    void finish(std::uint32_t thread) { stopping(thread); }
    int windows() const;

  private:
    CaptureWindowHooks hooks_;
    std::uint32_t processId_;
    mutable std::mutex mutex_;
    bool open_ = false;
    std::int64_t startNs_ = 0;
    std::uint32_t startThread_ = 0;
    int windows_ = 0;
};

}  // namespace ws::capture
