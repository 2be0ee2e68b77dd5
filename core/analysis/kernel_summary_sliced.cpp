// summarizeRun on slices of the run's time, one thread each, merged into what
// the one pass in start order makes (kernel_summary.cpp):
// - every slice walks the kernels, copies and memsets that start in it (and
//   the API calls that start in it for cuda_api_sum) with counts of its own;
//   duration tables, sums and kernel time per range add up across slices;
// - GPU busy time: a slice leaves out what the records started before it
//   cover (up to the latest end among those, read from the chunks straddling
//   its start), so the slices' unions add up to the run's;
// - launch credit: a slice reads calls from kLookbackNs before its start. A
//   kernel whose call it did not see, and whose id some call in a range before
//   it has, is resolved afterwards against those earlier calls. That credits
//   kernels as the one pass does when no correlation id belongs to two calls
//   (checked: the ids of every slice's calls go into one set);
// - a duration table past its exact size (wide-spread launch call times over
//   a long run: 200 M cudaLaunchKernel calls on the H200) merges into the
//   one pass's table, the same rounded median; its standard deviation, from
//   the slices' Welford terms (Chan et al.), differs from the one pass's in
//   the last bits only (tested: relative 1e-9);
// - where the slices cannot give the one pass's result (an id shared by two
//   calls, as processes numbering their calls alike give; a record ending
//   before it starts) the caller makes the one pass instead.
#include <algorithm>
#include <atomic>
#include <exception>
#include <functional>
#include <future>
#include <iterator>
#include <thread>
#include <unordered_map>

#include "analysis/graph_nodes.h"
#include "concurrent_id_bits.h"
#include "slice_launches.h"
#include "store/store.h"
#include "summary_parts.h"
#include "summary_slices.h"

