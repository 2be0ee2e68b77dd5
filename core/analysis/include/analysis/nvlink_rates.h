// NVLink throughput per GPU from the device samples: NVML counts the data
// each GPU sent and received over all its links as running totals, so a rate
// is the difference of two samples of one device over the time between them.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "model/records.h"

namespace ws {

struct NvlinkRatePoint {
    std::int64_t timeNs = 0;  // the later of the two samples
    double txBytesPerS = 0;
    double rxBytesPerS = 0;
};

struct NvlinkDeviceRates {
    std::vector<NvlinkRatePoint> points;
    double peakTxBytesPerS = 0, peakRxBytesPerS = 0;
    std::int64_t txBytes = 0, rxBytes = 0;  // sent and received over the run
};

// Per NVML device index, the rates between consecutive samples that both
// carry NVLink counters (`samples` in time order). A counter that went
// backwards (driver reloaded) gives no point for that interval; a device
// without NVLink counters has no entry.
std::map<std::uint32_t, NvlinkDeviceRates> nvlinkRates(const std::vector<SampleRecord>& samples);

}  // namespace ws
