#include "io/perfetto_trace.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analysis/kernel_summary.h"
#include "correlation_bits.h"
#include "counter_series.h"
#include "proto_encoder.h"
#include "store/store.h"

namespace ws {

namespace {

// Field numbers of perfetto_trace.proto (protos/perfetto/trace/ in the
// Perfetto repository): TracePacket, TrackDescriptor and what it holds,
// TrackEvent and DebugAnnotation.
namespace packet {
constexpr int kTimestamp = 8, kSequenceId = 10, kTrackEvent = 11, kInternedData = 12,
              kSequenceFlags = 13, kTrackDescriptor = 60;
// SequenceFlags: the first packet clears the sequence's interned state, every
// event packet reads it.
constexpr std::uint64_t kIncrementalStateCleared = 1, kNeedsIncrementalState = 2;
}  // namespace packet
// InternedData's tables (each entry {iid = 1, name or str = 2}).
namespace interned {
constexpr int kCategories = 1, kEventNames = 2, kAnnotationNames = 3, kAnnotationStrings = 29;
}
namespace track {
constexpr int kUuid = 1, kName = 2, kProcess = 3, kThread = 4, kParentUuid = 5, kCounter = 8,
              kChildOrdering = 11, kSiblingOrderRank = 12;
constexpr std::uint64_t kOrderExplicit = 3;  // ChildTracksOrdering EXPLICIT
}  // namespace track
namespace process_descriptor {
constexpr int kPid = 1, kProcessName = 6;
}
namespace thread_descriptor {
constexpr int kPid = 1, kTid = 2, kThreadName = 5;
}
namespace event {
constexpr int kCategoryIids = 3, kDebugAnnotations = 4, kType = 9, kNameIid = 10, kTrackUuid = 11,
              kDoubleCounterValue = 44, kFlowIds = 47, kTerminatingFlowIds = 48;
constexpr std::uint64_t kSliceBegin = 1, kSliceEnd = 2, kInstant = 3, kCounterValue = 4;
}  // namespace event
namespace annotation {
constexpr int kNameIid = 1, kIntValue = 4, kStringValueIid = 17;
}

constexpr std::uint32_t kSequence = 1;  // one writer: every packet on one sequence
// GPUs appear as their own processes, after any real pid (as in the
// chrome-trace export).
constexpr std::int64_t kGpuPidBase = 1'000'000'000;

// Names, categories and argument names and texts are interned: written once
// per sequence in the packet that first uses them, then referred to by id.
class Writer {
  public:
    explicit Writer(std::ostream& out) : out_(out) {}

    void annotate(proto::Message& event, const char* name, std::int64_t value) {
        proto::Message a;
        a.varint(annotation::kNameIid, intern(annotationNames_, interned::kAnnotationNames, name));
        a.signedVarint(annotation::kIntValue, value);
        event.message(event::kDebugAnnotations, a);
    }
    void annotate(proto::Message& event, const char* name, const std::string& value) {
        proto::Message a;
        a.varint(annotation::kNameIid, intern(annotationNames_, interned::kAnnotationNames, name));
        a.varint(annotation::kStringValueIid,
                 intern(annotationStrings_, interned::kAnnotationStrings, value));
        event.message(event::kDebugAnnotations, a);
    }

    std::uint64_t processTrack(std::int64_t pid, const std::string& name, bool orderChildren) {
        proto::Message process;
        process.signedVarint(process_descriptor::kPid, pid);
        process.bytes(process_descriptor::kProcessName, name);
        proto::Message d;
        const auto uuid = describe(d);
        d.message(track::kProcess, process);
        if (orderChildren) d.varint(track::kChildOrdering, track::kOrderExplicit);
        return emitTrack(d, uuid);
    }
    std::uint64_t threadTrack(std::int64_t pid, std::int64_t tid, const std::string& name) {
        proto::Message thread;
        thread.signedVarint(thread_descriptor::kPid, pid);
        thread.signedVarint(thread_descriptor::kTid, tid);
        thread.bytes(thread_descriptor::kThreadName, name);
        proto::Message d;
        const auto uuid = describe(d);
        d.message(track::kThread, thread);
        return emitTrack(d, uuid);
    }
    // A named track under `parent`: a GPU stream (ranked by its id), a
    // thread's CUDA API calls, a lane of start/end ranges, or a counter.
    std::uint64_t childTrack(std::uint64_t parent, const std::string& name,
                             std::optional<std::int64_t> rank = std::nullopt,
                             bool counter = false) {
        proto::Message d;
        const auto uuid = describe(d);
        d.varint(track::kParentUuid, parent);
        d.bytes(track::kName, name);
        if (rank) d.signedVarint(track::kSiblingOrderRank, *rank);
        if (counter) d.message(track::kCounter, proto::Message{});
        return emitTrack(d, uuid);
    }

