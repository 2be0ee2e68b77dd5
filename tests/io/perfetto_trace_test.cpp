// export --format perfetto, read back with protobuf against the part of
// perfetto_trace.proto it writes: every field known to the schema, every
// lane a track, slices balanced and nested on each track, launch flows
// joined, counters on counter tracks.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "data/perfetto_trace_subset.pb.h"  // generated from tests/data
#include "io/perfetto_trace.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "support/fixture_store.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

using perfetto::protos::Trace;
using perfetto::protos::TrackEvent;

Trace exported(Store& store, RunId run, PerfettoTraceStats* stats = nullptr,
               TimeWindow window = {}) {
    std::ostringstream out;
    auto s = exportPerfettoTrace(store, run, out, window);
    if (stats) *stats = s;
    Trace trace;
    EXPECT_TRUE(trace.ParseFromString(out.str()));
    return trace;
}

// Fields written with a number or wire type the schema does not have are
// kept as unknown fields by the parser.
bool anyUnknown(const google::protobuf::Message& m) {
    const auto* reflection = m.GetReflection();
    if (!reflection->GetUnknownFields(m).empty()) return true;
    std::vector<const google::protobuf::FieldDescriptor*> fields;
    reflection->ListFields(m, &fields);
    for (const auto* f : fields) {
        if (f->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) continue;
        if (f->is_repeated()) {
            for (int i = 0; i < reflection->FieldSize(m, f); ++i)
                if (anyUnknown(reflection->GetRepeatedMessage(m, f, i))) return true;
        } else if (anyUnknown(reflection->GetMessage(m, f))) {
            return true;
        }
    }
    return false;
}

// What the sequence's interned tables say, read in packet order as trace
// processor reads them: every id an event uses must be defined by then.
class Interned {
  public:
    explicit Interned(const Trace& trace) {
        for (const auto& p : trace.packet()) {
            const auto& d = p.interned_data();
            for (const auto& e : d.event_names())
                EXPECT_TRUE(names_.emplace(e.iid(), e.name()).second) << e.iid();
            for (const auto& e : d.event_categories())
                EXPECT_TRUE(categories_.emplace(e.iid(), e.name()).second) << e.iid();
            for (const auto& e : d.debug_annotation_names())
                EXPECT_TRUE(argNames_.emplace(e.iid(), e.name()).second) << e.iid();
            for (const auto& e : d.debug_annotation_string_values())
                EXPECT_TRUE(argTexts_.emplace(e.iid(), e.str()).second) << e.iid();
            const auto& e = p.track_event();
            if (e.has_name_iid()) {
                EXPECT_TRUE(names_.count(e.name_iid())) << "name " << e.name_iid() << " not yet";
                EXPECT_EQ(p.sequence_flags() & 2, 2u);  // SEQ_NEEDS_INCREMENTAL_STATE
            }
            for (auto c : e.category_iids())
                EXPECT_TRUE(categories_.count(c)) << "category " << c << " not yet";
        }
    }
    std::string name(const TrackEvent& e) const {
        auto it = names_.find(e.name_iid());
        return it == names_.end() ? std::string() : it->second;
    }
    // Each argument as text: a string's text, a number's digits.
    std::map<std::string, std::string> args(const TrackEvent& e) const {
        std::map<std::string, std::string> out;
        for (const auto& a : e.debug_annotations())
            out[argNames_.at(a.name_iid())] = a.has_string_value_iid()
                                                  ? argTexts_.at(a.string_value_iid())
                                                  : std::to_string(a.int_value());
        return out;
    }

  private:
    std::map<std::uint64_t, std::string> names_, categories_, argNames_, argTexts_;
};

struct Slice {
    std::int64_t start = 0, end = 0;
    std::string name;
    int depth = 0;
};

