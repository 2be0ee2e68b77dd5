// NVLink throughput per GPU from the device samples: NVML counts the data
// each GPU sent and received over all its links as running totals, so a rate
// is the difference of two samples of one device over the time between them.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "model/records.h"

namespace ws {

// The rate over one interval between two samples of a device.
struct NvlinkRatePoint {
    std::int64_t startNs = 0, endNs = 0;  // the two samples' times
    double txBytesPerS = 0;
    double rxBytesPerS = 0;
};

struct NvlinkDeviceRates {
    std::vector<NvlinkRatePoint> points;  // in time order
    double peakTxBytesPerS = 0, peakRxBytesPerS = 0;
    std::int64_t txBytes = 0, rxBytes = 0;  // sent and received over the run
};

// Per device index, the rates between consecutive samples that both carry
// NVLink counters (`samples` in time order). A counter that went backwards
// (driver reloaded) gives no point for that interval; a device without NVLink
// counters has no entry.
std::map<std::uint32_t, NvlinkDeviceRates> nvlinkRates(const std::vector<SampleRecord>& samples);

// The GPUs a run kept busy: utilisation above 0 % or NVLink traffic in any
// sample (NVML's utilisation counts kernels only, not peer copies). When no
// sampled GPU was busy, the lowest-numbered one, so a run always has one.
std::set<std::uint32_t> busyDevices(const std::vector<SampleRecord>& samples,
                                    const std::map<std::uint32_t, NvlinkDeviceRates>& rates);

}  // namespace ws
