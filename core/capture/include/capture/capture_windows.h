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

#include "model/capture_windows.h"
#include "model/records.h"

namespace ws::capture {

// Each window is stored as model/capture_windows.h says: a process-wide
// range, so it is nobody's NVTX parent and has a timeline lane of its own;
// `--window "range:capture range"` spans the first to the last.

struct CaptureWindowHooks {
    std::function<void(bool traced)> setTracing;  // turn the traced activity kinds on or off
    std::function<std::int64_t()> now;            // CUPTI's clock
    std::function<void(const RangeRecord&)> closed;
};

class CaptureWindows {
  public:
    CaptureWindows(CaptureWindowHooks hooks, std::uint32_t processId)
        : hooks_(std::move(hooks)), processId_(processId) {}
    // A profiler start returned: tracing goes on unless a window is already
    // open (cudaProfilerStart calls cuProfilerStart inside it, and programs
    // call start twice).
    void started();
    // A profiler stop was entered: tracing goes off and the open window is
    // handed to `closed`; nothing happens when none is open.
    void stopping();
    // The program exits: a window still open ends now, and no start opens
    // one any more (the collector has stopped sending).
    void finish();
    int windows() const;

  private:
    void closeLocked();  // with mutex_ held

    CaptureWindowHooks hooks_;
    std::uint32_t processId_;
    mutable std::mutex mutex_;
    bool open_ = false;
    bool finished_ = false;
    std::int64_t startNs_ = 0;
    int windows_ = 0;
};

}  // namespace ws::capture