// Slices per track as trace processor builds them: events in time order (the
// order written among equal times), each END closing the latest open BEGIN.
std::map<std::uint64_t, std::vector<Slice>> slicesByTrack(const Trace& trace) {
    const Interned interned(trace);
    std::vector<std::pair<std::uint64_t, int>> order;  // (timestamp, packet index)
    for (int i = 0; i < trace.packet_size(); ++i)
        if (trace.packet(i).has_track_event()) order.emplace_back(trace.packet(i).timestamp(), i);
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::map<std::uint64_t, std::vector<Slice>> done, open;
    for (const auto& [ts, i] : order) {
        const auto& e = trace.packet(i).track_event();
        auto& stack = open[e.track_uuid()];
        if (e.type() == TrackEvent::TYPE_SLICE_BEGIN) {
            stack.push_back({std::int64_t(ts), 0, interned.name(e), int(stack.size())});
        } else if (e.type() == TrackEvent::TYPE_SLICE_END) {
            EXPECT_FALSE(stack.empty()) << "an END with no open slice on track " << e.track_uuid();
            if (stack.empty()) continue;
            stack.back().end = std::int64_t(ts);
            done[e.track_uuid()].push_back(stack.back());
            stack.pop_back();
        }
    }
    for (const auto& [track, stack] : open)
        EXPECT_TRUE(stack.empty()) << stack.size() << " slices left open on track " << track;
    return done;
}

