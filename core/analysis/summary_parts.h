// What summarizeRun counts while it walks a run (or a slice of it), and the
// rows it makes of that at the end: shared by the one-pass summary and the
// sliced one, whose slices' counts merge into one set of these first.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/kernel_summary.h"
#include "analysis/range_stacks.h"
#include "analysis/statistics.h"
#include "model/records.h"
#include "wire/event_codec.h"

namespace ws::summary {

// A launch's kernel can carry a GPU timestamp a little before its call's CPU
// one in imported traces; calls up to this far after a kernel's start are
// read before the kernel is attributed.
constexpr std::int64_t kLaunchSkewNs = 1'000'000;
// A launch is remembered this long for its kernel's NVTX range: a kernel can
// start long after its launch call when the CPU runs ahead of the GPU (a
// deep queue, work behind a long kernel or a blocked collective); 2 s, the
// launch-search window, dropped such kernels from their ranges.
constexpr std::int64_t kAttributionHorizonNs = 30'000'000'000;

inline std::int64_t saturatingAdd(std::int64_t a, std::int64_t b) {
    constexpr auto lo = std::numeric_limits<std::int64_t>::min();
    constexpr auto hi = std::numeric_limits<std::int64_t>::max();
    if (b > 0 && a > hi - b) return hi;
    if (b < 0 && a < lo - b) return lo;
    return a + b;
}

inline bool overlaps(std::int64_t start, std::int64_t end, TimeWindow w) {
    return start < w.endNs && end > w.beginNs;
}

using Text = std::function<const std::string&(std::int64_t)>;

// cuda_api_sum rows from calls fed one at a time, by name id; names are read
// once per distinct id when the rows are made.
class ApiTally {
  public:
    void add(const codec::ApiCallBrief& c) {
        // Calls of one name come in runs: compare before hashing.
        if (calls_.empty() || calls_[last_].nameId != c.nameId) {
            auto [it, inserted] = index_.try_emplace(c.nameId, calls_.size());
            if (inserted) calls_.push_back({c.nameId, c.kind, {}, 0});
            last_ = it->second;
        }
        auto& calls = calls_[last_];
        calls.ns.add(c.endNs - c.startNs);
        if (c.returnValue != 0) ++calls.errors;
        total_ += static_cast<double>(c.endNs - c.startNs);
    }
    // Takes in the calls of a later slice: names first seen there come after.
    void merge(const ApiTally& later);
    std::vector<ApiStat> stats(const Text& text) const;

  private:
    struct Calls {
        std::int64_t nameId;
        ApiKind kind;
        stats::Accumulator ns;
        std::int64_t errors = 0;
    };
    std::unordered_map<std::int64_t, std::size_t> index_;
    std::vector<Calls> calls_;
    std::size_t last_ = 0;
    double total_ = 0;
};

struct KernelTime {
    std::int64_t ns = 0;
    std::int64_t count = 0;
};

struct Copies {
    stats::Accumulator ns;
    std::int64_t bytes = 0;
};

// Range stats by (domain, name), in the order first asked for.
class RangeStatIndex {
  public:
    std::size_t statOf(const RangeRecord& r, RunSummary& out);
    std::vector<stats::Accumulator>& times() { return times_; }

  private:
    std::map<std::pair<std::string, std::string>, std::size_t> index_;
    decltype(index_)::iterator last_ = index_.end();  // the last one asked for
    std::vector<stats::Accumulator> times_;
};

// Sums of integers held as doubles, as the one pass adds them: exact (so the
// same in any order) while below 2^53, 104 days in nanoseconds.
struct Totals {
    std::vector<std::pair<std::int64_t, stats::Accumulator>> kernelTimes;  // by name id, first seen
    double kernelTotal = 0;
    std::map<std::size_t, KernelTime> byInnermost;  // by innermost range
    std::map<MemcpyKind, Copies> copyTimes;
    double copyTotal = 0;
    ApiTally apiTally;
    std::optional<std::int64_t> firstStart, lastEnd;  // GPU activity

