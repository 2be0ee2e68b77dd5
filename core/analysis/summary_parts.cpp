#include "summary_parts.h"

#include <algorithm>

#include "analysis/kernel_counters.h"

namespace ws::summary {

void ApiTally::merge(const ApiTally& later) {
    for (const Calls& calls : later.calls_) {
        auto [it, inserted] = index_.try_emplace(calls.nameId, calls_.size());
        if (inserted)
            calls_.push_back(calls);
        else {
            calls_[it->second].ns.merge(calls.ns);
            calls_[it->second].errors += calls.errors;
        }
    }
    total_ += later.total_;
}

std::vector<ApiStat> ApiTally::stats(const Text& text) const {
    std::vector<ApiStat> out;
    for (const auto& calls : calls_) {
        ApiStat s;
        s.name = text(calls.nameId);
        s.kind = calls.kind;
        s.time = durations(calls.ns);
        s.timePercent = total_ > 0 ? 100.0 * s.time.totalNs / total_ : 0;
        s.errors = calls.errors;
        out.push_back(std::move(s));
    }
    std::sort(out.begin(), out.end(), [](const ApiStat& a, const ApiStat& b) {
        return a.time.totalNs != b.time.totalNs ? a.time.totalNs > b.time.totalNs : a.name < b.name;
    });
    return out;
}

std::size_t RangeStatIndex::statOf(const RangeRecord& r, RunSummary& out) {
    // Ranges of one name come in runs (a step's, a layer's): compare first.
    if (last_ != index_.end() && last_->first.second == r.name && last_->first.first == r.domain)
        return last_->second;
    auto [it, inserted] = index_.try_emplace({r.domain, r.name}, out.ranges.size());
    last_ = it;
    if (inserted) {
        RangeStat stat;
        stat.name = r.name;
        stat.domain = r.domain;
        out.ranges.push_back(stat);
        times_.emplace_back();
    }
    return it->second;
}

RangesInWindow rangesInWindow(const std::vector<RangeRecord>& ranges, TimeWindow window,
                              RangeStatIndex& rangeIndex, RunSummary& out) {
    RangesInWindow in;
    in.statOfRange.assign(ranges.size(), 0);
    for (std::size_t i = 0; i < ranges.size(); ++i) {
        const auto& r = ranges[i];
        if (r.kind == RangeKind::Mark || r.endNs < window.beginNs || r.startNs > window.endNs)
            continue;
        in.statOfRange[i] = rangeIndex.statOf(r, out);
        rangeIndex.times()[in.statOfRange[i]].add(r.endNs - r.startNs);
        in.byStart.push_back(i);
    }
    std::stable_sort(in.byStart.begin(), in.byStart.end(), [&](std::size_t a, std::size_t b) {
        return ranges[a].startNs < ranges[b].startNs;
    });
    return in;
}

void finishSummary(RunSummary& out, Store& store, RunId run, TimeWindow window, Totals& totals,
                   RangeStatIndex& rangeIndex, const std::vector<RangeRecord>& ranges,
                   const RangeStacks& stacks, const Text& kernelText, const Text& callText) {
    out.apiCalls = totals.apiTally.stats(callText);

    std::vector<std::pair<std::string, DurationStats>> kernelRows;
    for (auto& [nameId, times] : totals.kernelTimes)
        kernelRows.emplace_back(kernelText(nameId), durations(times));
    std::sort(kernelRows.begin(), kernelRows.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    out.kernels = kernelStats(std::move(kernelRows), totals.kernelTotal);
    auto counted = kernelCounterStats(store, run, window);
    for (auto& s : out.kernels)
        if (auto c = counted.find(s.mangled); c != counted.end() && c->second.meanNs > 0) {
            s.dramGBs = c->second.dramGBs();
            if (c->second.flopsCounted) s.tflops = c->second.meanFlops / c->second.meanNs * 1e-3;
            s.achievedOccupancy = c->second.achievedOccupancy;
        }

    for (auto& [kind, c] : totals.copyTimes) {
        MemcpyStat s;
        s.kind = kind;
        s.time = durations(c.ns);
        s.totalBytes = c.bytes;
        s.gbPerS = s.time.totalNs > 0 ? static_cast<double>(s.totalBytes) / s.time.totalNs : 0;
        s.timePercent = totals.copyTotal > 0 ? 100.0 * s.time.totalNs / totals.copyTotal : 0;
        out.memcpys.push_back(s);
    }
    std::sort(out.memcpys.begin(), out.memcpys.end(), [](const MemcpyStat& a, const MemcpyStat& b) {
        return a.time.totalNs > b.time.totalNs;
    });

    if (totals.firstStart) out.gpuSpanNs = *totals.lastEnd - *totals.firstStart;
    out.gpuBusyFraction =
        out.gpuSpanNs > 0 ? static_cast<double>(out.gpuBusyNs) / static_cast<double>(out.gpuSpanNs)
                          : 0;

    // Kernels credited to their innermost range (self) and every range
    // around it (inclusive), each range name once.
    // creditedBy[stat] = the last innermost range (its position in
    // byInnermost, plus one) that credited that stat: a lookup, not a search,
    // so 100,000 nested ranges cost linear time, not quadratic.
    std::vector<std::size_t> creditedBy;
    std::size_t pass = 0;
    for (const auto& [innermostRange, kernel] : totals.byInnermost) {
        ++pass;
        bool innermost = true;
        for (auto r = innermostRange; r != RangeStacks::kNone;
             r = stacks.parent(r), innermost = false) {
            auto id = rangeIndex.statOf(ranges[r], out);
            auto& stat = out.ranges[id];
            if (innermost) stat.selfKernelNs += static_cast<double>(kernel.ns);
            if (creditedBy.size() <= id) creditedBy.resize(id + 1, 0);
            if (creditedBy[id] == pass) continue;
            creditedBy[id] = pass;
            stat.inclusiveKernelNs += static_cast<double>(kernel.ns);
            stat.inclusiveKernels += kernel.count;
        }
    }
    for (std::size_t i = 0; i < out.ranges.size(); ++i) {
        out.ranges[i].time = durations(rangeIndex.times()[i]);
        out.ranges[i].gpuBusyFraction = out.ranges[i].time.totalNs > 0
                                            ? out.ranges[i].gpuBusyNs / out.ranges[i].time.totalNs
                                            : 0;
    }
    std::sort(out.ranges.begin(), out.ranges.end(), [](const RangeStat& a, const RangeStat& b) {
        return a.time.totalNs > b.time.totalNs;
    });
}

}  // namespace ws::summary
