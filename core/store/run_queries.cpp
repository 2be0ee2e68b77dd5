#include "store/run_queries.h"

#include "store/store.h"

namespace ws {

namespace {

constexpr const char* kRunColumns =
    "r.id, r.label, coalesce(w.name, ''), coalesce(w.kind, ''), coalesce(d.name, ''), "
    "r.variant, r.tags, r.status, r.exit_code, r.signal, r.started_at, r.ended_at, r.command, "
    "r.host, r.dropped_records, r.warpscope_version "
    "FROM runs r LEFT JOIN workloads w ON w.id = r.workload_id "
    "LEFT JOIN devices d ON d.id = r.device_id ";

RunInfo readRun(const sql::Statement& st) {
    RunInfo r;
    r.id = st.int64(0);
    r.label = st.text(1);
    r.workload = st.text(2);
    r.workloadKind = st.text(3);
    r.device = st.text(4);
    r.variant = st.text(5);
    r.tags = st.text(6);
    r.status = runStatusFromString(st.text(7)).value_or(RunStatus::Failed);
    if (!st.isNull(8)) r.exitCode = st.int32(8);
    if (!st.isNull(9)) r.signal = st.int32(9);
    r.startedAtNs = st.int64(10);
    r.endedAtNs = st.optInt64(11);
    r.command = st.text(12);
    r.host = st.text(13);
    r.droppedRecords = st.int64(14);
    r.warpscopeVersion = st.text(15);
    return r;
}

// The WHERE clause for records overlapping a window, bound by bindWindow() to
// ?1..?4; a NULL lane (?4) matches every stream or thread.
std::string windowClause(const char* laneColumn) {
    return std::string(
               " WHERE t.run_id = ?1 AND t.start_ns < ?3 AND t.end_ns > ?2 AND (?4 IS "
               "NULL OR t.") +
           laneColumn + " = ?4) ORDER BY t.start_ns";
}

void bindWindow(sql::Statement& st, RunId id, TimeWindow w, std::optional<std::uint32_t> lane) {
    st.bind(1, id);
    st.bind(2, w.beginNs);
    st.bind(3, w.endNs);
    if (lane)
        st.bind(4, *lane);
    else
        st.bindNull(4);
}

}  // namespace

MemcpyKind memcpyKindFromString(const std::string& text) {
    for (int k = 0; k <= static_cast<int>(MemcpyKind::PtoP); ++k)
        if (text == toString(static_cast<MemcpyKind>(k))) return static_cast<MemcpyKind>(k);
    return MemcpyKind::Unknown;
}

MemoryKind memoryKindFromString(const std::string& text) {
    for (int k = 0; k <= static_cast<int>(MemoryKind::ManagedStatic); ++k)
        if (text == toString(static_cast<MemoryKind>(k))) return static_cast<MemoryKind>(k);
    return MemoryKind::Unknown;
}

std::vector<RunInfo> listRuns(Store& store) {
    sql::Statement st(store.db(), std::string("SELECT ") + kRunColumns + "ORDER BY r.id");
    std::vector<RunInfo> runs;
    while (st.step())
        runs.push_back(readRun(st));
    return runs;
}

std::optional<RunInfo> findRun(Store& store, RunId id) {
    sql::Statement st(store.db(), std::string("SELECT ") + kRunColumns + "WHERE r.id = ?1");
    st.bind(1, id);
    if (!st.step()) return std::nullopt;
    return readRun(st);
}

RunInfo requireRun(Store& store, RunId id) {
    auto run = findRun(store, id);
    if (!run)
        throw StoreError(StoreError::Kind::NotFound,
                         store.path() + ": no run with id " + std::to_string(id));
    return *run;
}

std::optional<DeviceInfo> runDevice(Store& store, RunId id) {
    sql::Statement st(store.db(),
                      "SELECT d.name, d.uuid, d.cc_major, d.cc_minor, d.sm_count, d.memory_bytes, "
                      "d.memory_bus_width_bits, d.memory_clock_khz, d.sm_clock_khz, d.l2_bytes, "
                      "d.driver_version, d.cuda_version, d.regs_per_sm, d.regs_per_block, "
                      "d.smem_per_sm, d.smem_per_block, d.smem_per_block_optin, "
                      "d.reserved_smem_per_block, d.max_warps_per_sm, d.max_blocks_per_sm, "
                      "d.max_threads_per_block, d.warp_size FROM runs r JOIN devices d ON "
                      "d.id = r.device_id WHERE r.id = ?1");
    st.bind(1, id);
    if (!st.step()) return std::nullopt;
    DeviceInfo d;
    d.name = st.text(0);
    d.uuid = st.text(1);
    d.ccMajor = st.int32(2);
    d.ccMinor = st.int32(3);
    d.smCount = st.int32(4);
    d.memoryBytes = st.int64(5);
    d.memoryBusWidthBits = st.int32(6);
    d.memoryClockKhz = st.int32(7);
    d.smClockKhz = st.int32(8);
    d.l2Bytes = st.int64(9);
    d.driverVersion = st.text(10);
    d.cudaVersion = st.text(11);
    d.regsPerSm = st.int32(12);
    d.regsPerBlock = st.int32(13);
    d.smemPerSm = st.int32(14);
    d.smemPerBlock = st.int32(15);
    d.smemPerBlockOptin = st.int32(16);
    d.reservedSmemPerBlock = st.int32(17);
    d.maxWarpsPerSm = st.int32(18);
    d.maxBlocksPerSm = st.int32(19);
    d.maxThreadsPerBlock = st.int32(20);
    d.warpSize = st.int32(21);
    return d;
}

std::optional<WorkloadInfo> runWorkload(Store& store, RunId id) {
    sql::Statement st(store.db(),
                      "SELECT w.name, w.kind, w.config_text FROM runs r JOIN workloads w ON "
                      "w.id = r.workload_id WHERE r.id = ?1");
    st.bind(1, id);
    if (!st.step()) return std::nullopt;
    return WorkloadInfo{st.text(0), st.text(1), st.text(2)};
}

std::string runLog(Store& store, RunId id) {
    sql::Statement st(store.db(), "SELECT log FROM runs WHERE id = ?1");
    st.bind(1, id);
    return st.step() ? st.text(0) : std::string();
}

std::map<std::string, std::string> runProperties(Store& store, RunId id) {
    sql::Statement st(store.db(), "SELECT key, value FROM run_properties WHERE run_id = ?1");
    st.bind(1, id);
    std::map<std::string, std::string> props;
    while (st.step())
        props[st.text(0)] = st.text(1);
    return props;
}

RunAggregates runAggregates(Store& store, RunId id) {
    RunAggregates a;
    auto& db = store.db();
    {
        sql::Statement st(db,
                          "SELECT count(*), coalesce(sum(end_ns - start_ns), 0), min(start_ns), "
                          "max(end_ns) FROM kernels WHERE run_id = ?1");
        st.bind(1, id);
        st.step();
        a.kernelCount = st.int64(0);
        a.kernelTimeNs = st.int64(1);
        a.firstNs = st.optInt64(2);
        a.lastNs = st.optInt64(3);
    }
    {
        sql::Statement st(db,
                          "SELECT count(*), coalesce(sum(bytes), 0), coalesce(sum(end_ns - "
                          "start_ns), 0), min(start_ns), max(end_ns) FROM memcpys WHERE run_id = "
                          "?1");
        st.bind(1, id);
        st.step();
        a.memcpyCount = st.int64(0);
        a.memcpyBytes = st.int64(1);
        a.memcpyTimeNs = st.int64(2);
        if (auto first = st.optInt64(3))
            a.firstNs = a.firstNs ? std::min(*a.firstNs, *first) : first;
        if (auto last = st.optInt64(4)) a.lastNs = a.lastNs ? std::max(*a.lastNs, *last) : last;
    }
    auto count = [&](const char* table) {
        sql::Statement st(db, std::string("SELECT count(*) FROM ") + table + " WHERE run_id = ?1");
        st.bind(1, id);
        st.step();
        return st.int64(0);
    };
    a.memsetCount = count("memsets");
    a.apiCallCount = count("api_calls");
    a.rangeCount = count("ranges");
    a.requestCount = count("requests");
    a.tokenCount = count("tokens");
    a.sampleCount = count("samples");
    a.overheadCount = count("overheads");
    a.streamCount = static_cast<std::int64_t>(runStreams(store, id).size());
    return a;
}

std::vector<StreamKey> runStreams(Store& store, RunId id) {
    sql::Statement st(store.db(),
                      "SELECT device_id, stream_id FROM kernels WHERE run_id = ?1 UNION "
                      "SELECT device_id, stream_id FROM memcpys WHERE run_id = ?1 UNION "
                      "SELECT device_id, stream_id FROM memsets WHERE run_id = ?1 ORDER BY 1, 2");
    st.bind(1, id);
    std::vector<StreamKey> keys;
    while (st.step())
        keys.push_back(
            {static_cast<std::uint32_t>(st.int64(0)), static_cast<std::uint32_t>(st.int64(1))});
    return keys;
}

void forEachKernel(Store& store, RunId id, TimeWindow window, std::optional<std::uint32_t> stream,
                   const std::function<void(const KernelRecord&)>& visit) {
    sql::Statement st(store.db(),
                      "SELECT t.start_ns, t.end_ns, t.device_id, t.context_id, t.stream_id, "
                      "t.correlation_id, s.value, t.grid_x, t.grid_y, t.grid_z, t.block_x, "
                      "t.block_y, t.block_z, t.cluster_x, t.cluster_y, t.cluster_z, "
                      "t.registers_per_thread, t.static_smem, t.dynamic_smem, "
                      "t.local_bytes_per_thread, t.local_bytes_total, t.smem_carveout, "
                      "t.graph_id, t.graph_node_id FROM kernels t JOIN strings s ON s.id = "
                      "t.name_id" +
                          windowClause("stream_id"));
    bindWindow(st, id, window, stream);
    while (st.step()) {
        KernelRecord k;
        k.startNs = st.int64(0);
        k.endNs = st.int64(1);
        k.deviceId = static_cast<std::uint32_t>(st.int64(2));
        k.contextId = static_cast<std::uint32_t>(st.int64(3));
        k.streamId = static_cast<std::uint32_t>(st.int64(4));
        k.correlationId = static_cast<std::uint32_t>(st.int64(5));
        k.name = st.text(6);
        std::int32_t* ints[] = {&k.gridX,
                                &k.gridY,
                                &k.gridZ,
                                &k.blockX,
                                &k.blockY,
                                &k.blockZ,
                                &k.clusterX,
                                &k.clusterY,
                                &k.clusterZ,
                                &k.registersPerThread,
                                &k.staticSharedBytes,
                                &k.dynamicSharedBytes,
                                &k.localBytesPerThread};
        for (int i = 0; i < 13; ++i)
            *ints[i] = st.int32(7 + i);
        k.localBytesTotal = st.int64(20);
        k.sharedCarveoutBytes = st.int32(21);
        k.graphId = static_cast<std::uint32_t>(st.int64(22));
        k.graphNodeId = static_cast<std::uint64_t>(st.int64(23));
        visit(k);
    }
}

std::vector<KernelRecord> kernelsIn(Store& store, RunId id, TimeWindow window,
                                    std::optional<std::uint32_t> stream) {
    std::vector<KernelRecord> out;
    forEachKernel(store, id, window, stream, [&](const KernelRecord& r) { out.push_back(r); });
    return out;
}

void forEachMemcpy(Store& store, RunId id, TimeWindow window, std::optional<std::uint32_t> stream,
                   const std::function<void(const MemcpyRecord&)>& visit) {
    sql::Statement st(store.db(),
                      "SELECT t.start_ns, t.end_ns, t.device_id, t.context_id, t.stream_id, "
                      "t.correlation_id, t.kind, t.src_kind, t.dst_kind, t.bytes, t.graph_id "
                      "FROM memcpys t" +
                          windowClause("stream_id"));
    bindWindow(st, id, window, stream);
    while (st.step()) {
        MemcpyRecord m;
        m.startNs = st.int64(0);
        m.endNs = st.int64(1);
        m.deviceId = static_cast<std::uint32_t>(st.int64(2));
        m.contextId = static_cast<std::uint32_t>(st.int64(3));
        m.streamId = static_cast<std::uint32_t>(st.int64(4));
        m.correlationId = static_cast<std::uint32_t>(st.int64(5));
        m.kind = memcpyKindFromString(st.text(6));
        m.srcKind = memoryKindFromString(st.text(7));
        m.dstKind = memoryKindFromString(st.text(8));
        m.bytes = st.int64(9);
        m.graphId = static_cast<std::uint32_t>(st.int64(10));
        visit(m);
    }
}

std::vector<MemcpyRecord> memcpysIn(Store& store, RunId id, TimeWindow window,
                                    std::optional<std::uint32_t> stream) {
    std::vector<MemcpyRecord> out;
    forEachMemcpy(store, id, window, stream, [&](const MemcpyRecord& r) { out.push_back(r); });
    return out;
}

void forEachMemset(Store& store, RunId id, TimeWindow window, std::optional<std::uint32_t> stream,
                   const std::function<void(const MemsetRecord&)>& visit) {
    sql::Statement st(store.db(),
                      "SELECT t.start_ns, t.end_ns, t.device_id, t.context_id, t.stream_id, "
                      "t.correlation_id, t.bytes, t.value, t.memory_kind, t.graph_id FROM "
                      "memsets t" +
                          windowClause("stream_id"));
    bindWindow(st, id, window, stream);
    while (st.step()) {
        MemsetRecord m;
        m.startNs = st.int64(0);
        m.endNs = st.int64(1);
        m.deviceId = static_cast<std::uint32_t>(st.int64(2));
        m.contextId = static_cast<std::uint32_t>(st.int64(3));
        m.streamId = static_cast<std::uint32_t>(st.int64(4));
        m.correlationId = static_cast<std::uint32_t>(st.int64(5));
        m.bytes = st.int64(6);
        m.value = static_cast<std::uint32_t>(st.int64(7));
        m.memoryKind = memoryKindFromString(st.text(8));
        m.graphId = static_cast<std::uint32_t>(st.int64(9));
        visit(m);
    }
}

std::vector<MemsetRecord> memsetsIn(Store& store, RunId id, TimeWindow window,
                                    std::optional<std::uint32_t> stream) {
    std::vector<MemsetRecord> out;
    forEachMemset(store, id, window, stream, [&](const MemsetRecord& r) { out.push_back(r); });
    return out;
}

void forEachRange(Store& store, RunId id, TimeWindow window, std::optional<std::uint32_t> thread,
                  const std::function<void(const RangeRecord&)>& visit) {
    sql::Statement st(store.db(),
                      "SELECT t.start_ns, t.end_ns, t.process_id, t.thread_id, n.value, "
                      "d.value, t.kind, t.color, t.depth FROM ranges t JOIN strings n ON n.id = "
                      "t.name_id JOIN strings d ON d.id = t.domain_id" +
                          windowClause("thread_id"));
    bindWindow(st, id, window, thread);
    while (st.step()) {
        RangeRecord r;
        r.startNs = st.int64(0);
        r.endNs = st.int64(1);
        r.processId = static_cast<std::uint32_t>(st.int64(2));
        r.threadId = static_cast<std::uint32_t>(st.int64(3));
        r.name = st.text(4);
        r.domain = st.text(5);
        auto kind = st.text(6);
        r.kind = kind == "mark"        ? RangeKind::Mark
                 : kind == "start_end" ? RangeKind::StartEnd
                                       : RangeKind::PushPop;
        r.color = static_cast<std::uint32_t>(st.int64(7));
        r.depth = st.int32(8);
        visit(r);
    }
}

std::vector<RangeRecord> rangesIn(Store& store, RunId id, TimeWindow window,
                                  std::optional<std::uint32_t> thread) {
    std::vector<RangeRecord> out;
    forEachRange(store, id, window, thread, [&](const RangeRecord& r) { out.push_back(r); });
    return out;
}

void forEachApiCall(Store& store, RunId id, TimeWindow window, std::optional<std::uint32_t> thread,
                    const std::function<void(const ApiCallRecord&)>& visit) {
    sql::Statement st(store.db(),
                      "SELECT t.start_ns, t.end_ns, t.process_id, t.thread_id, "
                      "t.correlation_id, t.api, t.callback_id, n.value, t.return_value FROM "
                      "api_calls t JOIN strings n ON n.id = t.name_id" +
                          windowClause("thread_id"));
    bindWindow(st, id, window, thread);
    while (st.step()) {
        ApiCallRecord a;
        a.startNs = st.int64(0);
        a.endNs = st.int64(1);
        a.processId = static_cast<std::uint32_t>(st.int64(2));
        a.threadId = static_cast<std::uint32_t>(st.int64(3));
        a.correlationId = static_cast<std::uint32_t>(st.int64(4));
        a.kind = st.text(5) == "driver" ? ApiKind::Driver : ApiKind::Runtime;
        a.callbackId = static_cast<std::uint32_t>(st.int64(6));
        a.name = st.text(7);
        a.returnValue = st.int32(8);
        visit(a);
    }
}

std::vector<ApiCallRecord> apiCallsIn(Store& store, RunId id, TimeWindow window,
                                      std::optional<std::uint32_t> thread) {
    std::vector<ApiCallRecord> out;
    forEachApiCall(store, id, window, thread, [&](const ApiCallRecord& r) { out.push_back(r); });
    return out;
}

std::vector<RequestRecord> requestsOf(Store& store, RunId id) {
    sql::Statement st(store.db(),
                      "SELECT request_id, start_ns, end_ns, prompt_tokens, output_tokens, success "
                      "FROM requests WHERE run_id = ?1 ORDER BY request_id");
    st.bind(1, id);
    std::vector<RequestRecord> out;
    while (st.step())
        out.push_back(
            {st.int64(0), st.int64(1), st.int64(2), st.int32(3), st.int32(4), st.int32(5) != 0});
    return out;
}

std::vector<TokenRecord> tokensOf(Store& store, RunId id) {
    sql::Statement st(store.db(),
                      "SELECT request_id, token_index, time_ns FROM tokens WHERE run_id = ?1 "
                      "ORDER BY request_id, token_index");
    st.bind(1, id);
    std::vector<TokenRecord> out;
    while (st.step())
        out.push_back({st.int64(0), st.int32(1), st.int64(2)});
    return out;
}

std::vector<SampleRecord> samplesOf(Store& store, RunId id) {
    sql::Statement st(store.db(),
                      "SELECT time_ns, device_index, power_w, sm_clock_mhz, mem_clock_mhz, "
                      "temperature_c, memory_used_bytes, gpu_util_percent, mem_util_percent, "
                      "energy_j FROM samples WHERE run_id = ?1 ORDER BY time_ns");
    st.bind(1, id);
    std::vector<SampleRecord> out;
    while (st.step()) {
        SampleRecord s;
        s.timeNs = st.int64(0);
        s.deviceIndex = static_cast<std::uint32_t>(st.int64(1));
        s.powerW = st.optReal(2);
        s.smClockMhz = st.optReal(3);
        s.memClockMhz = st.optReal(4);
        s.temperatureC = st.optReal(5);
        s.memoryUsedBytes = st.optInt64(6);
        s.gpuUtilPercent = st.optReal(7);
        s.memUtilPercent = st.optReal(8);
        s.energyJ = st.optReal(9);
        out.push_back(s);
    }
    return out;
}

std::vector<QualityRecord> qualityOf(Store& store, RunId id) {
    sql::Statement st(store.db(),
                      "SELECT check_name, reference_variant, token_agreement, max_logit_error, "
                      "tolerance, passed FROM quality WHERE run_id = ?1");
    st.bind(1, id);
    std::vector<QualityRecord> out;
    while (st.step())
        out.push_back(
            {st.text(0), st.text(1), st.real(2), st.real(3), st.real(4), st.int32(5) != 0});
    return out;
}

}  // namespace ws
