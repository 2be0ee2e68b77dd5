#include "model/counter_metrics.h"

namespace ws::counters {

std::optional<KernelCounters> fromMetrics(const std::map<std::string, double>& values) {
    bool any = false;
    auto get = [&](const char* name) {
        auto it = values.find(name);
        if (it == values.end()) return 0.0;
        any = true;
        return it->second;
    };
    KernelCounters k;
    k.fp32Flops = get(kFadd) + get(kFmul) + 2 * get(kFfma);
    k.fp16Flops = get(kHadd) + get(kHmul) + 2 * get(kHfma);
    k.tensorFlops = kFlopsPerTensorOp * (get(kTensorBf16) + get(kTensorFp16));
    k.flopsCounted = any;
    k.dramBytes = get(kDramRead) + get(kDramWrite);
    if (auto it = values.find(kAchievedOccupancy); it != values.end()) {
        k.achievedOccupancy = it->second / 100.0;
        any = true;
    }
    if (!any) return std::nullopt;
    return k;
}

}  // namespace ws::counters