    void addCopy(const MemcpyRecord& m) {
        auto& c = copyTimes[m.kind];
        c.ns.add(m.endNs - m.startNs);
        c.bytes += m.bytes;
        copyTotal += static_cast<double>(m.endNs - m.startNs);
    }
};

// Kernel durations by name id, rows in the order names are first met
// (Totals::kernelTimes); kernels of one name come in runs, so the last row
// is tried first.
class KernelTimeRows {
  public:
    explicit KernelTimeRows(std::vector<std::pair<std::int64_t, stats::Accumulator>>& rows)
        : rows_(rows) {}
    void add(std::int64_t nameId, std::int64_t ns) {
        if (rows_.empty() || rows_[last_].first != nameId) {
            auto [slot, inserted] = index_.try_emplace(nameId, rows_.size());
            if (inserted) rows_.emplace_back(nameId, stats::Accumulator{});
            last_ = slot->second;
        }
        rows_[last_].second.add(ns);
    }

  private:
    std::vector<std::pair<std::int64_t, stats::Accumulator>>& rows_;
    std::unordered_map<std::int64_t, std::size_t> index_;
    std::size_t last_ = 0;
};

// Whether calls of a name launch CUDA graphs, by name id; calls of one name
// come in runs, so the last answer is kept.
class GraphLaunchNames {
  public:
    template <typename Text>
    bool operator()(std::int64_t nameId, Text&& text) {
        if (nameId != lastName_) {
            auto [it, inserted] = byName_.try_emplace(nameId, false);
            if (inserted) {
                const std::string& name = text(nameId);
                it->second =
                    name.starts_with("cudaGraphLaunch") || name.starts_with("cuGraphLaunch");
            }
            lastName_ = nameId;
            lastAnswer_ = it->second;
        }
        return lastAnswer_;
    }

  private:
    std::unordered_map<std::int64_t, bool> byName_;
    std::int64_t lastName_ = -1;
    bool lastAnswer_ = false;
};

// Kernels, copies and memsets of three StartOrderReaders in one start order
// (ties: kernels, then copies); `keepGoing(n)` is asked every 4096 records
// and false ends the walk early.
template <typename Kernels, typename Copies, typename Memsets, typename OnKernel, typename OnCopy,
          typename OnMemset, typename KeepGoing>
void mergeByStart(Kernels& kernels, Copies& copies, Memsets& memsets, OnKernel&& onKernel,
                  OnCopy&& onCopy, OnMemset&& onMemset, KeepGoing&& keepGoing) {
    constexpr auto kEnd = std::numeric_limits<std::int64_t>::max();
    for (std::size_t n = 0;; ++n) {
        if (n % 4096 == 0 && !keepGoing()) return;
        const auto kp = kernels.peekStart(), cp = copies.peekStart(), mp = memsets.peekStart();
        if (!kp && !cp && !mp) return;
        const auto k = kp.value_or(kEnd), c = cp.value_or(kEnd), m = mp.value_or(kEnd);
        if (k <= c && k <= m && kp)
            onKernel(*kernels.next());
        else if (c <= m && cp)
            onCopy(*copies.next());
        else
            onMemset(*memsets.next());
    }
}

// The ranges of a summary's window (marks left out), by start, each with its
// stat in out.ranges (made here, with its instances' durations).
struct RangesInWindow {
    std::vector<std::size_t> byStart;      // indices in the run's ranges
    std::vector<std::size_t> statOfRange;  // by index in the run's ranges
};
RangesInWindow rangesInWindow(const std::vector<RangeRecord>& ranges, TimeWindow window,
                              RangeStatIndex& rangeIndex, RunSummary& out);

// The one pass over the run, in start order (summarizeRun with one thread).
RunSummary onePass(Store& store, RunId run, TimeWindow window, std::string label,
                   const std::function<bool()>& stop = {});
// The same from slices of the run's time on `threads` threads (0: one per
// core, fewer for a small run), merged; nullopt where the slices cannot give
// what the one pass gives (see kernel_summary_sliced.cpp): the caller then
// makes the one pass.
std::optional<RunSummary> sliced(Store& store, RunId run, TimeWindow window,
                                 const std::string& label, unsigned threads,
                                 const std::function<bool()>& stop = {});

// The rows of `out` from its totals (out.ranges holds the stats of the ranges
// in the window, their gpuBusyNs summed; out.graphs and out.gpuBusyNs are set).
void finishSummary(RunSummary& out, Store& store, RunId run, TimeWindow window, Totals& totals,
                   RangeStatIndex& rangeIndex, const std::vector<RangeRecord>& ranges,
                   const RangeStacks& stacks, const Text& kernelText, const Text& callText);

}  // namespace ws::summary
