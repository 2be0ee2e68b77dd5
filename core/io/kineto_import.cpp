#include "io/kineto_import.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "model/value_limits.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "store/store_writer.h"

namespace ws {

namespace {

// Kineto writes ts in microseconds with nanosecond decimals; long double keeps
// every nanosecond of an epoch-based timestamp, which a double would not.
using Json = nlohmann::basic_json<std::map, std::vector, std::string, bool, std::int64_t,
                                  std::uint64_t, long double>;

std::string where(std::size_t index, const Json& e) {
    std::string name =
        e.contains("name") && e["name"].is_string() ? e["name"].get<std::string>() : "";
    return "traceEvents[" + std::to_string(index) + "]" + (name.empty() ? "" : " (" + name + ")");
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

// pid / tid are numbers, or strings such as "stream 7" on GPU lanes.
std::uint32_t idOf(const Json& e, const char* key) {
    auto it = e.find(key);
    if (it == e.end()) return 0;
    if (it->is_number()) return static_cast<std::uint32_t>(integer(*it).value_or(0));
    if (it->is_string()) {
        auto s = it->get<std::string>();
        auto digits = s.find_first_of("0123456789");
        return digits == std::string::npos
                   ? 0
                   : static_cast<std::uint32_t>(std::strtoul(s.c_str() + digits, nullptr, 10));
    }
    return 0;
}

void dims(const std::string& path, const std::string& where, const Json& args, const char* key,
          std::int32_t& x, std::int32_t& y, std::int32_t& z) {
    auto it = args.find(key);
    if (it == args.end() || !it->is_array() || it->size() != 3) return;
    std::int32_t* out[] = {&x, &y, &z};
    for (int i = 0; i < 3; ++i) {
        auto v = integer((*it)[static_cast<std::size_t>(i)]);
        if (!v || *v < 0 || *v > std::numeric_limits<std::int32_t>::max())
            importError(path, where + ".args." + key + "[" + std::to_string(i) + "]",
                        "not a count of blocks or threads");
        *out[i] = static_cast<std::int32_t>(*v);
    }
}

std::int64_t checkedBytes(const std::string& path, const std::string& where, const Json& args) {
    auto it = args.find("bytes");
    if (it == args.end()) return 0;
    auto bytes = integer(*it);
    if (!bytes || limits::bytesProblem(*bytes))
        importError(path, where + ".args.bytes", "negative, over 1 PiB or not a number");
    return *bytes;
}

// "Memcpy HtoD (Pageable -> Device)" → kind and both memory kinds.
void parseMemcpyName(const std::string& name, MemcpyRecord& r) {
    static const std::pair<const char*, MemcpyKind> kinds[] = {
        {"HtoD", MemcpyKind::HtoD}, {"DtoH", MemcpyKind::DtoH}, {"HtoA", MemcpyKind::HtoA},
        {"AtoH", MemcpyKind::AtoH}, {"AtoA", MemcpyKind::AtoA}, {"AtoD", MemcpyKind::AtoD},
        {"DtoA", MemcpyKind::DtoA}, {"DtoD", MemcpyKind::DtoD}, {"HtoH", MemcpyKind::HtoH},
        {"PtoP", MemcpyKind::PtoP}};
    for (const auto& [text, kind] : kinds)
        if (name.find(text) != std::string::npos) r.kind = kind;
    // "Pageable", "Device", "Pinned": our names in lower case.
    auto memoryKind = [](std::string s) {
        std::transform(s.begin(), s.end(), s.begin(),
                       [](unsigned char c) { return std::tolower(c); });
        return memoryKindFromString(s);
    };
    auto open = name.find('('), arrow = name.find(" -> "), close = name.find(')');
    if (open == std::string::npos || arrow == std::string::npos || close == std::string::npos)
        return;
    r.srcKind = memoryKind(name.substr(open + 1, arrow - open - 1));
    r.dstKind = memoryKind(name.substr(arrow + 4, close - arrow - 4));
}

std::optional<DeviceInfo> deviceOf(const std::string& path, const Json& doc,
                                   std::uint32_t deviceId) {
    auto it = doc.find("deviceProperties");
    if (it == doc.end() || !it->is_array() || it->empty()) return std::nullopt;
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
void placeOnGpu(R& r, const Json& e, const Json& args, std::int64_t start, std::int64_t end) {
    r.startNs = start;
    r.endNs = end;
    r.deviceId = static_cast<std::uint32_t>(intArg(args, "device", idOf(e, "pid")));
    r.contextId = static_cast<std::uint32_t>(intArg(args, "context"));
    r.streamId = static_cast<std::uint32_t>(intArg(args, "stream", idOf(e, "tid")));
    r.correlationId = static_cast<std::uint32_t>(intArg(args, "correlation"));
}

struct Converted {
    std::vector<KernelRecord> kernels;
    std::vector<MemcpyRecord> memcpys;
    std::vector<MemsetRecord> memsets;
    std::vector<ApiCallRecord> apiCalls;
    std::vector<RangeRecord> ranges;
    std::vector<OverheadRecord> overheads;
    std::int64_t firstNs = 0;
};

Converted convert(const std::string& path, const Json& events) {
    Converted out;
    bool any = false;
    for (std::size_t i = 0; i < events.size(); ++i) {
        const Json& e = events[i];
        if (!e.is_object())
            importError(path, "traceEvents[" + std::to_string(i) + "]", "not an object");
        if (textOf(e, "ph") != "X") continue;  // flows, counters, metadata
        std::string cat = textOf(e, "cat");
        if (!e.contains("ts") || !e["ts"].is_number())
            importError(path, where(i, e) + ".ts", "missing or not a number");
        if (!e.contains("dur") || !e["dur"].is_number())
            importError(path, where(i, e) + ".dur", "missing or not a number");
        auto ts = limits::toNs(e["ts"].get<long double>(), 1000.0L, 0, limits::kLatestTimeNs);
        if (!ts)
            importError(path, where(i, e) + ".ts", "negative, past the year 2100 or not finite");
        auto dur = limits::toNs(e["dur"].get<long double>(), 1000.0L, 0, limits::kLongestSpanNs);
        if (!dur) importError(path, where(i, e) + ".dur", "negative, over a year or not finite");
        std::int64_t start = *ts, end = *ts + *dur;
        if (!any || start < out.firstNs) out.firstNs = start;
        any = true;
        std::string name = textOf(e, "name");
        static const Json kNoArgs = Json::object();
        const Json& args = e.contains("args") && e["args"].is_object() ? e["args"] : kNoArgs;
        if (cat == "kernel") {
            KernelRecord r;
            placeOnGpu(r, e, args, start, end);
            r.name = name;
            r.registersPerThread = static_cast<std::int32_t>(intArg(args, "registers per thread"));
            // Kineto reports static + dynamic shared memory as one number.
            r.staticSharedBytes = static_cast<std::int32_t>(intArg(args, "shared memory"));
            dims(path, where(i, e), args, "grid", r.gridX, r.gridY, r.gridZ);
            dims(path, where(i, e), args, "block", r.blockX, r.blockY, r.blockZ);
            out.kernels.push_back(std::move(r));
        } else if (cat == "gpu_memcpy") {
            MemcpyRecord r;
            placeOnGpu(r, e, args, start, end);
            r.bytes = checkedBytes(path, where(i, e), args);
            parseMemcpyName(name, r);
            out.memcpys.push_back(r);
        } else if (cat == "gpu_memset") {
            MemsetRecord r;
            placeOnGpu(r, e, args, start, end);
            r.bytes = checkedBytes(path, where(i, e), args);
            if (name.find("Device") != std::string::npos) r.memoryKind = MemoryKind::Device;
            out.memsets.push_back(r);
        } else if (cat == "cuda_runtime" || cat == "cuda_driver") {
            ApiCallRecord r;
            r.startNs = start, r.endNs = end, r.name = name;
            r.processId = idOf(e, "pid");
            r.threadId = idOf(e, "tid");
            r.correlationId = static_cast<std::uint32_t>(intArg(args, "correlation"));
            r.kind = cat == "cuda_runtime" ? ApiKind::Runtime : ApiKind::Driver;
            r.callbackId = static_cast<std::uint32_t>(intArg(args, "cbid"));
            out.apiCalls.push_back(std::move(r));
        } else if (cat == "cpu_op" || cat == "user_annotation") {
            RangeRecord r;
            r.startNs = start, r.endNs = end, r.name = name;
            r.processId = idOf(e, "pid");
            r.threadId = idOf(e, "tid");
            r.domain = cat == "cpu_op" ? "torch.op" : "torch.annotation";
            r.kind = RangeKind::PushPop;
            out.ranges.push_back(std::move(r));
        } else if (cat == "overhead") {  // the profiler's own work, e.g. buffer requests
            out.overheads.push_back({start, end, name});
        }
    }
    assignNestingDepth(out.ranges);
    return out;
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
    auto doc = Json::parse(text, nullptr, false);
    if (doc.is_discarded()) importError(path, "(file)", "not valid JSON");
    if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array())
        importError(path, "traceEvents", "missing or not an array (not a Chrome trace)");
    auto converted = convert(path, doc["traceEvents"]);
    if (converted.kernels.empty() && converted.apiCalls.empty() && converted.ranges.empty())
        importError(path, "traceEvents",
                    "no kernels, CUDA calls or operators (was the profiler run with "
                    "ProfilerActivity.CUDA?)");

    NewRun nr;
    std::string file = std::filesystem::path(path).filename().string();
    nr.label = label.empty() ? "PyTorch profiler " + file : label;
    nr.workload = WorkloadInfo{file, "imported", ""};
    nr.device = deviceOf(path, doc, converted.kernels.empty() ? 0 : converted.kernels[0].deviceId);
    if (nr.device && doc.contains("cuda_driver_version") &&
        doc["cuda_driver_version"].is_number_integer()) {
        auto v = doc["cuda_driver_version"].get<std::int64_t>();  // e.g. 13000 = 13.0
        nr.device->cudaVersion = std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
    }
    nr.command = "torch.profiler (imported from " + path + ")";
    // Kineto's ts are microseconds on the Unix clock, or relative to
    // baseTimeNanoseconds when the trace has it.
    std::int64_t base =
        doc.contains("baseTimeNanoseconds") && doc["baseTimeNanoseconds"].is_number_integer()
            ? doc["baseTimeNanoseconds"].get<std::int64_t>()
            : 0;
    if (base < 0 || base > limits::kLatestTimeNs - converted.firstNs)
        importError(path, "baseTimeNanoseconds", "negative or past the year 2100");
    constexpr std::int64_t kYear2001Ns = 978'307'200'000'000'000;
    nr.startedAtNs = converted.firstNs > kYear2001Ns ? converted.firstNs
                     : base > 0                      ? base + converted.firstNs
                                                     : 0;  // unknown: now
    std::int64_t kernels = static_cast<std::int64_t>(converted.kernels.size());
    auto imported = storeImportedRun(store, nr, [&](RunId run, StoreWriter& w) {
        for (const auto& r : converted.kernels)
            w.add(r);
        for (const auto& r : converted.memcpys)
            w.add(r);
        for (const auto& r : converted.memsets)
            w.add(r);
        for (const auto& r : converted.apiCalls)
            w.add(r);
        for (const auto& r : converted.ranges)
            w.add(r);
        for (const auto& r : converted.overheads)
            w.add(r);
        store.setProperty(run, "imported_from", path);
    });
    return {imported.run, "PyTorch profiler (Kineto) trace", imported.requests, kernels,
            imported.records};
}

}  // namespace ws
