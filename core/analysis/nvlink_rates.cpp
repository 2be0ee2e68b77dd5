#include "analysis/nvlink_rates.h"

#include <algorithm>

namespace ws {

std::map<std::uint32_t, NvlinkDeviceRates> nvlinkRates(const std::vector<SampleRecord>& samples) {
    std::map<std::uint32_t, NvlinkDeviceRates> out;
    std::map<std::uint32_t, const SampleRecord*> previous;
    for (const auto& s : samples) {
        if (!s.nvlinkTxBytes || !s.nvlinkRxBytes) continue;
        auto& rates = out[s.deviceIndex];
        auto [it, first] = previous.try_emplace(s.deviceIndex, &s);
        if (first) continue;
        const SampleRecord& before = *it->second;
        it->second = &s;
        const auto dtNs = s.timeNs - before.timeNs;
        const auto tx = *s.nvlinkTxBytes - *before.nvlinkTxBytes;
        const auto rx = *s.nvlinkRxBytes - *before.nvlinkRxBytes;
        if (dtNs <= 0 || tx < 0 || rx < 0) continue;
        NvlinkRatePoint p{before.timeNs, s.timeNs, tx * 1e9 / static_cast<double>(dtNs),
                          rx * 1e9 / static_cast<double>(dtNs)};
        rates.points.push_back(p);
        rates.peakTxBytesPerS = std::max(rates.peakTxBytesPerS, p.txBytesPerS);
        rates.peakRxBytesPerS = std::max(rates.peakRxBytesPerS, p.rxBytesPerS);
        rates.txBytes += tx;
        rates.rxBytes += rx;
    }
    return out;
}

std::set<std::uint32_t> busyDevices(const std::vector<SampleRecord>& samples,
                                    const std::map<std::uint32_t, NvlinkDeviceRates>& rates) {
    std::set<std::uint32_t> busy;
    for (const auto& s : samples)
        if (s.gpuUtilPercent && *s.gpuUtilPercent > 0) busy.insert(s.deviceIndex);
    for (const auto& [device, r] : rates)
        if (r.txBytes > 0 || r.rxBytes > 0) busy.insert(device);
    if (busy.empty() && !samples.empty()) {
        auto lowest = std::min_element(samples.begin(), samples.end(),
                                       [](const SampleRecord& a, const SampleRecord& b) {
                                           return a.deviceIndex < b.deviceIndex;
                                       });
        busy.insert(lowest->deviceIndex);
    }
    return busy;
}

}  // namespace ws
