#include "capture/capture_windows.h"

namespace ws::capture {

void CaptureWindows::started() {
    std::lock_guard lock(mutex_);
    if (open_ || finished_) return;
    // Tracing first, then the clock: the window never claims time before
    // the records it holds could begin.
    hooks_.setTracing(true);
    open_ = true;
    startNs_ = hooks_.now();
}

void CaptureWindows::stopping() {
    std::lock_guard lock(mutex_);
    closeLocked();
}

void CaptureWindows::closeLocked() {
    if (!open_) return;
    RangeRecord r;
    r.startNs = startNs_;
    r.endNs = hooks_.now();
    hooks_.setTracing(false);
    open_ = false;
    ++windows_;
    r.processId = processId_;
    r.threadId = 0;
    r.name = capture_window::kName;
    r.domain = capture_window::kDomain;
    r.kind = RangeKind::StartEnd;
    hooks_.closed(r);
}

void CaptureWindows::finish() {
    // One hold of the lock: a start on another thread in between would open
    // a window nobody closes.
    std::lock_guard lock(mutex_);
    closeLocked();
    finished_ = true;
}

int CaptureWindows::windows() const {
    std::lock_guard lock(mutex_);
    return windows_;
}

}  // namespace ws::capture