namespace ws::summary {

namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
// Calls read before a slice's start for its first kernels' launches (a deep
// queue's are found afterwards, by resolve()). Short: the slice holds every
// launch it read whose kernel ran in an earlier slice, until the horizon.
constexpr std::int64_t kLookbackNs = 2'000'000;

// What every slice reads.
struct Shared {
    RunId run = 0;
    TimeWindow window, callWindow;
    const std::vector<RangeRecord>* ranges = nullptr;
    const RangeStacks* stacks = nullptr;
    const GraphNodeOrigins* origins = nullptr;
    const RangesInWindow* inWindow = nullptr;
    std::size_t rangeStats = 0;
    ConcurrentIdBits callIds;  // correlation ids of calls, each slice its own
    std::atomic<bool> giveUp{false};
    const std::function<bool()>* stop = nullptr;  // the caller's, asked by every slice
    std::atomic<bool> stopped{false};
};

// A kernel whose launch call may lie before its slice's lookback.
struct Unresolved {
    std::uint32_t correlationId = 0;
    std::int64_t startNs = 0;
    std::int64_t ns = 0;
};

struct SlicePart {
    Totals totals;
    GraphReplayStats graphs;
    std::int64_t gpuBusyNs = 0;
    std::vector<double> rangeBusyNs;  // by range stat
    std::vector<Unresolved> unresolved;
};

struct Slice {
    std::int64_t from = kMin, to = kMax;  // starts in [from, to)
    bool first = false, last = false;
};

// The latest end of the GPU records overlapping the window that start before
// `ns`; kMin when none ends after it.
std::int64_t coveredUntil(Store& store, const Shared& shared, std::int64_t ns) {
    std::int64_t end = kMin;
    const TimeWindow straddling{std::max(shared.window.beginNs, ns), shared.window.endNs};
    const TimeWindow before{kMin, ns};
    auto scan = [&](auto& reader) {
        while (const auto* r = reader.next())
            end = std::max(end, r->endNs);
    };
    StartOrderReader<codec::KernelBrief> kernels(store, shared.run, straddling, before);
    scan(kernels);
    StartOrderReader<MemcpyRecord> copies(store, shared.run, straddling, before);
    scan(copies);
    StartOrderReader<MemsetRecord> memsets(store, shared.run, straddling, before);
    scan(memsets);
    return end;
}

void summarizeSlice(Store& store, Shared& shared, Slice slice, SlicePart& part) {
    const auto& ranges = *shared.ranges;
    const auto& inWindow = shared.inWindow->byStart;
    const auto& statOfRange = shared.inWindow->statOfRange;
    const bool hasRanges = !ranges.empty();
    Totals& totals = part.totals;
    part.rangeBusyNs.assign(shared.rangeStats, 0);
    const std::int64_t lookback = slice.first ? kMin : saturatingAdd(slice.from, -kLookbackNs);

    // GPU busy as the one pass makes it, less what earlier slices cover.
    const std::int64_t covered = slice.first ? kMin : coveredUntil(store, shared, slice.from);
    using Interval = std::pair<std::int64_t, std::int64_t>;
    std::optional<Interval> busy;
    std::size_t nextRange = 0;
    std::vector<std::size_t> openRanges;
    auto finishPiece = [&](Interval piece) {
        piece.first = std::max(piece.first, covered);
        if (piece.second <= piece.first) return;
        part.gpuBusyNs += piece.second - piece.first;
        while (nextRange < inWindow.size() && ranges[inWindow[nextRange]].startNs < piece.second)
            openRanges.push_back(inWindow[nextRange++]);
        for (auto r : openRanges) {
            const auto overlap =
                std::min(piece.second, ranges[r].endNs) - std::max(piece.first, ranges[r].startNs);
            if (overlap > 0) part.rangeBusyNs[statOfRange[r]] += static_cast<double>(overlap);
        }
        std::erase_if(openRanges, [&](std::size_t r) { return ranges[r].endNs <= piece.second; });
    };
    auto gpuInterval = [&](std::int64_t start, std::int64_t end) {
        if (!totals.firstStart) totals.firstStart = start;
        totals.lastEnd = totals.lastEnd ? std::max(*totals.lastEnd, end) : end;
        if (busy && start <= busy->second) {
            busy->second = std::max(busy->second, end);
            return;
        }
        if (busy) finishPiece(*busy);
        busy = Interval{start, end};
    };

    const TimeWindow starts{slice.from, slice.to};
    StartOrderReader<codec::KernelBrief> kernels(store, shared.run, shared.window, starts);
    StartOrderReader<MemcpyRecord> copies(store, shared.run, shared.window, starts);
    StartOrderReader<MemsetRecord> memsets(store, shared.run, shared.window, starts);
    StartOrderReader<codec::ApiCallBrief> calls(
        store, shared.run, shared.callWindow,
        {lookback, slice.last ? kMax : saturatingAdd(slice.to, kLaunchSkewNs)});

    SliceLaunches launches;
    IdBits seen;  // ids of the calls read
    bool kernelsLeft = true;
    GraphLaunchNames graphLaunchNames;
    auto launchesGraph = [&](std::int64_t nameId) {
        return graphLaunchNames(
            nameId, [&](std::int64_t id) -> const std::string& { return calls.text(id); });
    };
    auto readCallsUntil = [&](std::int64_t ns) {
        for (auto start = calls.peekStart(); start && *start <= ns; start = calls.peekStart()) {
            const codec::ApiCallBrief& c = *calls.next();
            const bool own =
                (slice.first || c.startNs >= slice.from) && (slice.last || c.startNs < slice.to);
            if (hasRanges && c.correlationId) {
                if (own && !shared.callIds.insert(c.correlationId))
                    shared.giveUp.store(true, std::memory_order_relaxed);
                seen.insert(c.correlationId);
                const std::size_t r = kernelsLeft ? shared.stacks->innermost(c.threadId, c.startNs)
                                                  : RangeStacks::kNone;
                if (r != RangeStacks::kNone)
                    launches.add(c.correlationId, c.startNs, static_cast<std::uint32_t>(r),
                                 launchesGraph(c.nameId));
            }
            if (own && overlaps(c.startNs, c.endNs, shared.window)) totals.apiTally.add(c);
        }
    };

    KernelTimeRows kernelTimes(totals.kernelTimes);
    std::vector<Unresolved> maybeEarlier;
    auto onKernel = [&](const codec::KernelBrief& k) {
        kernelTimes.add(k.nameId, k.durationNs());
        if (k.graphNodeId) {
            ++part.graphs.kernels;
            part.graphs.kernelNs += static_cast<double>(k.durationNs());
        }
        if (hasRanges) {
            readCallsUntil(saturatingAdd(k.startNs, kLaunchSkewNs));
            launches.forgetBefore(saturatingAdd(k.startNs, -kAttributionHorizonNs));
        }
        bool captured = false;
        std::size_t innermost = RangeStacks::kNone;
        const GraphNodeRecord* node =
            k.graphNodeId ? shared.origins->origin(k.graphNodeId) : nullptr;
        if (node) {
            captured = true;
            innermost = shared.stacks->innermost(node->threadId, node->timeNs);
        } else if (hasRanges) {
            const auto r = launches.credit(k.correlationId, !k.graphNodeId && !k.graphId);
            if (r != SliceLaunches::kNone)
                innermost = r;
            else if (!slice.first && k.correlationId && !seen.contains(k.correlationId) &&
                     saturatingAdd(k.startNs, -kAttributionHorizonNs) < lookback)
                maybeEarlier.push_back({k.correlationId, k.startNs, k.durationNs()});
        }
        if (captured) {
            ++part.graphs.traced;
            part.graphs.tracedNs += static_cast<double>(k.durationNs());
        }
        if (innermost != RangeStacks::kNone) {
            auto& t = totals.byInnermost[innermost];
            t.ns += k.durationNs();
            ++t.count;
            if (captured) {
                ++part.graphs.inRange;
                part.graphs.inRangeNs += static_cast<double>(k.durationNs());
            }
        }
        totals.kernelTotal += static_cast<double>(k.durationNs());
        gpuInterval(k.startNs, k.endNs);
    };
    // Kernels, copies and memsets merged by start (ties: kernels first).
    bool gaveUp = false;
    mergeByStart(
        kernels, copies, memsets, onKernel,
        [&](const MemcpyRecord& m) {
            totals.addCopy(m);
            gpuInterval(m.startNs, m.endNs);
        },
        [&](const MemsetRecord& m) { gpuInterval(m.startNs, m.endNs); },
        [&] {
            if (shared.stop && *shared.stop && (*shared.stop)()) {
                shared.stopped.store(true);
                shared.giveUp.store(true);
            }
            gaveUp = shared.giveUp.load(std::memory_order_relaxed);
            return !gaveUp;
        });
    if (gaveUp) return;
    if (busy) finishPiece(*busy);
    kernelsLeft = false;  // the rest of the slice's calls only for cuda_api_sum
    readCallsUntil(slice.last ? kMax : slice.to - 1);
    if (kernels.reversed() || copies.reversed() || memsets.reversed() || calls.reversed())
        shared.giveUp.store(true, std::memory_order_relaxed);
    // A call this slice read after the kernel is its only one: not an earlier one.
    for (const Unresolved& u : maybeEarlier)
        if (!seen.contains(u.correlationId)) part.unresolved.push_back(u);
}

// Credits the kernels of a slice starting at `from` whose launch call came
// before its lookback, reading calls back from there as far as they need.
void resolve(Store& store, const Shared& shared, std::int64_t from,
             const std::vector<Unresolved>& unresolved, Totals& totals) {
    std::unordered_map<std::uint32_t, std::pair<std::int64_t, std::size_t>> found;  // start, range
    std::unordered_map<std::uint32_t, bool> wanted;
    std::int64_t oldest = kMax;
    for (const Unresolved& u : unresolved)
        if (shared.callIds.contains(u.correlationId)) {
            wanted.emplace(u.correlationId, true);
            oldest = std::min(oldest, saturatingAdd(u.startNs, -kAttributionHorizonNs));
        }
    std::int64_t hi = saturatingAdd(from, -kLookbackNs), step = kLookbackNs;
    oldest = std::max(oldest, shared.callWindow.beginNs);
    while (!wanted.empty() && hi > oldest) {
        const std::int64_t lo = std::max(saturatingAdd(hi, -step), oldest);
        StartOrderReader<codec::ApiCallBrief> calls(store, shared.run, shared.callWindow, {lo, hi});
        while (const auto* c = calls.next()) {
            if (!wanted.erase(c->correlationId)) continue;
            // The id's one call: in a range or not.
            const std::size_t r = shared.stacks->innermost(c->threadId, c->startNs);
            if (r != RangeStacks::kNone)
                found.emplace(c->correlationId, std::make_pair(c->startNs, r));
        }
        hi = lo;
        step = step > kMax / 2 ? kMax : step * 2;
    }
    for (const Unresolved& u : unresolved) {
        auto f = found.find(u.correlationId);
        // Forgotten by the one pass when it started more than the horizon before.
        if (f == found.end() || f->second.first < saturatingAdd(u.startNs, -kAttributionHorizonNs))
            continue;
        auto& t = totals.byInnermost[f->second.second];
        t.ns += u.ns;
        ++t.count;
    }
}

void mergeAccumulators(std::vector<std::pair<std::int64_t, stats::Accumulator>>& into,
                       std::unordered_map<std::int64_t, std::size_t>& index,
                       const std::vector<std::pair<std::int64_t, stats::Accumulator>>& later) {
    for (const auto& [nameId, times] : later) {
        auto [it, inserted] = index.try_emplace(nameId, into.size());
        if (inserted)
            into.emplace_back(nameId, times);
        else
            into[it->second].second.merge(times);
    }
}

// Runs work(i, store) for i in [0, n), 0 on this thread with `store`, the
// others on threads of their own, each with a connection of its own; throws
// what one threw.
template <typename Work>
void onThreads(Store& store, std::size_t n, Work&& work) {
    std::vector<std::exception_ptr> errors(n);
    {
        std::vector<std::jthread> pool;
        for (std::size_t i = 1; i < n; ++i)
            pool.emplace_back([&, i] {
                try {
                    Store own(store.path(), Store::Options{true});
                    work(i, own);
                } catch (...) {
                    errors[i] = std::current_exception();
                }
            });
        try {
            work(0, store);
        } catch (...) {
            errors[0] = std::current_exception();
        }
    }
    for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
}

}  // namespace

