#include "counter_series.h"

#include "analysis/nvlink_rates.h"
#include "model/gpu_metrics.h"

namespace ws {

void forEachCounterPoint(Store& store, RunId run, TimeWindow window,
                         const std::vector<SampleRecord>& samples,
                         const std::function<void(const CounterPoint&)>& visit) {
    auto inside = [&](std::int64_t t) { return t >= window.beginNs && t < window.endNs; };
    for (const auto& s : samples) {
        if (!inside(s.timeNs)) continue;
        for (const auto& [name, value] :
             {std::pair{"power_w", s.powerW}, std::pair{"sm_clock_mhz", s.smClockMhz},
              std::pair{"mem_clock_mhz", s.memClockMhz},
              std::pair{"temperature_c", s.temperatureC}})
            if (value) visit({s.deviceIndex, name, s.timeNs, {{name, *value}}});
    }
    // NVLink GB/s over each interval between two samples, from its start.
    auto nvlinkAt = [&](std::uint32_t device, std::int64_t t, double tx, double rx) {
        if (inside(t)) visit({device, "nvlink_gb_s", t, {{"tx", tx / 1e9}, {"rx", rx / 1e9}}});
    };
    for (const auto& [device, rates] : nvlinkRates(samples)) {
        for (const auto& p : rates.points)
            nvlinkAt(device, p.startNs, p.txBytesPerS, p.rxBytesPerS);
        if (!rates.points.empty()) nvlinkAt(device, rates.points.back().endNs, 0, 0);
    }
    // GPU metrics, named as the timeline names them, in their units.
    for (const auto& series : gpuMetricsOf(store, run, window.beginNs, window.endNs)) {
        const auto name = gpu_metrics::describe(series.metric);
        const std::string counter = gpu_metrics::title(series.metric);
        auto at = [&](std::int64_t t, double value) {
            if (inside(t)) visit({series.deviceIndex, counter, t, {{"value", value * name.scale}}});
        };
        for (const auto& sample : series.samples)
            at(sample.startNs, sample.value);
        if (!series.samples.empty()) at(series.samples.back().endNs, 0);
    }
}

}  // namespace ws