    // A slice from BEGIN to END; `annotations` adds the BEGIN event's arguments.
    template <typename Annotate>
    void slice(std::uint64_t track, std::int64_t start, std::int64_t end, const std::string& name,
               const char* category, Annotate&& annotations) {
        event_.clear();
        event_.varint(event::kType, event::kSliceBegin);
        event_.varint(event::kTrackUuid, track);
        named(name, category);
        annotations(event_);
        emitEvent(start);
        event_.clear();
        event_.varint(event::kType, event::kSliceEnd);
        event_.varint(event::kTrackUuid, track);
        emitEvent(std::max(end, start));
        ++stats.slices;
    }
    void instant(std::uint64_t track, std::int64_t at, const std::string& name,
                 const char* category) {
        event_.clear();
        event_.varint(event::kType, event::kInstant);
        event_.varint(event::kTrackUuid, track);
        named(name, category);
        emitEvent(at);
    }
    void counter(std::uint64_t track, std::int64_t at, double value) {
        event_.clear();
        event_.varint(event::kType, event::kCounterValue);
        event_.varint(event::kTrackUuid, track);
        event_.doubleValue(event::kDoubleCounterValue, value);
        emitEvent(at);
        ++stats.counterValues;
    }

    PerfettoTraceStats stats;

  private:
    // The id of `text` in `table`, interned with this packet if it is new.
    std::uint64_t intern(std::unordered_map<std::string, std::uint64_t>& table, int field,
                         const std::string& text) {
        auto [it, added] = table.emplace(text, table.size() + 1);
        if (added) {
            proto::Message entry;
            entry.varint(1, it->second);
            entry.bytes(2, text);
            interned_.message(field, entry);
        }
        return it->second;
    }
    void named(const std::string& name, const char* category) {
        event_.varint(event::kNameIid, intern(names_, interned::kEventNames, name));
        event_.varint(event::kCategoryIids, intern(categories_, interned::kCategories, category));
    }
    std::uint64_t describe(proto::Message& d) {
        const std::uint64_t uuid = nextUuid_++;
        d.varint(track::kUuid, uuid);
        return uuid;
    }
    std::uint64_t emitTrack(const proto::Message& d, std::uint64_t uuid) {
        packet_.clear();
        packet_.message(packet::kTrackDescriptor, d);
        emitPacket();
        ++stats.tracks;
        return uuid;
    }
    void emitEvent(std::int64_t at) {
        packet_.clear();
        packet_.varint(packet::kTimestamp,
                       static_cast<std::uint64_t>(std::max<std::int64_t>(0, at)));
        packet_.message(packet::kTrackEvent, event_);
        if (!interned_.data().empty()) {
            packet_.message(packet::kInternedData, interned_);
            interned_.clear();
        }
        emitPacket(packet::kNeedsIncrementalState);
    }
    void emitPacket(std::uint64_t flags = 0) {
        packet_.varint(packet::kSequenceId, kSequence);
        if (stats.packets == 0) flags |= packet::kIncrementalStateCleared;
        if (flags) packet_.varint(packet::kSequenceFlags, flags);
        trace_.clear();
        trace_.message(1, packet_);  // Trace.packet
        out_.write(trace_.data().data(), static_cast<std::streamsize>(trace_.data().size()));
        ++stats.packets;
    }

