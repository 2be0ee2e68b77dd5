// Kernels profiled with kernel replay (record --metrics) come from CUPTI
// without timestamps (start = end = 0). They are held until they can be
// placed: at the start of the API call that launched them (the replay runs
// inside that call), lasting their counted gpu__time_duration. So a counter
// pass still has a timeline and per-kernel times.
//
// What is kept stays bounded however long the recording runs:
// - Every API call passes through here, but only the last kCallWindow are
//   remembered (a kernel's record arrives within a buffer flush or two of its
//   launch call, far fewer calls apart). An hour of serving, 10^8 launches,
//   was ~80 MiB per million launches when every call was kept.
// - A held kernel leaves (takePlaced) as soon as its call and its duration
//   have both arrived; only kernels still missing one wait for release().
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
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
    // Held kernels placed since the last take: their launch call and their
    // counted duration both arrived. To be written like any other kernel.
    bool havePlaced() const { return !placed_.empty(); }
    std::vector<KernelRecord> takePlaced();
    // Every kernel still held, in arrival order, placed as well as what
    // arrived allows: without a duration a zero-length mark at its call; a
    // kernel whose launch call never arrived (or came more than the window's
    // calls before it) keeps 0 and is counted in unplaced().
    std::vector<KernelRecord> release();
    std::int64_t unplaced() const { return unplaced_; }

    // What is kept now, for tests: API calls remembered (at most the window,
    // plus those of held kernels) and kernels held.
    std::size_t callsRemembered() const { return recent_.size() + launches_.size(); }
    std::size_t held() const { return held_.size(); }

  private:
    // What arrived for one correlation id: its held kernels (arrival numbers),
    // the first call's start, the last counted duration.
    struct Launch {
        std::vector<std::uint64_t> kernels;
        std::optional<std::int64_t> startNs;
        std::optional<double> durationNs;
    };
    void remember(std::uint32_t correlationId, std::int64_t startNs);
    void placeIfComplete(std::unordered_map<std::uint32_t, Launch>::iterator it);
    static KernelRecord placed(KernelRecord k, const Launch& launch);

    std::size_t window_;
    std::uint64_t arrivals_ = 0;
    std::map<std::uint64_t, KernelRecord> held_;          // by arrival number
    std::unordered_map<std::uint32_t, Launch> launches_;  // by correlation id
    std::vector<KernelRecord> placed_;
    // The last calls, a ring (oldest at next_ once full), as (id, start).
    std::vector<std::pair<std::uint32_t, std::int64_t>> recent_;
    std::size_t next_ = 0;
    // The ring's ids → the first start among them; built at the first held
    // kernel (ordinary recordings never hold one and never pay for it).
    std::unordered_map<std::uint32_t, std::int64_t> recentIndex_;
    bool indexed_ = false;
    std::int64_t unplaced_ = 0;
};

}  // namespace ws
