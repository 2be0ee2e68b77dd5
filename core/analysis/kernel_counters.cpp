#include "analysis/kernel_counters.h"

#include <unordered_map>

#include "model/counter_metrics.h"

namespace ws {

std::map<std::string, KernelCounterStat> kernelCounterStats(Store& store, RunId run,
                                                            TimeWindow window) {
    std::map<std::string, KernelCounterStat> out;
    std::unordered_map<std::uint32_t, std::map<std::string, double>> byCorrelation;
    for (auto& m : kernelMetricsOf(store, run))
        byCorrelation[m.correlationId][m.metric] = m.value;
    if (byCorrelation.empty()) return out;
    std::map<std::string, std::int64_t> occupancySamples;
    forEachKernel(store, run, window, std::nullopt, [&](const KernelRecord& k) {
        auto it = byCorrelation.find(k.correlationId);
        if (it == byCorrelation.end()) return;
        auto counters = counters::fromMetrics(it->second);
        if (!counters) return;
        auto& s = out[k.name];
        s.flopsCounted = s.flopsCounted || counters->flopsCounted;
        // Running means: stats of thousands of launches without keeping them.
        double n = static_cast<double>(++s.instances);
        s.meanFlops += (counters->flops() - s.meanFlops) / n;
        s.meanTensorFlops += (counters->tensorFlops - s.meanTensorFlops) / n;
        s.meanFp32Flops += (counters->fp32Flops - s.meanFp32Flops) / n;
        s.meanDramBytes += (counters->dramBytes - s.meanDramBytes) / n;
        s.meanNs += (static_cast<double>(k.durationNs()) - s.meanNs) / n;
        if (counters->achievedOccupancy) {
            double m = static_cast<double>(++occupancySamples[k.name]);
            double prev = s.achievedOccupancy.value_or(0);
            s.achievedOccupancy = prev + (*counters->achievedOccupancy - prev) / m;
        }
    });
    return out;
}

}  // namespace ws