    std::ostream& out_;
    std::uint64_t nextUuid_ = 1;
    proto::Message event_, packet_, trace_, interned_;
    std::unordered_map<std::string, std::uint64_t> names_, categories_, annotationNames_,
        annotationStrings_;
};

}  // namespace

PerfettoTraceStats exportPerfettoTrace(Store& store, RunId run, std::ostream& out,
                                       TimeWindow window) {
    const auto info = requireRun(store, run);
    Writer w(out);
    // GPUs and their streams.
    std::map<std::uint32_t, std::uint64_t> gpus;
    auto gpuTrack = [&](std::uint32_t device) {
        auto [it, added] = gpus.emplace(device, 0);
        if (added)
            it->second = w.processTrack(kGpuPidBase + device,
                                        (info.device.empty() ? std::string("GPU") : info.device) +
                                            " (device " + std::to_string(device) + ")",
                                        true);
        return it->second;
    };
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> streams;
    auto streamTrack = [&](std::uint32_t device, std::uint32_t stream) {
        auto [it, added] = streams.emplace(std::pair{device, stream}, 0);
        if (added)
            it->second = w.childTrack(gpuTrack(device), "Stream " + std::to_string(stream), stream);
        return it->second;
    };
    for (const auto& key : runStreams(store, run))
        streamTrack(key.deviceId, key.streamId);
    // Host processes and threads, as Perfetto names them, with the run.
    std::map<std::uint32_t, std::uint64_t> processes;
    auto processTrack = [&](std::uint32_t pid) {
        auto [it, added] = processes.emplace(pid, 0);
        if (added)
            it->second =
                w.processTrack(pid,
                               "run " + std::to_string(run) +
                                   (info.label.empty() ? std::string() : ": " + info.label) +
                                   " (pid " + std::to_string(pid) + ")",
                               false);
        return it->second;
    };
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> threads, apiTracks;
    auto threadTrack = [&](std::uint32_t pid, std::uint32_t tid) {
        processTrack(pid);
        auto [it, added] = threads.emplace(std::pair{pid, tid}, 0);
        if (added) it->second = w.threadTrack(pid, tid, "thread " + std::to_string(tid));
        return it->second;
    };
    // API calls on a track of their own under the thread: NVTX ranges on the
    // thread's track may begin at the very nanosecond a call does, and two
    // slices that start together on one track nest by the order they arrive.
    auto apiTrack = [&](std::uint32_t pid, std::uint32_t tid) {
        const auto thread = threadTrack(pid, tid);
        auto [it, added] = apiTracks.emplace(std::pair{pid, tid}, 0);
        if (added) it->second = w.childTrack(thread, "CUDA API");
        return it->second;
    };

    // Correlation ids (correlation_bits.h): those of the export's API calls,
    // and those a kernel's flow ended at (a graph's kernels share their
    // launch's id: its first kernel ends the flow). A flow is written only
    // where both its ends are.
    CorrelationBits called, flowed;
    forEachApiCall(store, run, window, std::nullopt,
                   [&](const ApiCallRecord& a) { called.set(a.correlationId); });
    // GPU work on lanes: each op on the first lane of its stream free at its
    // start, so work that overlaps on one stream (programmatic dependent
    // launch, a copy beside a kernel) never closes another's slice. Copies
    // and sets (few) are merged into the kernels' start order.
    std::map<std::pair<std::uint32_t, std::uint32_t>,
             std::vector<std::pair<std::uint64_t, std::int64_t>>>
        streamLanes;
    auto laneFor = [&](std::uint32_t device, std::uint32_t stream, std::int64_t start,
                       std::int64_t end) {
        auto& free = streamLanes[{device, stream}];
        auto lane = std::find_if(free.begin(), free.end(),
                                 [&](const auto& l) { return l.second <= start; });
        if (lane == free.end()) {
            free.emplace_back(
                free.empty()
                    ? streamTrack(device, stream)
                    : w.childTrack(gpuTrack(device),
                                   "Stream " + std::to_string(stream) + " (overlapping)", stream),
                0);
            lane = free.end() - 1;
        }
        lane->second = std::max(start, end);
        return lane->first;
    };
    auto copies = memcpysIn(store, run, window);
    auto sets = memsetsIn(store, run, window);
    std::size_t nextCopy = 0, nextSet = 0;
    auto copiesAndSetsUntil = [&](std::int64_t until) {
        while (true) {
            const bool copy = nextCopy < copies.size() && copies[nextCopy].startNs <= until;
            const bool set = nextSet < sets.size() && sets[nextSet].startNs <= until;
            if (!copy && !set) return;
            if (copy && (!set || copies[nextCopy].startNs <= sets[nextSet].startNs)) {
                const auto& m = copies[nextCopy++];
                w.slice(laneFor(m.deviceId, m.streamId, m.startNs, m.endNs), m.startNs, m.endNs,
                        std::string("Memcpy ") + toString(m.kind), "memcpy",
                        [&](proto::Message& e) {
                            w.annotate(e, "bytes", m.bytes);
                            w.annotate(e, "src", toString(m.srcKind));
                            w.annotate(e, "dst", toString(m.dstKind));
                            w.annotate(e, "correlation_id", m.correlationId);
                        });
            } else {
                const auto& m = sets[nextSet++];
                w.slice(laneFor(m.deviceId, m.streamId, m.startNs, m.endNs), m.startNs, m.endNs,
                        "Memset", "memset", [&](proto::Message& e) {
                            w.annotate(e, "bytes", m.bytes);
                            w.annotate(e, "value", m.value);
                        });
            }
        }
    };
    // Demangled once per distinct name, not per launch.
    std::unordered_map<std::string, std::string> demangled;
    forEachKernel(store, run, window, std::nullopt, [&](const KernelRecord& k) {
        copiesAndSetsUntil(k.startNs);
        auto name = demangled.find(k.name);
        if (name == demangled.end()) name = demangled.emplace(k.name, demangle(k.name)).first;
        const bool endsFlow = called.test(k.correlationId) && !flowed.test(k.correlationId);
        if (endsFlow) flowed.set(k.correlationId);
        w.slice(laneFor(k.deviceId, k.streamId, k.startNs, k.endNs), k.startNs, k.endNs,
                name->second, "kernel", [&](proto::Message& e) {
                    w.annotate(e, "mangled_name", k.name);
                    w.annotate(e, "grid",
                               std::to_string(k.gridX) + "," + std::to_string(k.gridY) + "," +
                                   std::to_string(k.gridZ));
                    w.annotate(e, "block",
                               std::to_string(k.blockX) + "," + std::to_string(k.blockY) + "," +
                                   std::to_string(k.blockZ));
                    w.annotate(e, "registers_per_thread", k.registersPerThread);
                    w.annotate(e, "static_smem", k.staticSharedBytes);
                    w.annotate(e, "dynamic_smem", k.dynamicSharedBytes);
                    w.annotate(e, "correlation_id", k.correlationId);
                    if (endsFlow) e.fixed64(event::kTerminatingFlowIds, k.correlationId);
                });
    });
    copiesAndSetsUntil(std::numeric_limits<std::int64_t>::max());
    // Calls that start together (a runtime call and the driver call inside
    // it) go longest first, so the outer one is the parent.
    std::vector<ApiCallRecord> together;
    auto flushCalls = [&] {
        std::stable_sort(
            together.begin(), together.end(),
            [](const ApiCallRecord& a, const ApiCallRecord& b) { return a.endNs > b.endNs; });
        for (const auto& a : together) {
            const bool flow = flowed.test(a.correlationId);
            w.slice(apiTrack(a.processId, a.threadId), a.startNs, a.endNs, a.name,
                    a.kind == ApiKind::Runtime ? "cuda_runtime" : "cuda_driver",
                    [&](proto::Message& e) {
                        w.annotate(e, "correlation_id", a.correlationId);
                        w.annotate(e, "return", a.returnValue);
                        if (flow) e.fixed64(event::kFlowIds, a.correlationId);
                    });
            if (flow) ++w.stats.flows;
        }
        together.clear();
    };
    forEachApiCall(store, run, window, std::nullopt, [&](const ApiCallRecord& a) {
        if (!together.empty() && together.front().startNs != a.startNs) flushCalls();
        together.push_back(a);
    });
    flushCalls();
    // NVTX: push/pop ranges and marks on their thread's track; start/end
    // ranges, which need not nest, each on the first free lane of their process.
    std::map<std::uint32_t, std::vector<std::pair<std::uint64_t, std::int64_t>>> lanes;
    forEachRange(store, run, window, std::nullopt, [&](const RangeRecord& r) {
        const auto thread = threadTrack(r.processId, r.threadId);
        if (r.kind == RangeKind::Mark) {
            w.instant(thread, r.startNs, r.name, "nvtx");
            return;
        }
        auto track = thread;
        if (r.kind == RangeKind::StartEnd) {
            auto& free = lanes[r.processId];
            auto lane = std::find_if(free.begin(), free.end(),
                                     [&](const auto& l) { return l.second <= r.startNs; });
            if (lane == free.end()) {
                free.emplace_back(w.childTrack(processTrack(r.processId), "NVTX start/end ranges"),
                                  0);
                lane = free.end() - 1;
            }
            lane->second = std::max(r.endNs, r.startNs);
            track = lane->first;
        }
        w.slice(track, r.startNs, r.endNs, r.name, "nvtx",
                [&](proto::Message& e) { w.annotate(e, "domain", r.domain); });
    });
    // Counters: a track per series under its GPU.
    std::map<std::tuple<std::uint32_t, std::string>, std::uint64_t> counters;
    forEachCounterPoint(store, run, window, samplesOf(store, run), [&](const CounterPoint& p) {
        for (const auto& [series, value] : p.values) {
            const std::string name = p.values.size() == 1 ? p.counter : p.counter + " " + series;
            auto [it, added] = counters.emplace(std::tuple{p.device, name}, 0);
            if (added) it->second = w.childTrack(gpuTrack(p.device), name, std::nullopt, true);
            w.counter(it->second, p.timeNs, value);
        }
    });
    return w.stats;
}

}  // namespace ws
