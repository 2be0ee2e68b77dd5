#include "io/chrome_trace.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_set>

#include "analysis/kernel_summary.h"
#include "correlation_bits.h"
#include "counter_series.h"
#include "store/run_queries.h"
#include "store/store.h"

namespace ws {

namespace {

using nlohmann::ordered_json;

// GPUs appear as their own processes, after any real pid.
constexpr std::int64_t kGpuPidBase = 1'000'000'000;

class Writer {
  public:
    Writer(std::ostream& out, std::int64_t originNs) : out_(out), origin_(originNs) {
        out_ << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
    }
    ~Writer() { out_ << "\n]}\n"; }

    double us(std::int64_t ns) const { return static_cast<double>(ns - origin_) / 1000.0; }
    void emit(const ordered_json& e) {
        out_ << (first_ ? "" : ",\n")
             << e.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        first_ = false;
        ++stats.events;
    }
    void slice(const std::string& name, const char* cat, std::int64_t pid, std::int64_t tid,
               std::int64_t start, std::int64_t end, ordered_json args) {
        emit({{"name", name},
              {"cat", cat},
              {"ph", "X"},
              {"pid", pid},
              {"tid", tid},
              {"ts", us(start)},
              {"dur", static_cast<double>(end - start) / 1000.0},
              {"args", std::move(args)}});
    }
    void meta(const char* what, std::int64_t pid, std::int64_t tid, const std::string& name) {
        emit({{"name", what}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}});
    }
    ChromeTraceStats stats;

  private:
    std::ostream& out_;
    std::int64_t origin_;
    bool first_ = true;
};

}  // namespace

ChromeTraceStats exportChromeTrace(Store& store, RunId run, std::ostream& out, TimeWindow window) {
    auto info = requireRun(store, run);
    auto agg = runAggregates(store, run);
    // Timestamps from the run's first record, samples included (NVML samples
    // can precede the first CUPTI record), so none is negative.
    auto samples = samplesOf(store, run);
    std::int64_t origin = agg.firstNs.value_or(0);
    for (const auto& s : samples)
        origin = std::min(origin, s.timeNs);
    CorrelationBits launched;  // correlation ids with a kernel
    {
        Writer w(out, origin);
        std::unordered_set<std::int64_t> namedPids;
        auto gpuPid = [&](std::uint32_t device) {
            std::int64_t pid = kGpuPidBase + device;
            if (namedPids.insert(pid).second)
                w.meta("process_name", pid, 0,
                       (info.device.empty() ? std::string("GPU") : info.device) + " (device " +
                           std::to_string(device) + ")");
            return pid;
        };
        // Host processes and threads named as Perfetto and chrome://tracing
        // show them, with the run they belong to.
        std::unordered_set<std::int64_t> namedHostPids;
        std::set<std::pair<std::int64_t, std::int64_t>> namedThreads;
        auto hostLane = [&](std::uint32_t pid, std::uint32_t tid) {
            if (namedHostPids.insert(pid).second)
                w.meta("process_name", pid, 0,
                       "run " + std::to_string(run) +
                           (info.label.empty() ? std::string() : ": " + info.label) + " (pid " +
                           std::to_string(pid) + ")");
            if (namedThreads.emplace(pid, tid).second)
                w.meta("thread_name", pid, tid, "thread " + std::to_string(tid));
        };
        for (const auto& key : runStreams(store, run))
            w.meta("thread_name", gpuPid(key.deviceId), key.streamId,
                   "Stream " + std::to_string(key.streamId));
        forEachKernel(store, run, window, std::nullopt, [&](const KernelRecord& k) {
            std::int64_t pid = gpuPid(k.deviceId);
            // Demangled, as Nsight Systems shows kernels; the mangled name
            // stays as an argument for tools that match on it.
            w.slice(demangle(k.name), "kernel", pid, k.streamId, k.startNs, k.endNs,
                    {{"mangled_name", k.name},
                     {"grid", {k.gridX, k.gridY, k.gridZ}},
                     {"block", {k.blockX, k.blockY, k.blockZ}},
                     {"registers_per_thread", k.registersPerThread},
                     {"static_smem", k.staticSharedBytes},
                     {"dynamic_smem", k.dynamicSharedBytes},
                     {"correlation_id", k.correlationId}});
            // Flow end: binds to the kernel slice that starts here.
            w.emit({{"name", "launch"},
                    {"cat", "launch"},
                    {"ph", "f"},
                    {"bp", "e"},
                    {"id", k.correlationId},
                    {"pid", pid},
                    {"tid", k.streamId},
                    {"ts", w.us(k.startNs)}});
            launched.set(k.correlationId);
        });
        forEachMemcpy(store, run, window, std::nullopt, [&](const MemcpyRecord& m) {
            w.slice(std::string("Memcpy ") + toString(m.kind), "memcpy", gpuPid(m.deviceId),
                    m.streamId, m.startNs, m.endNs,
                    {{"bytes", m.bytes},
                     {"src", toString(m.srcKind)},
                     {"dst", toString(m.dstKind)},
                     {"correlation_id", m.correlationId}});
        });
        forEachMemset(store, run, window, std::nullopt, [&](const MemsetRecord& m) {
            w.slice("Memset", "memset", gpuPid(m.deviceId), m.streamId, m.startNs, m.endNs,
                    {{"bytes", m.bytes}, {"value", m.value}});
        });
        forEachApiCall(store, run, window, std::nullopt, [&](const ApiCallRecord& a) {
            hostLane(a.processId, a.threadId);
            w.slice(a.name, a.kind == ApiKind::Runtime ? "cuda_runtime" : "cuda_driver",
                    a.processId, a.threadId, a.startNs, a.endNs,
                    {{"correlation_id", a.correlationId}, {"return", a.returnValue}});
            if (launched.test(a.correlationId)) {
                w.emit({{"name", "launch"},
                        {"cat", "launch"},
                        {"ph", "s"},
                        {"id", a.correlationId},
                        {"pid", a.processId},
                        {"tid", a.threadId},
                        {"ts", w.us(a.startNs)}});
                ++w.stats.flows;
            }
        });
        forEachRange(store, run, window, std::nullopt, [&](const RangeRecord& r) {
            hostLane(r.processId, r.threadId);
            if (r.kind == RangeKind::Mark) {
                w.emit({{"name", r.name},
                        {"cat", "nvtx"},
                        {"ph", "i"},
                        {"s", "t"},
                        {"pid", r.processId},
                        {"tid", r.threadId},
                        {"ts", w.us(r.startNs)},
                        {"args", {{"domain", r.domain}}}});
            } else {
                w.slice(r.name, "nvtx", r.processId, r.threadId, r.startNs, r.endNs,
                        {{"domain", r.domain}});
            }
        });
        // Device samples, NVLink (one counter with a series per direction:
        // Perfetto draws a track per series, chrome://tracing stacks them) and
        // GPU metrics.
        forEachCounterPoint(store, run, window, samples, [&](const CounterPoint& p) {
            ordered_json args = ordered_json::object();
            for (const auto& [series, value] : p.values)
                args[series] = value;
            w.emit({{"name", p.counter},
                    {"ph", "C"},
                    {"pid", gpuPid(p.device)},
                    {"ts", w.us(p.timeNs)},
                    {"args", std::move(args)}});
        });
        return w.stats;
    }
}

}  // namespace ws
