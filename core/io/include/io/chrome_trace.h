// A run as Chrome trace-event JSON, which Perfetto UI and chrome://tracing
// open: kernels, copies and memsets per GPU stream, CUDA API calls and NVTX
// ranges per thread, flow arrows from each launch to its kernel, device
// samples as counter tracks. Written event by event: memory stays flat
// however many records the run has.
#pragma once

#include <ostream>

#include "model/records.h"
#include "store/run_queries.h"

namespace ws {

class Store;

struct ChromeTraceStats {
    std::int64_t events = 0;
    std::int64_t flows = 0;
};

// `window`: only records overlapping it (and device samples inside it); times
// stay counted from the run's first record, as in a whole-run export.
ChromeTraceStats exportChromeTrace(Store& store, RunId run, std::ostream& out,
                                   TimeWindow window = {});

}  // namespace ws
