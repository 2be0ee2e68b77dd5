// Kernels profiled with kernel replay (record --metrics) come from CUPTI
// without timestamps (start = end = 0). They are held until they can be
// placed: at the start of the API call that launched them (the replay runs
// inside that call), lasting their counted gpu__time_duration. So a counter
// pass still has a timeline and per-kernel times.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/records.h"

namespace ws {

class ReplayedKernels {
  public:
    // True when `k` has no timestamps: it is held, not to be written yet.
    bool hold(const KernelRecord& k);
    void apiCall(const ApiCallRecord& call);
    void metric(const KernelMetricRecord& m);
    // Every held kernel, placed as well as what arrived allows; a kernel
    // whose launch call never arrived keeps 0 and is counted in unplaced().
    std::vector<KernelRecord> release();
    std::int64_t unplaced() const { return unplaced_; }

  private:
    std::vector<KernelRecord> held_;
    std::unordered_map<std::uint32_t, std::int64_t> callStart_;  // by correlation id
    std::unordered_map<std::uint32_t, double> durationNs_;
    std::int64_t unplaced_ = 0;
};

}  // namespace ws
