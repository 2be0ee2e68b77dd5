#include "io/kineto_import.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "io/array_member_splitter.h"
#include "io/engine_step_annotations.h"
#include "io/trace_reader.h"
#include "kineto_event.h"
#include "model/value_limits.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "util/spilling_sorter.h"
#include "util/text.h"

namespace ws {

namespace {

// Kineto writes ts in microseconds with nanosecond decimals; long double keeps
// every nanosecond of an epoch-based timestamp, which a double would not.
using Json = nlohmann::basic_json<std::map, std::vector, std::string, bool, std::int64_t,
                                  std::uint64_t, long double>;

std::string where(std::size_t index, std::string_view name) {
    return "traceEvents[" + std::to_string(index) + "]" +
           (name.empty() ? "" : " (" + std::string(name) + ")");
}

// A string field, or "" when missing or of another type (nlohmann's value()
// throws a bare type_error then, naming neither file nor field).
std::string textOf(const Json& object, const char* key) {
    auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A JSON number as a 64-bit integer, when it is one that fits (a float such
// as 1e30 converted without this check is undefined behaviour).
std::optional<std::int64_t> integer(const Json& v) {
    if (v.is_number_integer()) return v.get<std::int64_t>();
    if (!v.is_number()) return std::nullopt;
    long double x = v.get<long double>();
    if (!(x >= -9.2e18L && x <= 9.2e18L)) return std::nullopt;
    return static_cast<std::int64_t>(x);
}

// A numeric argument, or `fallback` when missing, not a number or too large.
std::int64_t intArg(const Json& args, const char* key, std::int64_t fallback = 0) {
    auto it = args.find(key);
    if (it == args.end()) return fallback;
    return integer(*it).value_or(fallback);
}

// The event's place in an error message is built only when there is one: not
// twice for every kernel of a multi-gigabyte trace.
void dims(const std::string& path, std::size_t index, const KinetoEvent& e,
          const KinetoEvent::Dims& d, const char* key, std::int32_t& x, std::int32_t& y,
          std::int32_t& z) {
    if (!d.present) return;
    std::int32_t* out[] = {&x, &y, &z};
    for (int i = 0; i < 3; ++i) {
        auto v = d.v[static_cast<std::size_t>(i)];
        if (!v || *v < 0 || *v > std::numeric_limits<std::int32_t>::max())
            importError(path, where(index, e.name) + ".args." + key + "[" + std::to_string(i) + "]",
                        "not a count of blocks or threads");
        *out[i] = static_cast<std::int32_t>(*v);
    }
}

std::int64_t checkedBytes(const std::string& path, std::size_t index, const KinetoEvent& e) {
    if (!e.bytesPresent) return 0;
    if (!e.bytes || limits::bytesProblem(*e.bytes))
        importError(path, where(index, e.name) + ".args.bytes",
                    "negative, over 1 PiB or not a number");
    return *e.bytes;
}

// "Memcpy HtoD (Pageable -> Device)" → kind and both memory kinds.
void parseMemcpyName(std::string_view name, MemcpyRecord& r) {
    static const std::pair<const char*, MemcpyKind> kinds[] = {
        {"HtoD", MemcpyKind::HtoD}, {"DtoH", MemcpyKind::DtoH}, {"HtoA", MemcpyKind::HtoA},
        {"AtoH", MemcpyKind::AtoH}, {"AtoA", MemcpyKind::AtoA}, {"AtoD", MemcpyKind::AtoD},
        {"DtoA", MemcpyKind::DtoA}, {"DtoD", MemcpyKind::DtoD}, {"HtoH", MemcpyKind::HtoH},
        {"PtoP", MemcpyKind::PtoP}};
    for (const auto& [text, kind] : kinds)
        if (name.find(text) != std::string_view::npos) r.kind = kind;
    // "Pageable", "Device", "Pinned": our names in lower case.
    auto memoryKind = [](std::string_view text) { return memoryKindFromString(asciiLower(text)); };
    auto open = name.find('('), arrow = name.find(" -> "), close = name.find(')');
    if (open == std::string_view::npos || arrow == std::string_view::npos ||
        close == std::string_view::npos)
        return;
    r.srcKind = memoryKind(name.substr(open + 1, arrow - open - 1));
    r.dstKind = memoryKind(name.substr(arrow + 4, close - arrow - 4));
}

std::optional<DeviceInfo> deviceOf(const std::string& path, const std::map<std::string, Json>& top,
                                   std::uint32_t deviceId) {
    auto found = top.find("deviceProperties");
    if (found == top.end()) return std::nullopt;
    const Json* it = &found->second;
    if (!it->is_array() || it->empty()) return std::nullopt;
    const Json* chosen = &(*it)[0];
    for (const auto& p : *it)
        if (p.is_object() && intArg(p, "id", -1) == deviceId) chosen = &p;
    const Json& p = *chosen;
    if (!p.is_object()) return std::nullopt;
    DeviceInfo d;
    d.name = textOf(p, "name");
    d.ccMajor = static_cast<int>(intArg(p, "computeMajor"));
    d.ccMinor = static_cast<int>(intArg(p, "computeMinor"));
    d.smCount = static_cast<int>(intArg(p, "numSms"));
    d.memoryBytes = intArg(p, "totalGlobalMem");
    d.maxThreadsPerBlock = static_cast<int>(intArg(p, "maxThreadsPerBlock"));
    d.warpSize = static_cast<int>(intArg(p, "warpSize", 32));
    if (d.warpSize <= 0 || d.warpSize > 1024)
        importError(path, "deviceProperties.warpSize",
                    std::to_string(d.warpSize) + " is not a warp size");
    d.maxWarpsPerSm = static_cast<int>(intArg(p, "maxThreadsPerMultiprocessor") / d.warpSize);
    d.regsPerBlock = static_cast<int>(intArg(p, "regsPerBlock"));
    d.regsPerSm = static_cast<int>(intArg(p, "regsPerMultiprocessor"));
    d.smemPerBlock = static_cast<int>(intArg(p, "sharedMemPerBlock"));
    d.smemPerSm = static_cast<int>(intArg(p, "sharedMemPerMultiprocessor"));
    d.smemPerBlockOptin = static_cast<int>(intArg(p, "sharedMemPerBlockOptin"));
    return d;
}

// Device, context, stream and correlation of a GPU event (kernel, copy,
// memset); GPU lanes carry the device as pid and the stream as tid.
template <typename R>
void placeOnGpu(R& r, const KinetoEvent& e, std::int64_t start, std::int64_t end) {
    r.startNs = start;
    r.endNs = end;
    r.deviceId = static_cast<std::uint32_t>(e.device.value_or(e.pid));
    r.contextId = static_cast<std::uint32_t>(e.context.value_or(0));
    r.streamId = static_cast<std::uint32_t>(e.stream.value_or(e.tid));
    r.correlationId = static_cast<std::uint32_t>(e.correlation.value_or(0));
}

// Ranges wait for the end of the file to get their nesting depth (Kineto
// writes them in no fixed order), held compactly: 32 bytes each, names
// interned, instead of ~130 for a RangeRecord; past kRangesInMemory (64 MiB
// of them) sorted batches go to a temporary file and are merged back.
struct PendingRange {
    std::int64_t startNs, endNs;
    std::uint32_t processId, threadId, name;
    bool annotation;
};
// By thread, then start, the enclosing range (the longer) first.
struct ThreadThenStart {
    bool operator()(const PendingRange& a, const PendingRange& b) const {
        return std::tie(a.processId, a.threadId, a.startNs, b.endNs) <
               std::tie(b.processId, b.threadId, b.startNs, a.endNs);
    }
};
constexpr std::size_t kRangesInMemory = std::size_t{1} << 21;

// Writes one trace event after another as the parser finishes them: GPU
// work, API calls and overheads go straight to the store writer.
class EventSink {
  public:
    EventSink(const std::string& path, StoreWriter& writer) : path_(path), writer_(writer) {}

    // One element of traceEvents, its bytes (with simdjson's padding after).
    void add(std::size_t i, const char* data, std::size_t size) {
        std::string problem = reader_.read(data, size, e_);
        if (!problem.empty())
            importError(path_, "traceEvents[" + std::to_string(i) + "]",
                        "not valid JSON (" + problem + ")");
        const KinetoEvent& e = e_;
        if (!e.object)
            importError(path_, "traceEvents[" + std::to_string(i) + "]", "not an object");
        if (e.ph != "X") return;  // flows, counters, metadata
        if (!e.ts) importError(path_, where(i, e.name) + ".ts", "missing or not a number");
        if (!e.dur) importError(path_, where(i, e.name) + ".dur", "missing or not a number");
        auto ts = limits::toNs(*e.ts, 1000.0L, 0, limits::kLatestTimeNs);
        if (!ts)
            importError(path_, where(i, e.name) + ".ts",
                        "negative, past the year 2100 or not finite");
        auto dur = limits::toNs(*e.dur, 1000.0L, 0, limits::kLongestSpanNs);
        if (!dur)
            importError(path_, where(i, e.name) + ".dur", "negative, over a year or not finite");
        std::int64_t start = *ts, end = *ts + *dur;
        if (!any_ && beforeFirstEvent) beforeFirstEvent(start);
        if (shiftNs != 0) {
            // A rank's file joined to the first file's clock.
            start += shiftNs, end += shiftNs;
            if (start < 0 || end > limits::kLatestTimeNs)
                importError(path_, where(i, e.name) + ".ts",
                            "outside 1970-2100 on the first file's clock");
        }
        if (!any_ || start < firstNs) firstNs = start;
        any_ = true;
        const std::string_view cat = e.cat;
        if (cat == "kernel") {
            KernelRecord r;
            place(r, e, start, end);
            r.name = e.name;
            r.registersPerThread = static_cast<std::int32_t>(e.registers.value_or(0));
            // Kineto reports static + dynamic shared memory as one number.
            r.staticSharedBytes = static_cast<std::int32_t>(e.sharedMemory.value_or(0));
            dims(path_, i, e, e.grid, "grid", r.gridX, r.gridY, r.gridZ);
            dims(path_, i, e, e.block, "block", r.blockX, r.blockY, r.blockZ);
            if (kernels == 0) firstKernelDevice = r.deviceId;
            ++kernels;
            writer_.add(r);
        } else if (cat == "gpu_memcpy") {
            MemcpyRecord r;
            place(r, e, start, end);
            r.bytes = checkedBytes(path_, i, e);
            parseMemcpyName(e.name, r);
            writer_.add(r);
        } else if (cat == "gpu_memset") {
            MemsetRecord r;
            place(r, e, start, end);
            r.bytes = checkedBytes(path_, i, e);
            if (e.name.find("Device") != std::string_view::npos) r.memoryKind = MemoryKind::Device;
            writer_.add(r);
        } else if (cat == "cuda_runtime" || cat == "cuda_driver") {
            ApiCallRecord r;
            r.startNs = start, r.endNs = end, r.name = e.name;
            r.processId = e.pid;
            r.threadId = e.tid;
            r.correlationId = static_cast<std::uint32_t>(e.correlation.value_or(0));
            r.kind = cat == "cuda_runtime" ? ApiKind::Runtime : ApiKind::Driver;
            r.callbackId = static_cast<std::uint32_t>(e.cbid.value_or(0));
            ++apiCalls;
            writer_.add(r);
        } else if (cat == "cpu_op" || cat == "user_annotation") {
            auto found = nameIds_.find(e.name);
            std::uint32_t id;
            if (found != nameIds_.end()) {
                id = found->second;
            } else {
                id = static_cast<std::uint32_t>(names_.size());
                auto it = nameIds_.emplace(std::string(e.name), id).first;
                names_.push_back(&it->first);
            }
            ranges_.push({start, end, e.pid, e.tid, id, cat == "user_annotation"});
        } else if (cat == "overhead") {  // the profiler's own work, e.g. buffer requests
            writer_.add(OverheadRecord{start, end, std::string(e.name)});
        }
    }

    std::size_t ranges() const { return ranges_.size(); }

    // The ranges, sorted by thread and start with their nesting depth (as
    // assignNestingDepth does for RangeRecords), to the writer.
    void writeRanges() {
        std::vector<std::int64_t> openEnds;
        std::pair<std::uint32_t, std::uint32_t> thread{~0u, ~0u};
        RangeRecord r;
        r.kind = RangeKind::PushPop;
        ranges_.drain([&](const PendingRange& p) {
            if (std::pair(p.processId, p.threadId) != thread) {
                openEnds.clear();
                thread = {p.processId, p.threadId};
            }
            while (!openEnds.empty() && openEnds.back() <= p.startNs)
                openEnds.pop_back();
            r.startNs = p.startNs, r.endNs = p.endNs;
            r.processId = p.processId, r.threadId = p.threadId;
            r.name = *names_[p.name];
            r.domain = p.annotation ? "torch.annotation" : "torch.op";
            r.depth = static_cast<std::int32_t>(openEnds.size());
            openEnds.push_back(p.endNs);
            writer_.add(r);
            // An engine's own step annotation gets an engine.step range
            // inside it, the name Warpscope's step analyses read.
            if (const EngineStepAnnotation* step =
                    p.annotation && readSteps ? stepOf(p.name) : nullptr) {
                r.name = engineStepRangeName(*step, engineSteps++);
                r.depth = static_cast<std::int32_t>(openEnds.size());
                openEnds.push_back(p.endNs);
                writer_.add(r);
                stepEngine = step->engine;
            }
        });
    }

    std::int64_t engineSteps = 0;
    std::string stepEngine;  // the engine whose step annotations were read

    // For one file of several (one per rank): called with the first event's
    // time before it is placed, to set the shift onto the first file's
    // clock and the GPUs to renumber; and whether its step annotations make
    // engine steps (the first file's only: the ranks step together).
    std::function<void(std::int64_t firstEventNs)> beforeFirstEvent;
    std::int64_t shiftNs = 0;
    std::map<std::uint32_t, std::uint32_t> deviceMap;
    bool readSteps = true;
    std::set<std::uint32_t> devicesUsed;  // after renumbering

    std::int64_t firstNs = 0;
    std::int64_t kernels = 0, apiCalls = 0;
    std::uint32_t firstKernelDevice = 0;

  private:
    template <typename R>
    void place(R& r, const KinetoEvent& e, std::int64_t start, std::int64_t end) {
        placeOnGpu(r, e, start, end);
        if (auto it = deviceMap.find(r.deviceId); it != deviceMap.end()) r.deviceId = it->second;
        devicesUsed.insert(r.deviceId);
    }

    const std::string& path_;
    StoreWriter& writer_;
    bool any_ = false;
    SpillingSorter<PendingRange, ThreadThenStart> ranges_{kRangesInMemory};
    KinetoEventReader reader_;
    KinetoEvent e_;
    // Transparent lookup: a name read as a string_view is found without a copy.
    struct NameHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const {
            return std::hash<std::string_view>()(s);
        }
    };
    std::unordered_map<std::string, std::uint32_t, NameHash, std::equal_to<>> nameIds_;
    std::vector<const std::string*> names_;
    // Each distinct annotation name parsed once.
    std::unordered_map<std::uint32_t, std::optional<EngineStepAnnotation>> steps_;
    const EngineStepAnnotation* stepOf(std::uint32_t name) {
        auto it = steps_.find(name);
        if (it == steps_.end())
            it = steps_.emplace(name, parseEngineStepAnnotation(*names_[name])).first;
        return it->second ? &*it->second : nullptr;
    }
};

// nlohmann's SAX interface over the trace without its events (the splitter
// hands those to the EventSink and leaves traceEvents as []): it checks every
// byte of the rest and keeps the few top-level fields the run needs.
class KinetoSax {
  public:
    explicit KinetoSax(const std::string& path) : path_(path) {}

    std::map<std::string, Json> top;  // deviceProperties, baseTimeNanoseconds, …
    bool rootIsObject = false;

    bool null() { return scalar(Json()); }
    bool boolean(bool v) { return scalar(Json(v)); }
    bool number_integer(std::int64_t v) { return scalar(Json(v)); }
    bool number_unsigned(std::uint64_t v) { return scalar(Json(v)); }
    bool number_float(long double v, const std::string&) { return scalar(Json(v)); }
    bool string(std::string& v) { return scalar(Json(std::move(v))); }
    bool binary(Json::binary_t&) { return scalar(Json()); }
    bool start_object(std::size_t) { return start(true); }
    bool start_array(std::size_t) { return start(false); }
    bool end_object() { return end(); }
    bool end_array() { return end(); }
    bool key(std::string& k) {
        if (mode_ == Mode::Top)
            key_ = std::move(k);
        else if (mode_ == Mode::Build && skip_ == 0)
            buildKey_ = std::move(k);
        return true;
    }
    // `position` counts bytes of the skeleton; the splitter knows the file's.
    std::function<std::int64_t()> offset;
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception&) {
        importError(path_, "(file)",
                    "not valid JSON (at byte " +
                        std::to_string(offset ? offset() : static_cast<std::int64_t>(position)) +
                        ")");
    }

  private:
    enum class Mode { Root, Top, Build, Skip, Done };
    static constexpr std::size_t kMaxDepth = 3;  // deviceProperties → device → field

    static bool kept(const std::string& key) {
        return key == "deviceProperties" || key == "baseTimeNanoseconds" ||
               key == "cuda_driver_version";
    }

    bool scalar(Json&& v) {
        switch (mode_) {
            case Mode::Root:
                mode_ = Mode::Done;
                break;  // a bare value: not a trace
            case Mode::Top:
                if (kept(key_)) top[key_] = std::move(v);
                break;
            case Mode::Build:
                if (skip_ == 0) place(std::move(v));
                if (stack_.empty()) finish();
                break;
            case Mode::Skip:
            case Mode::Done:
                break;
        }
        return true;
    }

    bool start(bool object) {
        switch (mode_) {
            case Mode::Root:
                rootIsObject = object;
                mode_ = object ? Mode::Top : Mode::Skip;
                skip_ = object ? 0 : 1;
                skipEnds_ = Mode::Done;
                break;
            case Mode::Top:
                if (kept(key_)) {
                    begin(object);
                } else {
                    mode_ = Mode::Skip, skip_ = 1, skipEnds_ = Mode::Top;
                }
                break;
            case Mode::Build:
                if (skip_ > 0 || stack_.size() >= kMaxDepth) {
                    if (skip_++ == 0) place(Json());
                } else {
                    stack_.push_back(place(object ? Json::object() : Json::array()));
                }
                break;
            case Mode::Skip:
                ++skip_;
                break;
            case Mode::Done:
                break;
        }
        return true;
    }

    bool end() {
        switch (mode_) {
            case Mode::Top:
                mode_ = Mode::Done;
                break;  // the root object closed
            case Mode::Build:
                if (skip_ > 0) {
                    --skip_;
                } else {
                    stack_.pop_back();
                    if (stack_.empty()) finish();
                }
                break;
            case Mode::Skip:
                if (--skip_ == 0) mode_ = skipEnds_;
                break;
            case Mode::Root:
            case Mode::Done:
                break;
        }
        return true;
    }

    // A value for a kept top-level field.
    void begin(bool object) {
        mode_ = Mode::Build;
        value_ = object ? Json::object() : Json::array();
        stack_.assign(1, &value_);
    }

    Json* place(Json&& v) {
        Json& parent = *stack_.back();
        if (parent.is_object()) {
            Json& slot = parent[buildKey_];
            slot = std::move(v);
            return &slot;
        }
        parent.push_back(std::move(v));
        return &parent.back();
    }

    void finish() {
        mode_ = Mode::Top;
        top[key_] = std::move(value_);
        value_ = Json();
    }

    const std::string& path_;
    Mode mode_ = Mode::Root, skipEnds_ = Mode::Top;
    std::string key_, buildKey_;
    std::size_t skip_ = 0;
    Json value_;
    std::vector<Json*> stack_;
};

struct TraceInput {
    std::string path;
    ArrayMemberSplitter::Source source;
};

constexpr std::int64_t kYear2001Ns = 978'307'200'000'000'000;

// The trace's baseTimeNanoseconds (Kineto's ts are relative to it when it is
// there), 0 without one.
std::int64_t baseOf(const std::string& path, const std::map<std::string, Json>& top,
                    std::int64_t firstNs) {
    auto it = top.find("baseTimeNanoseconds");
    std::int64_t base =
        it != top.end() && it->second.is_number_integer() ? it->second.get<std::int64_t>() : 0;
    if (base < 0 || base > limits::kLatestTimeNs - firstNs)
        importError(path, "baseTimeNanoseconds", "negative or past the year 2100");
    return base;
}

// The one GPU a rank's process saw (deviceProperties with one entry), or
// nothing when it saw several (it then names its own by its index).
std::optional<std::uint32_t> onlyDeviceOf(const std::map<std::string, Json>& top) {
    auto it = top.find("deviceProperties");
    if (it == top.end() || !it->second.is_array() || it->second.size() != 1) return std::nullopt;
    auto id = intArg(it->second[0], "id", -1);
    if (id < 0 || id > std::numeric_limits<std::uint32_t>::max() / 2) return std::nullopt;
    return static_cast<std::uint32_t>(id);
}

// One run from one trace file, or from several (one per rank, the first's
// clock, GPUs and steps leading).
ImportResult importStreaming(Store& store, const std::string& path, const std::string& label,
                             std::vector<TraceInput> inputs) {
    NewRun nr;
    std::string file = std::filesystem::path(path).filename().string();
    nr.label = label.empty() ? "PyTorch profiler " + file : label;
    nr.workload = WorkloadInfo{file, "imported", ""};
    nr.command = "torch.profiler (imported from " + path + ")";
    std::int64_t kernels = 0;
    // One transaction (storeImportedRun): records are written as they are
    // read, and an error at any byte of any file rolls all of them back.
    auto imported = storeImportedRun(store, nr, [&](RunId run, StoreWriter& w) {
        std::int64_t firstOffset = 0;  // the first file's base when its ts are relative
        std::set<std::uint32_t> devicesSoFar;
        std::string joinLog;
        std::int64_t steps = 0;
        std::string stepEngine;
        for (std::size_t f = 0; f < inputs.size(); ++f) {
            const std::string& in = inputs[f].path;
            EventSink sink(in, w);
            KinetoSax sax(in);
            sink.readSteps = f == 0;
            std::optional<std::int64_t> baseAtFirstEvent;
            if (f > 0)
                sink.beforeFirstEvent = [&](std::int64_t firstEventNs) {
                    // Kineto writes baseTimeNanoseconds before traceEvents.
                    auto it = sax.top.find("baseTimeNanoseconds");
                    baseAtFirstEvent = it != sax.top.end() && it->second.is_number_integer()
                                           ? it->second.get<std::int64_t>()
                                           : 0;
                    std::int64_t offset = firstEventNs < kYear2001Ns ? *baseAtFirstEvent : 0;
                    sink.shiftNs = offset - firstOffset;
                    if (auto only = onlyDeviceOf(sax.top); only && devicesSoFar.count(*only)) {
                        std::uint32_t next = *devicesSoFar.rbegin() + 1;
                        sink.deviceMap[*only] = next;
                        joinLog += "[warpscope] " + in + " saw its GPU as " +
                                   std::to_string(*only) + ", as an earlier rank did: GPU " +
                                   std::to_string(next) + " here\n";
                    }
                };
            ArrayMemberSplitter events(in, inputs[f].source, "traceEvents",
                                       [&](std::size_t i, const char* data, std::size_t size) {
                                           sink.add(i, data, size);
                                       });
            sax.offset = [&] { return events.offset(); };
            Json::sax_parse(events.begin(), events.end(), &sax);
            if (!sax.rootIsObject || !events.sawMember())
                importError(in, "traceEvents", "missing or not an array (not a Chrome trace)");
            if (sink.kernels == 0 && sink.apiCalls == 0 && sink.ranges() == 0)
                importError(in, "traceEvents",
                            "no kernels, CUDA calls or operators (was the profiler run with "
                            "ProfilerActivity.CUDA?)");
            const std::int64_t base = baseOf(in, sax.top, sink.firstNs);
            if (f > 0 && baseAtFirstEvent && base != *baseAtFirstEvent)
                importError(in, "baseTimeNanoseconds",
                            "written after traceEvents: its events cannot be placed on the "
                            "first file's clock");
            sink.writeRanges();
            devicesSoFar.insert(sink.devicesUsed.begin(), sink.devicesUsed.end());
            kernels += sink.kernels;
            steps += sink.engineSteps;
            if (f > 0) continue;
            stepEngine = sink.stepEngine;
            firstOffset = sink.firstNs < kYear2001Ns ? base : 0;
            auto device = deviceOf(in, sax.top, sink.firstKernelDevice);
            auto driver = sax.top.find("cuda_driver_version");
            if (device && driver != sax.top.end() && driver->second.is_number_integer()) {
                auto v = driver->second.get<std::int64_t>();  // e.g. 13000 = 13.0
                device->cudaVersion =
                    std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
            }
            // Kineto's ts are microseconds on the Unix clock, or relative to
            // baseTimeNanoseconds when the trace has it.
            std::int64_t startedAt = sink.firstNs > kYear2001Ns ? sink.firstNs
                                     : base > 0                 ? base + sink.firstNs
                                                                : 0;  // unknown: now
            if (device) store.setDevice(run, *device);
            if (startedAt) store.setStartedAt(run, startedAt);
        }
        if (inputs.size() > 1) {
            std::string names;
            for (const auto& in : inputs)
                names += (names.empty() ? "" : ", ") +
                         std::filesystem::path(in.path).filename().string();
            store.setProperty(run, "kineto.files", std::to_string(inputs.size()));
            store.appendLog(run, "[warpscope] " + std::to_string(inputs.size()) +
                                     " trace files as one run, one per rank: " + names +
                                     "; times on the first's clock, engine steps from it\n" +
                                     joinLog);
        }
        if (steps > 0) {
            store.setProperty(
                run, "engine.step_source",
                stepEngine + " step annotations (" + std::to_string(steps) + " steps)");
            store.appendLog(run, "[warpscope] " + std::to_string(steps) + " " + stepEngine +
                                     " step annotations read as engine.step ranges (`steps`, "
                                     "`outliers`)\n");
        }
        store.setProperty(run, "imported_from", path);
    });
    return {imported.run,
            "PyTorch profiler (Kineto) trace",
            imported.requests,
            kernels,
            imported.records,
            {imported.run},
            {}};
}

}  // namespace

bool isKinetoTrace(const std::string& text) {
    auto doc = Json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) return false;
    auto events = doc.find("traceEvents");
    if (events == doc.end() || !events->is_array()) return false;
    if (doc.contains("schemaVersion") || doc.contains("deviceProperties")) return true;
    for (const auto& e : *events)
        if (e.is_object() && (textOf(e, "cat") == "kernel" || textOf(e, "cat") == "cuda_runtime"))
            return true;
    return false;
}

