// The counter tracks a run's trace exports carry (chrome-trace JSON and
// Perfetto's protobuf): device samples (power, clocks, temperature), NVLink
// rates per direction, and GPU metrics (record --gpu-metrics), each in the
// order of its series, inside a window. A rate series ends with a point of 0
// at its last interval's end, so the last rate is not held to the trace's end.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "model/records.h"
#include "store/run_queries.h"

namespace ws {

class Store;

struct CounterPoint {
    std::uint32_t device = 0;
    std::string counter;  // power_w, nvlink_gb_s, "DRAM read (GB/s)", ...
    std::int64_t timeNs = 0;
    // The counter's series at this time: one, named as the counter or
    // "value", or several (NVLink: tx and rx).
    std::vector<std::pair<std::string, double>> values;
};

void forEachCounterPoint(Store& store, RunId run, TimeWindow window,
                         const std::vector<SampleRecord>& samples,
                         const std::function<void(const CounterPoint&)>& visit);

}  // namespace ws