TEST(PerfettoTrace, TheFixtureRunHasEveryLaneAsATrackAndReadsBackWhole) {
    testing::TempDir dir;
    const auto path = dir.file("fixture.wsdb");
    const auto runs = testing::writeFixtureStore(path);
    Store store(path);
    PerfettoTraceStats stats;
    const Trace trace = exported(store, runs.decoderOk, &stats);
    EXPECT_FALSE(anyUnknown(trace));
    ASSERT_EQ(trace.packet_size(), stats.packets);
    // One sequence, its state cleared by the first packet.
    EXPECT_EQ(trace.packet(0).sequence_flags(), 1u);
    for (const auto& p : trace.packet())
        EXPECT_EQ(p.trusted_packet_sequence_id(), 1u);

    std::map<std::uint64_t, perfetto::protos::TrackDescriptor> tracks;
    for (const auto& p : trace.packet())
        if (p.has_track_descriptor()) tracks[p.track_descriptor().uuid()] = p.track_descriptor();
    EXPECT_EQ(std::int64_t(tracks.size()), stats.tracks);
    // The GPU is a process; its streams are tracks under it, ordered by id.
    std::uint64_t gpu = 0;
    std::map<std::string, std::uint64_t> byName;
    for (const auto& [uuid, t] : tracks) {
        if (t.has_process() && t.process().process_name() == "NVIDIA H200 (device 0)") gpu = uuid;
        if (t.has_name()) byName[t.name()] = uuid;
    }
    ASSERT_NE(gpu, 0u);
    EXPECT_EQ(tracks[gpu].child_ordering(), perfetto::protos::TrackDescriptor::EXPLICIT);
    for (const char* stream : {"Stream 7", "Stream 13"}) {
        ASSERT_TRUE(byName.count(stream)) << stream;
        EXPECT_EQ(tracks[byName[stream]].parent_uuid(), gpu);
    }
    EXPECT_EQ(tracks[byName["Stream 13"]].sibling_order_rank(), 13);
    // The host thread, its NVTX ranges on it and its API calls under it.
    std::uint64_t thread = 0;
    for (const auto& [uuid, t] : tracks)
        if (t.has_thread() && t.thread().tid() == 4242 && t.thread().pid() == 4242) thread = uuid;
    ASSERT_NE(thread, 0u);
    ASSERT_TRUE(byName.count("CUDA API"));
    EXPECT_EQ(tracks[byName["CUDA API"]].parent_uuid(), thread);

    auto slices = slicesByTrack(trace);
    EXPECT_EQ(slices[byName["Stream 7"]].size(),
              std::size_t(testing::kFixtureKernelsPerStream) + 1);  // and the memset
    // Stream 13's 40 µs copies overlap its kernels: they go to an
    // overlapping lane under the GPU, and no slice nests in another.
    ASSERT_TRUE(byName.count("Stream 13 (overlapping)"));
    EXPECT_EQ(tracks[byName["Stream 13 (overlapping)"]].parent_uuid(), gpu);
    std::size_t onStream13 = 0;
    for (const auto& [uuid, t] : tracks)
        if (t.name() == "Stream 13" || t.name() == "Stream 13 (overlapping)")
            onStream13 += slices[uuid].size();
    EXPECT_EQ(onStream13, std::size_t(testing::kFixtureKernelsPerStream) + 6);  // and the copies
    for (const auto& [uuid, t] : tracks) {
        if (t.name().rfind("Stream", 0) != 0) continue;
        for (const auto& s : slices[uuid]) {
            EXPECT_EQ(s.depth, 0) << t.name() << ": " << s.name;
        }
    }
    // prefill and the four decode steps, each step a top-level slice.
    int steps = 0;
    for (const auto& s : slices[thread])
        if (s.name == "decode_step") {
            ++steps;
            EXPECT_EQ(s.end - s.start, 160'000);
        }
    EXPECT_EQ(steps, 4);
    EXPECT_EQ(slices[byName["CUDA API"]].size(), 4u);

    // Each launch call starts a flow that its kernel ends.
    const Interned interned(trace);
    std::map<std::uint64_t, int> starts, ends;
    std::map<std::string, std::string> kernelArgs;
    for (const auto& p : trace.packet()) {
        const auto& e = p.track_event();
        for (auto id : e.flow_ids())
            ++starts[id];
        for (auto id : e.terminating_flow_ids())
            ++ends[id];
        if (interned.name(e) == "gemv_bf16_splitk" && kernelArgs.empty())
            kernelArgs = interned.args(e);
    }
    EXPECT_EQ(stats.flows, 4);
    for (std::uint64_t id = 1000; id < 1004; ++id) {
        EXPECT_EQ(starts[id], 1) << id;
        EXPECT_EQ(ends[id], 1) << id;
    }
    EXPECT_EQ(kernelArgs["grid"], "264,1,1");
    EXPECT_EQ(kernelArgs["registers_per_thread"], "40");
    EXPECT_EQ(kernelArgs["mangled_name"], "gemv_bf16_splitk");

    // Counters: a counter track under the GPU per sampled value.
    ASSERT_TRUE(byName.count("power_w"));
    const auto power = byName["power_w"];
    EXPECT_TRUE(tracks[power].has_counter());
    EXPECT_EQ(tracks[power].parent_uuid(), gpu);
    std::vector<double> watts;
    for (const auto& p : trace.packet())
        if (p.track_event().track_uuid() == power) {
            EXPECT_EQ(p.track_event().type(), TrackEvent::TYPE_COUNTER);
            watts.push_back(p.track_event().double_counter_value());
        }
    ASSERT_EQ(watts.size(), 10u);
    EXPECT_DOUBLE_EQ(watts[3], 347.5);
    EXPECT_TRUE(byName.count("nvlink_gb_s tx"));
    EXPECT_TRUE(byName.count("nvlink_gb_s rx"));
}

// Start/end ranges need not nest: each takes the first lane free at its
// start. A runtime call and the driver call inside it that begin at the same
// nanosecond nest with the outer one as the parent. Marks are instants.
TEST(PerfettoTrace, OverlappingRangesTakeLanesAndCallsStartingTogetherNest) {
    testing::TempDir dir;
    Store store(dir.file("lanes.wsdb"));
    NewRun info;
    info.label = "lanes";
    const RunId run = store.beginRun(info);
    {
        StoreWriter w(store, run);
        auto range = [](std::int64_t start, std::int64_t end, const char* name) {
            return RangeRecord{start, end, 7, 8, name, "app", RangeKind::StartEnd, 0, 0};
        };
        w.add(range(1'000, 5'000, "a"));
        w.add(range(2'000, 3'000, "b"));  // inside a's time, yet not nested in it
        w.add(range(4'000, 9'000, "c"));  // overlaps a: a third lane? no, b's is free
        w.add(range(6'000, 7'000, "d"));  // a's lane is free again
        w.add(RangeRecord{1'500, 1'500, 7, 8, "mark", "app", RangeKind::Mark, 0, 0});
        // The driver call ends first but is stored first: it still nests inside.
        w.add(ApiCallRecord{10'000, 12'000, 7, 8, 0, ApiKind::Driver, 1, "cuLaunchKernel", 0});
        w.add(ApiCallRecord{10'000, 15'000, 7, 8, 0, ApiKind::Runtime, 2, "cudaLaunchKernel", 0});
    }
    store.finishRun(run, RunStatus::Ok, 0, std::nullopt, 20'000);
    const Trace trace = exported(store, run);
    EXPECT_FALSE(anyUnknown(trace));
    std::map<std::uint64_t, std::string> names;
    int lanes = 0;
    for (const auto& p : trace.packet())
        if (p.has_track_descriptor()) {
            names[p.track_descriptor().uuid()] = p.track_descriptor().name();
            lanes += p.track_descriptor().name() == "NVTX start/end ranges";
        }
    EXPECT_EQ(lanes, 2);
    auto slices = slicesByTrack(trace);
    std::map<std::string, std::uint64_t> laneOf;
    for (const auto& [track, list] : slices)
        for (const auto& s : list) {
            laneOf[s.name] = track;
            if (names[track] == "NVTX start/end ranges") {
                EXPECT_EQ(s.depth, 0) << s.name;
            }
            if (s.name == "cuLaunchKernel") {
                EXPECT_EQ(s.depth, 1);
            }
            if (s.name == "cudaLaunchKernel") {
                EXPECT_EQ(s.depth, 0);
            }
        }
    EXPECT_EQ(laneOf["a"], laneOf["d"]);
    EXPECT_EQ(laneOf["b"], laneOf["c"]);
    EXPECT_NE(laneOf["a"], laneOf["b"]);
    const Interned interned(trace);
    int instants = 0;
    for (const auto& p : trace.packet())
        instants += p.track_event().type() == TrackEvent::TYPE_INSTANT &&
                    interned.name(p.track_event()) == "mark";
    EXPECT_EQ(instants, 1);
}

// Kernels that overlap on one stream (programmatic dependent launch) keep
// their own times: the second takes a lane of its own. Kernels of one graph
// launch share its correlation id; the flow ends at the first.
TEST(PerfettoTrace, OverlappingKernelsOnAStreamKeepTheirTimes) {
    testing::TempDir dir;
    Store store(dir.file("pdl.wsdb"));
    NewRun info;
    info.label = "pdl";
    const RunId run = store.beginRun(info);
    {
        StoreWriter w(store, run);
        auto kernel = [](std::int64_t start, std::int64_t end, const char* name) {
            KernelRecord k;
            k.startNs = start;
            k.endNs = end;
            k.streamId = 7;
            k.correlationId = 5;
            k.graphId = 1;
            k.name = name;
            return k;
        };
        w.add(kernel(1'000, 10'000, "first"));
        w.add(kernel(8'000, 20'000, "second"));  // starts before the first ends
        w.add(kernel(21'000, 30'000, "third"));
        w.add(ApiCallRecord{500, 900, 7, 8, 5, ApiKind::Runtime, 311, "cudaGraphLaunch", 0});
    }
    store.finishRun(run, RunStatus::Ok, 0, std::nullopt, 40'000);
    const Trace trace = exported(store, run);
    std::map<std::string, Slice> byName;
    for (const auto& [track, list] : slicesByTrack(trace))
        for (const auto& s : list)
            byName[s.name] = s;
    EXPECT_EQ(byName["first"].end - byName["first"].start, 9'000);
    EXPECT_EQ(byName["second"].end - byName["second"].start, 12'000);
    EXPECT_EQ(byName["third"].end - byName["third"].start, 9'000);
    int starts = 0, ends = 0;
    for (const auto& p : trace.packet()) {
        starts += p.track_event().flow_ids_size();
        ends += p.track_event().terminating_flow_ids_size();
    }
    EXPECT_EQ(starts, 1);
    EXPECT_EQ(ends, 1);
}

// A window keeps only what overlaps it, as the chrome-trace export does.
TEST(PerfettoTrace, AWindowKeepsOnlyWhatOverlapsIt) {
    testing::TempDir dir;
    const auto path = dir.file("fixture.wsdb");
    const auto runs = testing::writeFixtureStore(path);
    Store store(path);
    PerfettoTraceStats whole, part;
    exported(store, runs.decoderOk, &whole);
    const std::int64_t gpu0 = 5'000'000'000;
    exported(store, runs.decoderOk, &part, TimeWindow{gpu0, gpu0 + 80'000});
    EXPECT_GT(part.slices, 0);
    EXPECT_LT(part.slices, whole.slices / 4);
}

}  // namespace
}  // namespace ws