ImportResult importKinetoTrace(Store& store, const std::string& path, const std::string& text,
                               const std::string& label) {
    std::size_t at = 0;
    return importStreaming(store, path, label, {{path, [&](char* out, std::size_t size) {
                                                     std::size_t n = text.copy(out, size, at);
                                                     at += n;
                                                     return n;
                                                 }}});
}

ImportResult importKinetoTraceFile(Store& store, const std::string& path, const std::string& label,
                                   ReadProgress progress) {
    return importKinetoTraceFiles(store, path, {path}, label, std::move(progress));
}

ImportResult importKinetoTraceFiles(Store& store, const std::string& folder,
                                    const std::vector<std::string>& files, const std::string& label,
                                    ReadProgress progress) {
    std::vector<std::unique_ptr<TraceReader>> readers;
    std::vector<TraceInput> inputs;
    for (const auto& file : files) {
        readers.push_back(std::make_unique<TraceReader>(file, progress));
        TraceReader* reader = readers.back().get();
        inputs.push_back(
            {file, [reader](char* out, std::size_t size) { return reader->read(out, size); }});
    }
    return importStreaming(store, folder, label, std::move(inputs));
}

}  // namespace ws

namespace ws {

namespace {

// Reads no more of a file than it needs to tell a Kineto trace.
class KinetoSniffer : public nlohmann::json_sax<Json> {
  public:
    bool kineto = false;

