// Drives CaptureWindows (capture_windows.h) from CUPTI's callbacks on
// cudaProfilerStart/Stop and cuProfilerStart/Stop (torch.cuda.profiler.start()
// and stop() call the former). Only those four callbacks are enabled, so
// every other API call pays nothing for them.
#pragma once

#include "capture/capture_windows.h"

namespace ws::capture {

// `windows` must outlive the process's CUDA calls. Returns false, with the
// reason on stderr, when the callbacks cannot be had (another CUPTI
// subscriber came first): the caller then traces the whole run.
bool startProfilerApiWindows(CaptureWindows* windows);

}  // namespace ws::capture