std::optional<RunSummary> sliced(Store& store, RunId run, TimeWindow window,
                                 const std::string& label, unsigned threads,
                                 const std::function<bool()>& stop) {
    // Every slice reads the file through a connection of its own.
    if (store.path().empty() || store.path() == ":memory:") return std::nullopt;
    const auto plan = planSlices(store, run, window, threads);
    if (!plan || plan->cuts.empty()) return std::nullopt;

    std::vector<Slice> slices(plan->cuts.size() + 1);
    for (std::size_t i = 0; i < slices.size(); ++i) {
        slices[i].from = i == 0 ? kMin : plan->cuts[i - 1];
        slices[i].to = i + 1 == slices.size() ? kMax : plan->cuts[i];
        slices[i].first = i == 0;
        slices[i].last = i + 1 == slices.size();
    }

    // The run's ranges (every slice's calls and graph kernels look them up),
    // read in the same slices: rangesIn's result, part after part.
    std::vector<std::vector<RangeRecord>> rangeParts(slices.size());
    std::atomic<bool> reversed{false};
    onThreads(store, slices.size(), [&](std::size_t i, Store& own) {
        bool partReversed = false;
        rangeParts[i] = rangesStartingIn(own, run, {slices[i].from, slices[i].to}, &partReversed);
        if (partReversed) reversed.store(true);
    });
    if (reversed.load()) return std::nullopt;
    std::vector<RangeRecord> ranges;
    std::size_t rangeCount = 0;
    for (const auto& part : rangeParts)
        rangeCount += part.size();
    ranges.reserve(rangeCount);
    for (auto& part : rangeParts) {
        std::move(part.begin(), part.end(), std::back_inserter(ranges));
        part = {};
    }

    // The range stacks are built on a thread of their own meanwhile.
    auto building = std::async(std::launch::async, [&] { return RangeStacks(ranges); });
    RunSummary out;
    out.window = label;
    const GraphNodeOrigins origins(graphNodesOf(store, run));
    RangeStatIndex rangeIndex;
    const RangesInWindow inWindow = rangesInWindow(ranges, window, rangeIndex, out);

    Shared shared;
    shared.stop = &stop;
    shared.run = run;
    shared.window = window;
    StartOrderReader<codec::KernelBrief> names(store, run, window);  // and the first kernel
    const auto firstKernel = names.peekStart();
    shared.callWindow = {
        saturatingAdd(std::min(window.beginNs, firstKernel.value_or(window.beginNs)),
                      -kAttributionHorizonNs),
        window.endNs};
    const RangeStacks stacks = building.get();
    shared.ranges = &ranges;
    shared.stacks = &stacks;
    shared.origins = &origins;
    shared.inWindow = &inWindow;
    shared.rangeStats = out.ranges.size();

    std::vector<SlicePart> parts(slices.size());
    onThreads(store, slices.size(), [&](std::size_t i, Store& own) {
        try {
            summarizeSlice(own, shared, slices[i], parts[i]);
        } catch (...) {
            shared.giveUp.store(true);  // the others stop early
            throw;
        }
    });
    if (shared.stopped.load()) throw SummaryStopped{};
    if (shared.giveUp.load()) return std::nullopt;

    Totals totals;
    std::unordered_map<std::int64_t, std::size_t> kernelIndex;
    // Kernel time by innermost range, by range index: slices' maps add up in
    // one pass each, not one search per range.
    std::vector<KernelTime> byInnermost(ranges.size());
    for (std::size_t i = 0; i < parts.size(); ++i) {
        SlicePart& p = parts[i];
        if (!p.unresolved.empty()) resolve(store, shared, slices[i].from, p.unresolved, p.totals);
        mergeAccumulators(totals.kernelTimes, kernelIndex, p.totals.kernelTimes);
        totals.kernelTotal += p.totals.kernelTotal;
        for (auto& [innermost, t] : p.totals.byInnermost) {
            auto& into = byInnermost[innermost];
            into.ns += t.ns;
            into.count += t.count;
        }
        for (auto& [kind, c] : p.totals.copyTimes) {
            auto& into = totals.copyTimes[kind];
            into.ns.merge(c.ns);
            into.bytes += c.bytes;
        }
        totals.copyTotal += p.totals.copyTotal;
        totals.apiTally.merge(p.totals.apiTally);
        if (!totals.firstStart) totals.firstStart = p.totals.firstStart;
        if (p.totals.lastEnd)
            totals.lastEnd =
                totals.lastEnd ? std::max(*totals.lastEnd, *p.totals.lastEnd) : p.totals.lastEnd;
        out.gpuBusyNs += p.gpuBusyNs;
        for (std::size_t s = 0; s < p.rangeBusyNs.size(); ++s)
            out.ranges[s].gpuBusyNs += p.rangeBusyNs[s];
        out.graphs.kernels += p.graphs.kernels;
        out.graphs.kernelNs += p.graphs.kernelNs;
        out.graphs.traced += p.graphs.traced;
        out.graphs.tracedNs += p.graphs.tracedNs;
        out.graphs.inRange += p.graphs.inRange;
        out.graphs.inRangeNs += p.graphs.inRangeNs;
        p = SlicePart{};  // its tables are merged: free them
    }
    for (std::size_t r = 0; r < byInnermost.size(); ++r)
        if (byInnermost[r].count)
            totals.byInnermost.emplace_hint(totals.byInnermost.end(), r, byInnermost[r]);
    finishSummary(
        out, store, run, window, totals, rangeIndex, ranges, stacks,
        [&](std::int64_t id) -> const std::string& { return names.text(id); },
        [&](std::int64_t id) -> const std::string& { return names.text(id); });
    return out;
}

}  // namespace ws::summary
