#include "io/run_export.h"

#include <nlohmann/json.hpp>
#include <unordered_map>

#include "analysis/kernel_summary.h"
#include "store/run_queries.h"
#include "store/store.h"

namespace ws {

using nlohmann::ordered_json;

namespace {

const std::vector<std::string> kTableNames = {"kernels",   "memcpys", "memsets",
                                              "api_calls", "ranges",  "requests",
                                              "tokens",    "samples", "metrics"};

std::string csvField(const std::string& v) {
    if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
    std::string out = "\"";
    for (char c : v) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

template <typename T>
std::string str(const std::optional<T>& v) {
    if (!v) return "";
    ordered_json j = *v;
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A run repeats a few hundred kernel names over millions of launches: each
// name is demangled once.
const std::string& demangledName(const std::string& name) {
    static thread_local std::unordered_map<std::string, std::string> cache;
    auto it = cache.find(name);
    if (it == cache.end()) it = cache.emplace(name, demangle(name)).first;
    return it->second;
}

// Each table is described once as (column names, row → json object); CSV and
// JSON both come from that.
ordered_json kernelJson(const KernelRecord& k, std::uint32_t processId = 0) {
    return {{"start_ns", k.startNs},
            {"end_ns", k.endNs},
            {"duration_ns", k.durationNs()},
            {"device_id", k.deviceId},
            {"context_id", k.contextId},
            {"stream_id", k.streamId},
            {"process_id", processId},
            {"correlation_id", k.correlationId},
            {"name", k.name},
            {"demangled", demangledName(k.name)},
            {"grid_x", k.gridX},
            {"grid_y", k.gridY},
            {"grid_z", k.gridZ},
            {"block_x", k.blockX},
            {"block_y", k.blockY},
            {"block_z", k.blockZ},
            {"cluster_x", k.clusterX},
            {"cluster_y", k.clusterY},
            {"cluster_z", k.clusterZ},
            {"registers_per_thread", k.registersPerThread},
            {"static_smem_bytes", k.staticSharedBytes},
            {"dynamic_smem_bytes", k.dynamicSharedBytes},
            {"local_bytes_per_thread", k.localBytesPerThread},
            {"local_bytes_total", k.localBytesTotal},
            {"smem_carveout_bytes", k.sharedCarveoutBytes},
            {"graph_id", k.graphId},
            {"graph_node_id", k.graphNodeId}};
}

ordered_json memcpyJson(const MemcpyRecord& m, std::uint32_t processId = 0) {
    return {{"start_ns", m.startNs},
            {"end_ns", m.endNs},
            {"duration_ns", m.endNs - m.startNs},
            {"device_id", m.deviceId},
            {"context_id", m.contextId},
            {"stream_id", m.streamId},
            {"process_id", processId},
            {"correlation_id", m.correlationId},
            {"kind", toString(m.kind)},
            {"src_kind", toString(m.srcKind)},
            {"dst_kind", toString(m.dstKind)},
            {"bytes", m.bytes},
            {"graph_id", m.graphId}};
}

ordered_json memsetJson(const MemsetRecord& m, std::uint32_t processId = 0) {
    return {{"start_ns", m.startNs},
            {"end_ns", m.endNs},
            {"duration_ns", m.endNs - m.startNs},
            {"device_id", m.deviceId},
            {"context_id", m.contextId},
            {"stream_id", m.streamId},
            {"process_id", processId},
            {"correlation_id", m.correlationId},
            {"bytes", m.bytes},
            {"value", m.value},
            {"memory_kind", toString(m.memoryKind)},
            {"graph_id", m.graphId}};
}

ordered_json apiJson(const ApiCallRecord& a) {
    return {{"start_ns", a.startNs},
            {"end_ns", a.endNs},
            {"duration_ns", a.endNs - a.startNs},
            {"process_id", a.processId},
            {"thread_id", a.threadId},
            {"correlation_id", a.correlationId},
            {"api", a.kind == ApiKind::Runtime ? "runtime" : "driver"},
            {"callback_id", a.callbackId},
            {"name", a.name},
            {"return_value", a.returnValue}};
}

ordered_json rangeJson(const RangeRecord& r) {
    const char* kind = r.kind == RangeKind::Mark       ? "mark"
                       : r.kind == RangeKind::StartEnd ? "start_end"
                                                       : "push_pop";
    return {{"start_ns", r.startNs},
            {"end_ns", r.endNs},
            {"duration_ns", r.endNs - r.startNs},
            {"process_id", r.processId},
            {"thread_id", r.threadId},
            {"name", r.name},
            {"domain", r.domain},
            {"kind", kind},
            {"color", r.color},
            {"depth", r.depth}};
}

ordered_json requestJson(const RequestRecord& r) {
    return {{"request_id", r.requestId},
            {"start_ns", r.startNs},
            {"end_ns", r.endNs},
            {"prompt_tokens", r.promptTokens},
            {"output_tokens", r.outputTokens},
            {"success", r.success}};
}

ordered_json tokenJson(const TokenRecord& t) {
    return {{"request_id", t.requestId}, {"token_index", t.index}, {"time_ns", t.timeNs}};
}

ordered_json sampleJson(const SampleRecord& s) {
    auto opt = [](const auto& v) { return v ? ordered_json(*v) : ordered_json(nullptr); };
    return {{"time_ns", s.timeNs},
            {"device_index", s.deviceIndex},
            {"power_w", opt(s.powerW)},
            {"sm_clock_mhz", opt(s.smClockMhz)},
            {"mem_clock_mhz", opt(s.memClockMhz)},
            {"temperature_c", opt(s.temperatureC)},
            {"memory_used_bytes", opt(s.memoryUsedBytes)},
            {"gpu_util_percent", opt(s.gpuUtilPercent)},
            {"mem_util_percent", opt(s.memUtilPercent)},
            {"energy_j", opt(s.energyJ)},
            {"clock_event_reasons", opt(s.clockEventReasons)},
            {"nvlink_tx_bytes", opt(s.nvlinkTxBytes)},
            {"nvlink_rx_bytes", opt(s.nvlinkRxBytes)}};
}

ordered_json metricJson(const KernelMetricRecord& m) {
    return {{"correlation_id", m.correlationId}, {"metric", m.metric}, {"value", m.value}};
}

// The process that made each (device, stream) of a run: device records carry
// only their stream; gpu_streams says whose it is (0: not known, as in some
// imported traces).
class StreamProcesses {
  public:
    StreamProcesses(Store& store, RunId id) {
        for (const auto& s : gpuStreamsOf(store, id))
            byStream_[key(s.deviceId, s.streamId)] = s.processId;
    }
    std::uint32_t of(std::uint32_t deviceId, std::uint32_t streamId) const {
        auto it = byStream_.find(key(deviceId, streamId));
        return it == byStream_.end() ? 0 : it->second;
    }

  private:
    static std::uint64_t key(std::uint32_t device, std::uint32_t stream) {
        return (std::uint64_t{device} << 32) | stream;
    }
    std::unordered_map<std::uint64_t, std::uint32_t> byStream_;
};

// Visits every row of `table` as a JSON object, in time order.
void forEachRow(Store& store, RunId id, RunTable table,
                const std::function<void(const ordered_json&)>& visit) {
    switch (table) {
        case RunTable::Kernels: {
            StreamProcesses processes(store, id);
            forEachKernel(store, id, {}, std::nullopt, [&](const KernelRecord& r) {
                visit(kernelJson(r, processes.of(r.deviceId, r.streamId)));
            });
            break;
        }
        case RunTable::Memcpys: {
            StreamProcesses processes(store, id);
            forEachMemcpy(store, id, {}, std::nullopt, [&](const MemcpyRecord& r) {
                visit(memcpyJson(r, processes.of(r.deviceId, r.streamId)));
            });
            break;
        }
        case RunTable::Memsets: {
            StreamProcesses processes(store, id);
            forEachMemset(store, id, {}, std::nullopt, [&](const MemsetRecord& r) {
                visit(memsetJson(r, processes.of(r.deviceId, r.streamId)));
            });
            break;
        }
        case RunTable::ApiCalls:
            forEachApiCall(store, id, {}, std::nullopt,
                           [&](const ApiCallRecord& r) { visit(apiJson(r)); });
            break;
        case RunTable::Ranges:
            forEachRange(store, id, {}, std::nullopt,
                         [&](const RangeRecord& r) { visit(rangeJson(r)); });
            break;
        case RunTable::Requests:
            for (const auto& r : requestsOf(store, id))
                visit(requestJson(r));
            break;
        case RunTable::Tokens:
            for (const auto& t : tokensOf(store, id))
                visit(tokenJson(t));
            break;
        case RunTable::Samples:
            for (const auto& s : samplesOf(store, id))
                visit(sampleJson(s));
            break;
        case RunTable::Metrics:
            for (const auto& m : kernelMetricsOf(store, id))
                visit(metricJson(m));
            break;
    }
}

// Column names of each table, taken from a default record so CSV headers
// are written even for an empty table.
std::vector<std::string> columnsOf(RunTable table) {
    ordered_json proto;
    switch (table) {
        case RunTable::Kernels:
            proto = kernelJson({});
            break;
        case RunTable::Memcpys:
            proto = memcpyJson({});
            break;
        case RunTable::Memsets:
            proto = memsetJson({});
            break;
        case RunTable::ApiCalls:
            proto = apiJson({});
            break;
        case RunTable::Ranges:
            proto = rangeJson({});
            break;
        case RunTable::Requests:
            proto = requestJson({});
            break;
        case RunTable::Tokens:
            proto = tokenJson({});
            break;
        case RunTable::Samples:
            proto = sampleJson({});
            break;
        case RunTable::Metrics:
            proto = metricJson({});
            break;
    }
    std::vector<std::string> cols;
    for (const auto& [key, value] : proto.items())
        cols.push_back(key);
    return cols;
}

std::string csvValue(const ordered_json& v) {
    if (v.is_null()) return "";
    if (v.is_string()) return csvField(v.get<std::string>());
    return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

static ordered_json runJson(const RunInfo& r) {
    ordered_json j = {{"id", r.id},
                      {"label", r.label},
                      {"status", toString(r.status)},
                      {"workload", r.workload},
                      {"workload_kind", r.workloadKind},
                      {"device", r.device},
                      {"variant", r.variant},
                      {"tags", r.tags},
                      {"started_at", r.startedAtNs},
                      {"ended_at", r.endedAtNs ? ordered_json(*r.endedAtNs) : nullptr},
                      {"duration_ns", r.durationNs()},
                      {"exit_code", r.exitCode ? ordered_json(*r.exitCode) : nullptr},
                      {"signal", r.signal ? ordered_json(*r.signal) : nullptr},
                      {"command", r.command},
                      {"host", r.host},
                      {"dropped_records", r.droppedRecords},
                      {"warpscope_version", r.warpscopeVersion}};
    return j;
}

const std::vector<std::string>& runTableNames() {
    return kTableNames;
}

std::optional<RunTable> runTableFromString(const std::string& name) {
    for (std::size_t i = 0; i < kTableNames.size(); ++i)
        if (kTableNames[i] == name) return static_cast<RunTable>(i);
    return std::nullopt;
}

void exportRunCsv(Store& store, RunId id, RunTable table, std::ostream& out) {
    requireRun(store, id);
    auto cols = columnsOf(table);
    for (std::size_t i = 0; i < cols.size(); ++i)
        out << (i ? "," : "") << cols[i];
    out << '\n';
    forEachRow(store, id, table, [&](const ordered_json& row) {
        for (std::size_t i = 0; i < cols.size(); ++i)
            out << (i ? "," : "") << csvValue(row[cols[i]]);
        out << '\n';
    });
}

void exportRunJson(Store& store, RunId id, std::ostream& out) {
    auto run = requireRun(store, id);
    ordered_json head = runJson(run);
    if (auto d = runDevice(store, id)) {
        head["device_info"] = {
            {"name", d->name},
            {"uuid", d->uuid},
            {"compute_capability", std::to_string(d->ccMajor) + "." + std::to_string(d->ccMinor)},
            {"sm_count", d->smCount},
            {"memory_bytes", d->memoryBytes},
            {"l2_bytes", d->l2Bytes},
            {"driver_version", d->driverVersion},
            {"cuda_version", d->cudaVersion}};
    }
    if (auto w = runWorkload(store, id))
        head["workload_config"] = {{"name", w->name}, {"kind", w->kind}, {"text", w->configText}};
    head["properties"] = runProperties(store, id);
    head["log"] = runLog(store, id);
    // The head is written without its closing brace; tables follow, streamed.
    std::string text = head.dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
    text.erase(text.find_last_of('}'));
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
    out << text;
    for (std::size_t t = 0; t < kTableNames.size(); ++t) {
        out << ",\n \"" << kTableNames[t] << "\": [";
        bool first = true;
        forEachRow(store, id, static_cast<RunTable>(t), [&](const ordered_json& row) {
            out << (first ? "\n  " : ",\n  ")
                << row.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
            first = false;
        });
        out << (first ? "]" : "\n ]");
    }
    out << "\n}\n";
}

void writeRunListJson(const std::vector<RunInfo>& runs, std::ostream& out) {
    ordered_json list = ordered_json::array();
    for (const auto& r : runs)
        list.push_back(runJson(r));
    out << list.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

}  // namespace ws
