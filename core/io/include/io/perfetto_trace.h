// A run in Perfetto's own trace format (protobuf TracePackets, as
// perfetto_trace.proto defines them), which the Perfetto UI and trace
// processor open with every lane in place: each GPU a process with a track
// per stream (kernels, copies, memsets), each host thread with its NVTX
// ranges and a "CUDA API" track under it, flows from each launch call to its
// kernel, and counter tracks for device samples, NVLink and GPU metrics.
// Written packet by packet: memory stays flat however many records the run
// has. Times are the capture clock's nanoseconds, unshifted.
#pragma once

#include <cstdint>
#include <ostream>

#include "store/run_queries.h"

namespace ws {

class Store;

struct PerfettoTraceStats {
    std::int64_t packets = 0;
    std::int64_t tracks = 0;
    std::int64_t slices = 0;
    std::int64_t flows = 0;
    std::int64_t counterValues = 0;
};

// `window`: only records overlapping it (and counter points inside it).
PerfettoTraceStats exportPerfettoTrace(Store& store, RunId run, std::ostream& out,
                                       TimeWindow window = {});

}  // namespace ws
