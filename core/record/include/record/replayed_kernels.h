// Kernels profiled with kernel replay (record --metrics) come from CUPTI
// without timestamps (start = end = 0). They are held until they can be
// placed: at the start of the API call that launched them (the replay runs
// inside that call), lasting their counted gpu__time_duration. So a counter
// pass still has a timeline and per-kernel times.
//
// Every API call of a recording passes through here, so what is kept of them
// is bounded: the last kCallWindow calls (a kernel's record arrives within a
// buffer flush or two of its launch call, far fewer calls apart), plus the
// calls of held kernels. An hour of serving (10^8 launches) stays in a few
// MiB instead of growing by ~80 MiB per million launches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/records.h"

namespace ws {

class ReplayedKernels {
  public:
    // API calls remembered for a kernel whose record comes after its call.
    static constexpr std::size_t kCallWindow = std::size_t{1} << 20;

    explicit ReplayedKernels(std::size_t callWindow = kCallWindow);

    // True when `k` has no timestamps: it is held, not to be written yet.
    bool hold(const KernelRecord& k);
    void apiCall(const ApiCallRecord& call);
    void metric(const KernelMetricRecord& m);
    // Every held kernel, placed as well as what arrived allows; a kernel
    // whose launch call never arrived (or came more than the window's calls
    // before it) keeps 0 and is counted in unplaced().
    std::vector<KernelRecord> release();
    std::int64_t unplaced() const { return unplaced_; }

    // API calls remembered now: at most the window, plus held kernels' calls.
    std::size_t callsRemembered() const { return recent_.size() + launchStart_.size(); }

  private:
    void remember(std::uint32_t correlationId, std::int64_t startNs);

    std::size_t window_;
    std::vector<KernelRecord> held_;
    // Held kernels' correlation ids → the start of the first call seen with
    // that id (none yet: the call may still come).
    std::unordered_map<std::uint32_t, std::optional<std::int64_t>> launchStart_;
    // The last calls, a ring (oldest at next_ once full), as (id, start).
    std::vector<std::pair<std::uint32_t, std::int64_t>> recent_;
    std::size_t next_ = 0;
    // The ring's ids → the first start among them; built at the first held
    // kernel (ordinary recordings never hold one and never pay for it).
    std::unordered_map<std::uint32_t, std::int64_t> recentIndex_;
    bool indexed_ = false;
    std::unordered_map<std::uint32_t, double> durationNs_;
    std::int64_t unplaced_ = 0;
};

}  // namespace ws
