// A run as Chrome trace-event JSON, which Perfetto UI and chrome://tracing
// open: kernels, copies and memsets per GPU stream, CUDA API calls and NVTX
// ranges per thread, flow arrows from each launch to its kernel, device
// samples as counter tracks. Written event by event: memory stays flat
// however many records the run has.
#pragma once

#include <ostream>

#include "model/records.h"

namespace ws {

class Store;

struct ChromeTraceStats {
    std::int64_t events = 0;
    std::int64_t flows = 0;
};

ChromeTraceStats exportChromeTrace(Store& store, RunId run, std::ostream& out);

}  // namespace ws