    bool null() override { return value(); }
    bool boolean(bool) override { return value(); }
    bool number_integer(std::int64_t) override { return value(); }
    bool number_unsigned(std::uint64_t) override { return value(); }
    bool number_float(long double, const std::string&) override { return value(); }
    bool string(std::string& v) override {
        if (depth_ == 3 && inEvents_ && key_ == "cat" && (v == "kernel" || v == "cuda_runtime"))
            marked_ = true;
        return value();
    }
    bool binary(binary_t&) override { return value(); }
    bool start_object(std::size_t) override {
        if (depth_ == 0) rootObject_ = true;
        return open();
    }
    bool start_array(std::size_t) override {
        if (depth_ == 1 && key_ == "traceEvents") inEvents_ = sawEvents_ = true;
        return open();
    }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }
    bool key(std::string& k) override {
        if (depth_ == 1 && (k == "schemaVersion" || k == "deviceProperties")) marked_ = true;
        if (depth_ == 1 || depth_ == 3) key_ = std::move(k);
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
        return false;
    }

  private:
    bool decided() {
        kineto = rootObject_ && sawEvents_ && marked_;
        return !kineto;  // false stops the parser
    }
    bool value() { return decided(); }
    bool open() {
        ++depth_;
        return decided();
    }
    bool close() {
        if (--depth_ == 1) inEvents_ = false;
        return true;
    }

    int depth_ = 0;
    bool rootObject_ = false, inEvents_ = false, sawEvents_ = false, marked_ = false;
    std::string key_;
};

}  // namespace

bool isKinetoTraceFile(const std::string& path) {
    try {
        TraceReader reader(path);
        BufferedInput input(reader, 1 << 16);
        KinetoSniffer sniffer;
        Json::sax_parse(input.begin(), input.end(), &sniffer);
        return sniffer.kineto;
    } catch (const std::runtime_error&) {
        return false;  // unreadable, or a damaged gzip stream
    }
}

}  // namespace ws
