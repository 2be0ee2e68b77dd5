#include "analysis/kernel_summary.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <unordered_map>

#include "analysis/kernel_attribution.h"
#include "analysis/kernel_counters.h"
#include "store/store.h"
#include "summary_parts.h"
#include "wire/event_codec.h"

namespace ws {

namespace {
DurationStats fromSummary(const stats::Summary& s) {
    return {static_cast<std::int64_t>(s.count),
            s.sum,
            s.mean,
            s.median,
            s.min,
            s.max,
            s.stddev,
            s.medianExact};
}
}  // namespace

DurationStats durations(const std::vector<double>& ns) {
    return fromSummary(stats::summarize(ns));
}

DurationStats durations(const stats::Accumulator& ns) {
    return fromSummary(ns.summary());
}

std::vector<KernelStat> kernelStats(const std::map<std::string, std::vector<double>>& timesByName,
                                    double totalNs) {
    std::vector<std::pair<std::string, DurationStats>> byName;
    for (const auto& [name, times] : timesByName)
        byName.emplace_back(name, durations(times));
    return kernelStats(std::move(byName), totalNs);
}

std::vector<KernelStat> kernelStats(std::vector<std::pair<std::string, DurationStats>> byName,
                                    double totalNs) {
    std::vector<KernelStat> out;
    for (auto& [name, time] : byName) {
        KernelStat s;
        s.mangled = std::move(name);
        s.demangled = demangle(s.mangled);
        s.name = shortKernelName(s.demangled);
        s.time = time;
        s.timePercent = totalNs > 0 ? 100.0 * s.time.totalNs / totalNs : 0;
        out.push_back(std::move(s));
    }
    // Rows whose short names collide (instantiations of one template:
    // PyTorch's elementwise_kernel<…> has dozens) keep their template
    // arguments, and overloads their whole signature, so no two rows read alike.
    auto disambiguate = [&](auto&& longer) {
        std::map<std::string, int> uses;
        for (const auto& k : out)
            ++uses[k.name];
        for (auto& k : out)
            if (uses[k.name] > 1) k.name = longer(k);
    };
    disambiguate([](const KernelStat& k) { return shortKernelName(k.demangled, true); });
    disambiguate([](const KernelStat& k) { return k.demangled; });
    std::sort(out.begin(), out.end(), [](const KernelStat& a, const KernelStat& b) {
        return a.time.totalNs > b.time.totalNs;
    });
    return out;
}

namespace {

using Interval = std::pair<std::int64_t, std::int64_t>;

std::vector<Interval> mergeIntervals(std::vector<Interval> v) {
    std::sort(v.begin(), v.end());
    std::vector<Interval> out;
    for (const auto& i : v) {
        if (!out.empty() && i.first <= out.back().second)
            out.back().second = std::max(out.back().second, i.second);
        else
            out.push_back(i);
    }
    return out;
}

}  // namespace

std::string demangle(const std::string& mangled) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> out(
        abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && out ? std::string(out.get()) : mangled;
}

std::string shortKernelName(const std::string& demangled, bool templateArgs) {
    // "(anonymous namespace)" is a namespace, not a parameter list.
    std::string text = demangled;
    for (std::size_t at; (at = text.find("(anonymous namespace)")) != std::string::npos;)
        text.replace(at, 21, "anonymous");
    // Cut the parameter list: the first '(' outside template brackets.
    std::string s, args;
    int depth = 0;
    for (char c : text) {
        if (c == '<') ++depth;
        if (c == '(' && depth == 0) break;
        if (depth == 0 && c != '>') {
            s += c;
            if (c == ' ' || c == ':') args.clear();  // the arguments of a later name
        } else {
            args += c;  // inside <…>, kept for templateArgs
        }
        if (c == '>') --depth;
    }
    // Drop the return type and namespaces.
    auto space = s.rfind(' ');
    if (space != std::string::npos) s = s.substr(space + 1);
    auto colons = s.rfind("::");
    if (colons != std::string::npos) s = s.substr(colons + 2);
    if (s.empty()) return demangled;
    return templateArgs ? s + args : s;
}

std::int64_t unionLength(std::vector<Interval> intervals) {
    std::int64_t total = 0;
    for (const auto& i : mergeIntervals(std::move(intervals)))
        total += i.second - i.first;
    return total;
}

TimeWindow measuredWindow(Store& store, RunId run) {
    auto requests = requestsOf(store, run);
    if (requests.empty()) return {};
    TimeWindow w{requests.front().startNs, requests.front().endNs};
    for (const auto& r : requests) {
        w.beginNs = std::min(w.beginNs, r.startNs);
        w.endNs = std::max(w.endNs, r.endNs);
    }
    return w;
}

namespace summary {

RunSummary onePass(Store& store, RunId run, TimeWindow window, std::string label,
                   const std::function<bool()>& stop) {
    RunSummary out;
    out.window = std::move(label);
    Totals totals;
    // Kernel time by the innermost range open where each kernel was launched,
    // or captured for a graph replay whose node creation was recorded (a
    // replay without one counts at its cudaGraphLaunch, as before graphs were
    // traced). Ranges outside the window count too: a graph may be captured
    // long before the window in which it is replayed.
    KernelAttribution attribution(store, run, KernelAttribution::Streamed{});
    const auto& ranges = attribution.ranges();
    auto& byInnermost = totals.byInnermost;

    // NVTX range stats, in the order of the ranges (by start).
    RangeStatIndex rangeIndex;
    const RangesInWindow inWindowRanges = rangesInWindow(ranges, window, rangeIndex, out);
    const auto& inWindow = inWindowRanges.byStart;
    const auto& statOfRange = inWindowRanges.statOfRange;

    // GPU busy: the union of kernels, copies and memsets as they arrive in
    // start order; each finished piece is credited to the ranges it overlaps.
    std::optional<Interval> busy;
    auto& firstStart = totals.firstStart;
    auto& lastEnd = totals.lastEnd;
    std::size_t nextRange = 0;
    std::vector<std::size_t> openRanges;
    auto finishPiece = [&](Interval piece) {
        out.gpuBusyNs += piece.second - piece.first;
        while (nextRange < inWindow.size() && ranges[inWindow[nextRange]].startNs < piece.second)
            openRanges.push_back(inWindow[nextRange++]);
        for (auto r : openRanges) {
            const auto overlap =
                std::min(piece.second, ranges[r].endNs) - std::max(piece.first, ranges[r].startNs);
            if (overlap > 0) out.ranges[statOfRange[r]].gpuBusyNs += static_cast<double>(overlap);
        }
        std::erase_if(openRanges, [&](std::size_t r) { return ranges[r].endNs <= piece.second; });
    };
    auto gpuInterval = [&](std::int64_t start, std::int64_t end) {
        if (!firstStart) firstStart = start;
        lastEnd = lastEnd ? std::max(*lastEnd, end) : end;
        if (busy && start <= busy->second) {
            busy->second = std::max(busy->second, end);
            return;
        }
        if (busy) finishPiece(*busy);
        busy = Interval{start, end};
    };

    // Kernels and API calls as briefs: names stay string ids (one to one with
    // their texts) until the rows are made, and no string is built per record.
    StartOrderReader<codec::KernelBrief> kernels(store, run, window);
    StartOrderReader<MemcpyRecord> copies(store, run, window);
    StartOrderReader<MemsetRecord> memsets(store, run, window);
    // API calls from that long before the first kernel: the launches, and the
    // ones in the window for cuda_api_sum.
    const auto firstKernel = kernels.peekStart();
    TimeWindow callWindow{
        saturatingAdd(std::min(window.beginNs, firstKernel.value_or(window.beginNs)),
                      -kAttributionHorizonNs),
        window.endNs};
    StartOrderReader<codec::ApiCallBrief> calls(store, run, callWindow);
    auto& apiTally = totals.apiTally;
    bool kernelsLeft = true;  // launches after the last kernel launch nothing counted
    GraphLaunchNames graphLaunchNames;
    auto launchesGraph = [&](std::int64_t nameId) {
        return graphLaunchNames(
            nameId, [&](std::int64_t id) -> const std::string& { return calls.text(id); });
    };
    auto readCallsUntil = [&](std::int64_t ns) {
        for (auto start = calls.peekStart(); start && *start <= ns; start = calls.peekStart()) {
            const codec::ApiCallBrief& c = *calls.next();
            if (kernelsLeft && c.correlationId)
                attribution.addLaunch(c.correlationId, c.threadId, c.startNs,
                                      launchesGraph(c.nameId));
            if (overlaps(c.startNs, c.endNs, window)) apiTally.add(c);
        }
    };

    KernelTimeRows kernelTimes(totals.kernelTimes);
    double& kernelTotal = totals.kernelTotal;
    auto onKernel = [&](const codec::KernelBrief& k) {
        kernelTimes.add(k.nameId, k.durationNs());
        if (k.graphNodeId) {
            ++out.graphs.kernels;
            out.graphs.kernelNs += static_cast<double>(k.durationNs());
        }
        if (attribution.hasRanges()) {
            readCallsUntil(saturatingAdd(k.startNs, kLaunchSkewNs));
            attribution.forgetLaunchesBefore(saturatingAdd(k.startNs, -kAttributionHorizonNs));
        }
        bool captured = false;
        const std::size_t innermost =
            attribution.credit(k.graphNodeId, k.graphId, k.correlationId, &captured);
        if (captured) {
            ++out.graphs.traced;
            out.graphs.tracedNs += static_cast<double>(k.durationNs());
        }
        if (innermost != RangeStacks::kNone) {
            auto& t = byInnermost[innermost];
            t.ns += k.durationNs();
            ++t.count;
            if (captured) {
                ++out.graphs.inRange;
                out.graphs.inRangeNs += static_cast<double>(k.durationNs());
            }
        }
        kernelTotal += static_cast<double>(k.durationNs());
        gpuInterval(k.startNs, k.endNs);
    };

    // Kernels, copies and memsets merged by start (ties: kernels first).
    mergeByStart(
        kernels, copies, memsets, onKernel,
        [&](const MemcpyRecord& m) {
            totals.addCopy(m);
            gpuInterval(m.startNs, m.endNs);
        },
        [&](const MemsetRecord& m) { gpuInterval(m.startNs, m.endNs); },
        [&] {
            if (stop && stop()) throw SummaryStopped{};
            return true;
        });
    if (busy) finishPiece(*busy);
    kernelsLeft = false;  // the rest only for cuda_api_sum
    readCallsUntil(std::numeric_limits<std::int64_t>::max());
    finishSummary(
        out, store, run, window, totals, rangeIndex, ranges, attribution.stacks(),
        [&](std::int64_t id) -> const std::string& { return kernels.text(id); },
        [&](std::int64_t id) -> const std::string& { return calls.text(id); });
    return out;
}

}  // namespace summary

namespace {

// WARPSCOPE_SUMMARY_THREADS=N picks the slices (1: the one pass), to compare
// or to time them; otherwise 0, one per core.
unsigned threadsFromEnvironment() {
    const char* text = std::getenv("WARPSCOPE_SUMMARY_THREADS");
    if (!text || !*text) return 0;
    char* end = nullptr;
    const unsigned long n = std::strtoul(text, &end, 10);
    return *end == '\0' && n > 0 && n <= 1024 ? static_cast<unsigned>(n) : 0;
}

}  // namespace

RunSummary summarizeRun(Store& store, RunId run, TimeWindow window, std::string label) {
    return summarizeRun(store, run, window, std::move(label), 0);
}

std::optional<RunSummary> summarizeRunSliced(Store& store, RunId run, TimeWindow window,
                                             const std::string& label, unsigned threads) {
    return summary::sliced(store, run, window, label, threads);
}

RunSummary summarizeRun(Store& store, RunId run, TimeWindow window, std::string label,
                        unsigned threads, const std::function<bool()>& stop) {
    if (threads == 0) threads = threadsFromEnvironment();
    if (threads != 1)
        if (auto sliced = summary::sliced(store, run, window, label, threads, stop)) return *sliced;
    return summary::onePass(store, run, window, std::move(label), stop);
}

}  // namespace ws
