#include "analysis/kernel_summary.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>

#include "analysis/kernel_attribution.h"
#include "analysis/kernel_counters.h"
#include "store/store.h"

namespace ws {

DurationStats durations(const std::vector<double>& ns) {
    auto s = stats::summarize(ns);
    return {static_cast<std::int64_t>(s.count), s.sum, s.mean, s.median, s.min, s.max, s.stddev};
}

std::vector<KernelStat> kernelStats(const std::map<std::string, std::vector<double>>& timesByName,
                                    double totalNs) {
    std::vector<KernelStat> out;
    for (const auto& [name, times] : timesByName) {
        KernelStat s;
        s.mangled = name;
        s.demangled = demangle(name);
        s.name = shortKernelName(s.demangled);
        s.time = durations(times);
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

// GPU busy time inside [from, to), from intervals sorted by start.
std::int64_t busyWithin(const std::vector<Interval>& merged, std::int64_t from, std::int64_t to) {
    std::int64_t busy = 0;
    auto it =
        std::lower_bound(merged.begin(), merged.end(), Interval{from, from},
                         [](const Interval& a, const Interval& b) { return a.second < b.first; });
    for (; it != merged.end() && it->first < to; ++it)
        busy += std::max<std::int64_t>(0, std::min(it->second, to) - std::max(it->first, from));
    return busy;
}

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

std::vector<ApiStat> apiStats(Store& store, RunId run, TimeWindow window) {
    struct Calls {
        ApiKind kind;
        std::vector<double> ns;
        std::int64_t errors = 0;
    };
    std::map<std::string, Calls> byName;
    double total = 0;
    forEachApiCall(store, run, window, std::nullopt, [&](const ApiCallRecord& c) {
        auto [it, inserted] = byName.try_emplace(c.name, Calls{c.kind, {}, 0});
        it->second.ns.push_back(static_cast<double>(c.endNs - c.startNs));
        if (c.returnValue != 0) ++it->second.errors;
        total += static_cast<double>(c.endNs - c.startNs);
    });
    std::vector<ApiStat> out;
    for (auto& [name, calls] : byName) {
        ApiStat s;
        s.name = name;
        s.kind = calls.kind;
        s.time = durations(calls.ns);
        s.timePercent = total > 0 ? 100.0 * s.time.totalNs / total : 0;
        s.errors = calls.errors;
        out.push_back(std::move(s));
    }
    std::sort(out.begin(), out.end(),
              [](const ApiStat& a, const ApiStat& b) { return a.time.totalNs > b.time.totalNs; });
    return out;
}

RunSummary summarizeRun(Store& store, RunId run, TimeWindow window, std::string label) {
    RunSummary out;
    out.window = std::move(label);
    std::vector<Interval> gpu;
    std::map<std::string, std::vector<double>> kernelTimes;
    struct KernelTime {
        std::int64_t ns = 0;
        std::int64_t count = 0;
    };
    // Kernel time by the innermost range open where each kernel was launched,
    // or captured for a graph replay whose node creation was recorded (a
    // replay without one counts at its cudaGraphLaunch, as before graphs were
    // traced). Ranges outside the window count too: a graph may be captured
    // long before the window in which it is replayed.
    KernelAttribution attribution(store, run);
    std::map<std::size_t, KernelTime> byInnermost;
    double kernelTotal = 0;
    forEachKernel(store, run, window, std::nullopt, [&](const KernelRecord& k) {
        kernelTimes[k.name].push_back(static_cast<double>(k.durationNs()));
        if (k.graphNodeId) {
            ++out.graphs.kernels;
            out.graphs.kernelNs += static_cast<double>(k.durationNs());
        }
        bool captured = false;
        const std::size_t innermost = attribution.innermost(k, &captured);
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
        gpu.emplace_back(k.startNs, k.endNs);
    });
    auto counted = kernelCounterStats(store, run, window);
    out.kernels = kernelStats(kernelTimes, kernelTotal);
    for (auto& s : out.kernels)
        if (auto c = counted.find(s.mangled); c != counted.end() && c->second.meanNs > 0) {
            s.dramGBs = c->second.dramGBs();
            if (c->second.flopsCounted) s.tflops = c->second.meanFlops / c->second.meanNs * 1e-3;
            s.achievedOccupancy = c->second.achievedOccupancy;
        }

    std::map<MemcpyKind, std::pair<std::vector<double>, std::int64_t>> copies;
    double copyTotal = 0;
    forEachMemcpy(store, run, window, std::nullopt, [&](const MemcpyRecord& m) {
        auto& c = copies[m.kind];
        c.first.push_back(static_cast<double>(m.endNs - m.startNs));
        c.second += m.bytes;
        copyTotal += static_cast<double>(m.endNs - m.startNs);
        gpu.emplace_back(m.startNs, m.endNs);
    });
    for (auto& [kind, c] : copies) {
        MemcpyStat s;
        s.kind = kind;
        s.time = durations(c.first);
        s.totalBytes = c.second;
        s.gbPerS = s.time.totalNs > 0 ? static_cast<double>(s.totalBytes) / s.time.totalNs : 0;
        s.timePercent = copyTotal > 0 ? 100.0 * s.time.totalNs / copyTotal : 0;
        out.memcpys.push_back(s);
    }
    std::sort(out.memcpys.begin(), out.memcpys.end(), [](const MemcpyStat& a, const MemcpyStat& b) {
        return a.time.totalNs > b.time.totalNs;
    });
    forEachMemset(store, run, window, std::nullopt,
                  [&](const MemsetRecord& m) { gpu.emplace_back(m.startNs, m.endNs); });
    out.apiCalls = apiStats(store, run, window);

    auto merged = mergeIntervals(gpu);
    for (const auto& i : merged)
        out.gpuBusyNs += i.second - i.first;
    if (!merged.empty()) out.gpuSpanNs = merged.back().second - merged.front().first;
    out.gpuBusyFraction =
        out.gpuSpanNs > 0 ? static_cast<double>(out.gpuBusyNs) / static_cast<double>(out.gpuSpanNs)
                          : 0;

    // NVTX ranges: durations and GPU busy inside each instance in the window;
    // kernels credited to the ranges open where they were launched.
    const auto& ranges = attribution.ranges();
    std::map<std::pair<std::string, std::string>, std::size_t> index;
    std::vector<std::vector<double>> rangeTimes;
    auto statOf = [&](const RangeRecord& r) {
        auto [it, inserted] = index.try_emplace({r.domain, r.name}, out.ranges.size());
        if (inserted) {
            RangeStat stat;
            stat.name = r.name;
            stat.domain = r.domain;
            out.ranges.push_back(stat);
            rangeTimes.emplace_back();
        }
        return it->second;
    };
    for (const auto& r : ranges) {
        if (r.kind == RangeKind::Mark || r.endNs < window.beginNs || r.startNs > window.endNs)
            continue;
        auto stat = statOf(r);
        rangeTimes[stat].push_back(static_cast<double>(r.endNs - r.startNs));
        out.ranges[stat].gpuBusyNs += static_cast<double>(busyWithin(merged, r.startNs, r.endNs));
    }
    // Kernels credited to their innermost range (self) and every range
    // around it (inclusive), each range name once.
    std::vector<std::size_t> credited;  // range stats already given these kernels
    for (const auto& [innermostRange, kernel] : byInnermost) {
        credited.clear();
        bool innermost = true;
        for (auto r = innermostRange; r != RangeStacks::kNone;
             r = attribution.stacks().parent(r), innermost = false) {
            auto id = statOf(ranges[r]);
            auto& stat = out.ranges[id];
            if (innermost) stat.selfKernelNs += static_cast<double>(kernel.ns);
            if (std::find(credited.begin(), credited.end(), id) != credited.end()) continue;
            credited.push_back(id);
            stat.inclusiveKernelNs += static_cast<double>(kernel.ns);
            stat.inclusiveKernels += kernel.count;
        }
    }
    for (std::size_t i = 0; i < out.ranges.size(); ++i) {
        out.ranges[i].time = durations(rangeTimes[i]);
        out.ranges[i].gpuBusyFraction = out.ranges[i].time.totalNs > 0
                                            ? out.ranges[i].gpuBusyNs / out.ranges[i].time.totalNs
                                            : 0;
    }
    std::sort(out.ranges.begin(), out.ranges.end(), [](const RangeStat& a, const RangeStat& b) {
        return a.time.totalNs > b.time.totalNs;
    });
    return out;
}

}  // namespace ws
