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

namespace {

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
    template <typename Text>
    std::vector<ApiStat> stats(Text&& text) const {
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
            return a.time.totalNs != b.time.totalNs ? a.time.totalNs > b.time.totalNs
                                                    : a.name < b.name;
        });
        return out;
    }

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

std::int64_t saturatingAdd(std::int64_t a, std::int64_t b) {
    constexpr auto lo = std::numeric_limits<std::int64_t>::min();
    constexpr auto hi = std::numeric_limits<std::int64_t>::max();
    if (b > 0 && a > hi - b) return hi;
    if (b < 0 && a < lo - b) return lo;
    return a + b;
}

bool overlaps(std::int64_t start, std::int64_t end, TimeWindow w) {
    return start < w.endNs && end > w.beginNs;
}

// A launch's kernel can carry a GPU timestamp a little before its call's CPU
// one in imported traces; calls up to this far after a kernel's start are
// read before the kernel is attributed.
constexpr std::int64_t kLaunchSkewNs = 1'000'000;

}  // namespace

RunSummary summarizeRun(Store& store, RunId run, TimeWindow window, std::string label) {
    RunSummary out;
    out.window = std::move(label);
    struct KernelTime {
        std::int64_t ns = 0;
        std::int64_t count = 0;
    };
    // Kernel time by the innermost range open where each kernel was launched,
    // or captured for a graph replay whose node creation was recorded (a
    // replay without one counts at its cudaGraphLaunch, as before graphs were
    // traced). Ranges outside the window count too: a graph may be captured
    // long before the window in which it is replayed.
    KernelAttribution attribution(store, run, KernelAttribution::Streamed{});
    const auto& ranges = attribution.ranges();
    std::map<std::size_t, KernelTime> byInnermost;

    // NVTX range stats, in the order of the ranges (by start).
    std::map<std::pair<std::string, std::string>, std::size_t> index;
    std::vector<stats::Accumulator> rangeTimes;
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
    std::vector<std::size_t> inWindow;  // ranges by start, with their stat
    std::vector<std::size_t> statOfRange(ranges.size(), 0);
    for (std::size_t i = 0; i < ranges.size(); ++i) {
        const auto& r = ranges[i];
        if (r.kind == RangeKind::Mark || r.endNs < window.beginNs || r.startNs > window.endNs)
            continue;
        statOfRange[i] = statOf(r);
        rangeTimes[statOfRange[i]].add(r.endNs - r.startNs);
        inWindow.push_back(i);
    }
    std::stable_sort(inWindow.begin(), inWindow.end(), [&](std::size_t a, std::size_t b) {
        return ranges[a].startNs < ranges[b].startNs;
    });

    // GPU busy: the union of kernels, copies and memsets as they arrive in
    // start order; each finished piece is credited to the ranges it overlaps.
    std::optional<Interval> busy;
    std::optional<std::int64_t> firstStart, lastEnd;
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
    // A launch is remembered this long for its kernel's NVTX range: a kernel
    // can start long after its launch call when the CPU runs ahead of the GPU
    // (a deep queue, work behind a long kernel or a blocked collective); 2 s,
    // the launch-search window, dropped such kernels from their ranges.
    constexpr std::int64_t kAttributionHorizonNs = 30'000'000'000;
    // API calls from that long before the first kernel: the launches, and the
    // ones in the window for cuda_api_sum.
    const auto firstKernel = kernels.peekStart();
    TimeWindow callWindow{
        saturatingAdd(std::min(window.beginNs, firstKernel.value_or(window.beginNs)),
                      -kAttributionHorizonNs),
        window.endNs};
    StartOrderReader<codec::ApiCallBrief> calls(store, run, callWindow);
    ApiTally apiTally;
    bool kernelsLeft = true;  // launches after the last kernel launch nothing counted
    // Whether calls of a name launch CUDA graphs, by name id (calls of one
    // name come in runs: the last answer is kept).
    std::unordered_map<std::int64_t, bool> graphLaunchNames;
    std::int64_t lastCallName = -1;
    bool lastGraphLaunch = false;
    auto launchesGraph = [&](std::int64_t nameId) {
        if (nameId != lastCallName) {
            auto [it, inserted] = graphLaunchNames.try_emplace(nameId, false);
            if (inserted) {
                const std::string& name = calls.text(nameId);
                it->second =
                    name.starts_with("cudaGraphLaunch") || name.starts_with("cuGraphLaunch");
            }
            lastCallName = nameId;
            lastGraphLaunch = it->second;
        }
        return lastGraphLaunch;
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

    std::unordered_map<std::int64_t, std::size_t> kernelIndex;
    std::vector<std::pair<std::int64_t, stats::Accumulator>> kernelTimes;  // by name id
    std::size_t lastKernel = 0;
    double kernelTotal = 0;
    auto onKernel = [&](const codec::KernelBrief& k) {
        if (kernelTimes.empty() || kernelTimes[lastKernel].first != k.nameId) {
            auto [slot, inserted] = kernelIndex.try_emplace(k.nameId, kernelTimes.size());
            if (inserted) kernelTimes.emplace_back(k.nameId, stats::Accumulator{});
            lastKernel = slot->second;
        }
        kernelTimes[lastKernel].second.add(k.durationNs());
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

    struct Copies {
        stats::Accumulator ns;
        std::int64_t bytes = 0;
    };
    std::map<MemcpyKind, Copies> copyTimes;
    double copyTotal = 0;
    auto onCopy = [&](const MemcpyRecord& m) {
        auto& c = copyTimes[m.kind];
        c.ns.add(m.endNs - m.startNs);
        c.bytes += m.bytes;
        copyTotal += static_cast<double>(m.endNs - m.startNs);
        gpuInterval(m.startNs, m.endNs);
    };

    // Kernels, copies and memsets merged by start (ties: kernels first).
    constexpr auto kEnd = std::numeric_limits<std::int64_t>::max();
    for (;;) {
        const auto kp = kernels.peekStart(), cp = copies.peekStart(), mp = memsets.peekStart();
        if (!kp && !cp && !mp) break;
        const auto k = kp.value_or(kEnd), c = cp.value_or(kEnd), m = mp.value_or(kEnd);
        if (k <= c && k <= m && kp) {
            onKernel(*kernels.next());
        } else if (c <= m && cp) {
            onCopy(*copies.next());
        } else {
            const MemsetRecord& s = *memsets.next();
            gpuInterval(s.startNs, s.endNs);
        }
    }
    if (busy) finishPiece(*busy);
    kernelsLeft = false;  // the rest only for cuda_api_sum
    readCallsUntil(kEnd);
    out.apiCalls = apiTally.stats([&](std::int64_t id) { return calls.text(id); });

    std::vector<std::pair<std::string, DurationStats>> kernelRows;
    for (auto& [nameId, times] : kernelTimes)
        kernelRows.emplace_back(kernels.text(nameId), durations(times));
    std::sort(kernelRows.begin(), kernelRows.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    out.kernels = kernelStats(std::move(kernelRows), kernelTotal);
    auto counted = kernelCounterStats(store, run, window);
    for (auto& s : out.kernels)
        if (auto c = counted.find(s.mangled); c != counted.end() && c->second.meanNs > 0) {
            s.dramGBs = c->second.dramGBs();
            if (c->second.flopsCounted) s.tflops = c->second.meanFlops / c->second.meanNs * 1e-3;
            s.achievedOccupancy = c->second.achievedOccupancy;
        }

    for (auto& [kind, c] : copyTimes) {
        MemcpyStat s;
        s.kind = kind;
        s.time = durations(c.ns);
        s.totalBytes = c.bytes;
        s.gbPerS = s.time.totalNs > 0 ? static_cast<double>(s.totalBytes) / s.time.totalNs : 0;
        s.timePercent = copyTotal > 0 ? 100.0 * s.time.totalNs / copyTotal : 0;
        out.memcpys.push_back(s);
    }
    std::sort(out.memcpys.begin(), out.memcpys.end(), [](const MemcpyStat& a, const MemcpyStat& b) {
        return a.time.totalNs > b.time.totalNs;
    });

    if (firstStart) out.gpuSpanNs = *lastEnd - *firstStart;
    out.gpuBusyFraction =
        out.gpuSpanNs > 0 ? static_cast<double>(out.gpuBusyNs) / static_cast<double>(out.gpuSpanNs)
                          : 0;

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
