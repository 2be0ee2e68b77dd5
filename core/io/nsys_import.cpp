#include "io/nsys_import.h"

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "conventions/correlation_ids.h"
#include "conventions/stream_assigner.h"
#include "model/value_limits.h"
#include "store/schema.h"
#include "store/sqlite_db.h"
#include "store/store.h"
#include "store/store_writer.h"

namespace ws {

namespace {

// nsys NVTX_EVENTS.eventType values (ENUM_NSYS_EVENT_TYPE).
constexpr int kNvtxMark = 34;
constexpr int kNvtxPushPop = 59;
constexpr int kNvtxStartEnd = 60;
constexpr int kNvtxDomainCreate = 75;

constexpr const char* kActivityTables[] = {
    "CUPTI_ACTIVITY_KIND_KERNEL",  "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
    "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER", "NVTX_EVENTS"};

// The columns one table of this export has: exports from different nsys
// versions add columns, so every query names only what is there.
class Columns {
  public:
    Columns(sql::Db& db, const std::string& path, std::string table)
        : path_(path), table_(std::move(table)) {
        sql::Statement st(db, "SELECT name FROM pragma_table_info('" + table_ + "')");
        while (st.step())
            names_.insert(st.text(0));
    }
    bool has(const std::string& c) const { return names_.count(c) > 0; }
    // The column, or `fallback` (an SQL literal) when this export lacks it.
    std::string operator()(const std::string& c, const char* fallback = "0") const {
        return has(c) ? table_ + ".\"" + c + "\"" : fallback;
    }
    std::string require(const std::string& c) const {
        if (!has(c)) importError(path_, table_ + "." + c, "column missing");
        return (*this)(c);
    }
    const std::string& table() const { return table_; }

  private:
    const std::string& path_;
    std::string table_;
    std::set<std::string> names_;
};

// Serialized ids: globalTid = pid << 24 | tid (nsys's documented encoding,
// above bit 48 the host/VM id).
std::uint32_t pidOf(std::int64_t globalTid) {
    return static_cast<std::uint32_t>((globalTid >> 24) & 0xFFFFFF);
}
std::uint32_t tidOf(std::int64_t globalTid) {
    return static_cast<std::uint32_t>(globalTid & 0xFFFFFF);
}

template <typename Enum>
Enum enumOrUnknown(std::int64_t value, Enum last) {
    return value >= 0 && value <= static_cast<std::int64_t>(last) ? static_cast<Enum>(value)
                                                                  : Enum{};
}

class NsysReader {
  public:
    NsysReader(const std::string& path) : path_(path), db_(path, sql::Db::Mode::ReadOnly) {
        sql::Statement st(db_, "SELECT name FROM sqlite_master WHERE type = 'table'");
        while (st.step())
            tables_.insert(st.text(0));
    }

    std::string checkVersion() {
        if (!has("META_DATA_EXPORT")) {
            if (db_.queryInt("PRAGMA application_id") == schema::kApplicationId)
                importError(path_, "(file)",
                            "is a Warpscope store, not an nsys export: open it with --db");
            importError(path_, "META_DATA_EXPORT",
                        "table missing: not an Nsight Systems SQLite export "
                        "(`nsys export --type sqlite`)");
        }
        sql::Statement st(
            db_, "SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_SCHEMA_VERSION'");
        if (!st.step()) importError(path_, "META_DATA_EXPORT.EXPORT_SCHEMA_VERSION", "missing");
        std::string version = st.text(0);
        int major = std::atoi(version.c_str());
        if (major != kNsysSchemaMajor)
            importError(path_, "EXPORT_SCHEMA_VERSION",
                        "is " + version + "; this Warpscope reads nsys export schema " +
                            std::to_string(kNsysSchemaMajor) + ".x");
        bool any = false;
        for (const char* t : kActivityTables)
            any = any || has(t);
        if (!any)
            importError(path_, "CUPTI_ACTIVITY_KIND_*",
                        "no CUDA or NVTX tables: the report was captured without "
                        "--trace=cuda,nvtx");
        if (!has("StringIds")) importError(path_, "StringIds", "table missing");
        return version;
    }

    std::int64_t sessionStartNs() {
        if (!has("TARGET_INFO_SESSION_START_TIME")) return 0;
        Columns c(db_, path_, "TARGET_INFO_SESSION_START_TIME");
        if (!c.has("utcEpochNs")) return 0;
        sql::Statement st(db_, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME");
        if (!st.step() || st.isNull(0)) return 0;
        // The run's date: an overflowed one made a run of 2262 whose end wrapped.
        if (!st.isInteger(0) || st.int64(0) < 0 || st.int64(0) > limits::kLatestTimeNs)
            importError(path_, "TARGET_INFO_SESSION_START_TIME.utcEpochNs",
                        "not an integer in 0 .. 2100-01-01 (ns since the Unix epoch)");
        return st.int64(0);
    }

    // The GPU most kernels ran on.
    std::optional<DeviceInfo> device() {
        if (!has("TARGET_INFO_GPU")) return std::nullopt;
        std::int64_t cudaId = 0;
        if (has("CUPTI_ACTIVITY_KIND_KERNEL")) {
            sql::Statement st(db_,
                              "SELECT deviceId FROM CUPTI_ACTIVITY_KIND_KERNEL GROUP BY deviceId "
                              "ORDER BY count(*) DESC LIMIT 1");
            if (st.step()) cudaId = st.int64(0);
        }
        std::string where;
        if (has("TARGET_INFO_CUDA_DEVICE")) {
            Columns m(db_, path_, "TARGET_INFO_CUDA_DEVICE");
            if (m.has("gpuId") && m.has("cudaId"))
                where = " WHERE id IN (SELECT gpuId FROM TARGET_INFO_CUDA_DEVICE WHERE cudaId = " +
                        std::to_string(cudaId) + ")";
        }
        Columns g(db_, path_, "TARGET_INFO_GPU");
        auto text = [&](const char* c) { return g(c, "''"); };
        sql::Statement st(db_, "SELECT " + text("name") + ", " + text("uuid") + ", " +
                                   g("computeMajor") + ", " + g("computeMinor") + ", " +
                                   g("smCount") + ", " + g("totalMemory") + ", " + g("clockRate") +
                                   ", " + g("l2CacheSize") + ", " + g("maxWarpsPerSm") + ", " +
                                   g("maxBlocksPerSm") + ", " + g("maxRegistersPerSm") + ", " +
                                   g("maxRegistersPerBlock") + ", " + g("maxShmemPerSm") + ", " +
                                   g("maxShmemPerBlock") + ", " + g("maxShmemPerBlockOptin") +
                                   ", " + g("threadsPerWarp", "32") + " FROM TARGET_INFO_GPU" +
                                   where + " ORDER BY id LIMIT 1");
        if (!st.step()) return std::nullopt;
        DeviceInfo d;
        d.name = st.text(0);
        d.uuid = st.text(1);
        d.ccMajor = st.int32(2);
        d.ccMinor = st.int32(3);
        d.smCount = st.int32(4);
        d.memoryBytes = st.int64(5);
        d.smClockKhz = static_cast<int>(st.int64(6) / 1000);  // clockRate is in Hz
        d.l2Bytes = st.int64(7);
        d.maxWarpsPerSm = st.int32(8);
        d.maxBlocksPerSm = st.int32(9);
        d.regsPerSm = st.int32(10);
        d.regsPerBlock = st.int32(11);
        d.smemPerSm = st.int32(12);
        d.smemPerBlock = st.int32(13);
        d.smemPerBlockOptin = st.int32(14);
        d.warpSize = st.int32(15) > 0 ? st.int32(15) : 32;
        return d;
    }

    std::int64_t kernels(StoreWriter& w) {
        if (!has("CUPTI_ACTIVITY_KIND_KERNEL")) return 0;
        Columns k(db_, path_, "CUPTI_ACTIVITY_KIND_KERNEL");
        if (!k.has("mangledName") && !k.has("demangledName") && !k.has("shortName"))
            importError(path_, "CUPTI_ACTIVITY_KIND_KERNEL.demangledName", "column missing");
        // The mangled name, as CUPTI gives it to our collector, when the export has it.
        std::string name = "COALESCE(" + nameOf(k, "mangledName") + ", " +
                           nameOf(k, "demangledName") + ", " + nameOf(k, "shortName") + ", '')";
        sql::Statement st(
            db_, "SELECT " + k.require("start") + ", " + k.require("end") + ", " + k("deviceId") +
                     ", " + k("contextId") + ", " + k("streamId") + ", " + k("correlationId") +
                     ", " + name + ", " + k("gridX", "1") + ", " + k("gridY", "1") + ", " +
                     k("gridZ", "1") + ", " + k("blockX", "1") + ", " + k("blockY", "1") + ", " +
                     k("blockZ", "1") + ", " + k("clusterX") + ", " + k("clusterY") + ", " +
                     k("clusterZ") + ", " + k("registersPerThread") + ", " +
                     k("staticSharedMemory") + ", " + k("dynamicSharedMemory") + ", " +
                     k("localMemoryPerThread") + ", " + k("localMemoryTotal") + ", " +
                     k("sharedMemoryExecuted") + ", " + k("graphId") + ", " + k("graphNodeId") +
                     ", " + k("globalPid") + " FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY 1");
        std::int64_t n = 0;
        while (st.step()) {
            KernelRecord r;
            fillTimes(st, "CUPTI_ACTIVITY_KIND_KERNEL", r);
            r.name = st.text(6);
            r.gridX = st.int32(7), r.gridY = st.int32(8), r.gridZ = st.int32(9);
            r.blockX = st.int32(10), r.blockY = st.int32(11), r.blockZ = st.int32(12);
            r.clusterX = st.int32(13), r.clusterY = st.int32(14), r.clusterZ = st.int32(15);
            r.registersPerThread = st.int32(16);
            r.staticSharedBytes = st.int32(17);
            r.dynamicSharedBytes = st.int32(18);
            r.localBytesPerThread = st.int32(19);
            r.localBytesTotal = st.int64(20);
            r.sharedCarveoutBytes = st.int32(21);
            r.graphId = static_cast<std::uint32_t>(st.int64(22));
            r.graphNodeId = static_cast<std::uint64_t>(st.int64(23));
            keepApart(pidOf(st.int64(24)), r, w);
            w.add(r);
            ++n;
        }
        return n;
    }

    void memcpys(StoreWriter& w) {
        if (!has("CUPTI_ACTIVITY_KIND_MEMCPY")) return;
        Columns c(db_, path_, "CUPTI_ACTIVITY_KIND_MEMCPY");
        sql::Statement st(db_, "SELECT " + c.require("start") + ", " + c.require("end") + ", " +
                                   c("deviceId") + ", " + c("contextId") + ", " + c("streamId") +
                                   ", " + c("correlationId") + ", " + c.require("bytes") + ", " +
                                   c("copyKind") + ", " + c("srcKind") + ", " + c("dstKind") +
                                   ", " + c("globalPid") +
                                   " FROM CUPTI_ACTIVITY_KIND_MEMCPY ORDER BY 1");
        while (st.step()) {
            MemcpyRecord r;
            fillTimes(st, "CUPTI_ACTIVITY_KIND_MEMCPY", r);
            r.bytes = checkedBytes(st, 6, "CUPTI_ACTIVITY_KIND_MEMCPY");
            // copyKind / srcKind / dstKind hold CUPTI's enum values, as ours do.
            r.kind = enumOrUnknown(st.int64(7), MemcpyKind::PtoP);
            r.srcKind = enumOrUnknown(st.int64(8), MemoryKind::ManagedStatic);
            r.dstKind = enumOrUnknown(st.int64(9), MemoryKind::ManagedStatic);
            keepApart(pidOf(st.int64(10)), r, w);
            w.add(r);
        }
    }

    void memsets(StoreWriter& w) {
        if (!has("CUPTI_ACTIVITY_KIND_MEMSET")) return;
        Columns c(db_, path_, "CUPTI_ACTIVITY_KIND_MEMSET");
        sql::Statement st(db_, "SELECT " + c.require("start") + ", " + c.require("end") + ", " +
                                   c("deviceId") + ", " + c("contextId") + ", " + c("streamId") +
                                   ", " + c("correlationId") + ", " + c.require("bytes") + ", " +
                                   c("value") + ", " + c("memKind") + ", " + c("globalPid") +
                                   " FROM CUPTI_ACTIVITY_KIND_MEMSET ORDER BY 1");
        while (st.step()) {
            MemsetRecord r;
            fillTimes(st, "CUPTI_ACTIVITY_KIND_MEMSET", r);
            r.bytes = checkedBytes(st, 6, "CUPTI_ACTIVITY_KIND_MEMSET");
            r.value = static_cast<std::uint32_t>(st.int64(7));
            r.memoryKind = enumOrUnknown(st.int64(8), MemoryKind::ManagedStatic);
            keepApart(pidOf(st.int64(9)), r, w);
            w.add(r);
        }
    }

    void apiCalls(StoreWriter& w, const char* table, ApiKind kind) {
        if (!has(table)) return;
        Columns c(db_, path_, table);
        sql::Statement st(db_, "SELECT " + c.require("start") + ", " + c.require("end") + ", " +
                                   c("globalTid") + ", " + c("correlationId") + ", " +
                                   nameOf(c, "nameId") + ", " + c("returnValue") + " FROM " +
                                   table + " ORDER BY 1");
        while (st.step()) {
            ApiCallRecord r;
            readSpan(st, table, r.startNs, r.endNs);
            r.processId = pidOf(st.int64(2));
            r.threadId = tidOf(st.int64(2));
            r.correlationId = static_cast<std::uint32_t>(st.int64(3));
            // As the GPU records were: apart only where they said their process.
            if (gpuProcessesKnown_)
                r.correlationId = correlations_.of(r.processId, r.correlationId);
            r.kind = kind;
            r.name = st.isNull(4) ? "" : st.text(4);
            r.returnValue = st.int32(5);
            w.add(r);
        }
    }

    void nvtx(StoreWriter& w) {
        if (!has("NVTX_EVENTS")) return;
        Columns c(db_, path_, "NVTX_EVENTS");
        c.require("eventType");
        std::string text = "COALESCE(" + c("text", "NULL") + ", " + nameOf(c, "textId") + ", '')";
        std::unordered_map<std::int64_t, std::string> domains;
        {
            sql::Statement st(db_, "SELECT " + c("domainId") + ", " + text +
                                       " FROM NVTX_EVENTS WHERE eventType = " +
                                       std::to_string(kNvtxDomainCreate));
            while (st.step())
                domains[st.int64(0)] = st.text(1);
        }
        sql::Statement st(
            db_, "SELECT " + c.require("start") + ", " + c("end", "NULL") + ", eventType, " +
                     c("globalTid") + ", " + text + ", " + c("domainId") + ", " + c("color") +
                     " FROM NVTX_EVENTS WHERE eventType IN (" + std::to_string(kNvtxMark) + ", " +
                     std::to_string(kNvtxPushPop) + ", " + std::to_string(kNvtxStartEnd) + ")");
        std::vector<RangeRecord> ranges;
        while (st.step()) {
            RangeRecord r;
            int type = st.int32(2);
            // Marks, and ranges still open when capture stopped, have no end.
            if (st.isNull(1) || (st.isInteger(1) && st.isInteger(0) && st.int64(1) < st.int64(0))) {
                if (!st.isInteger(0))
                    importError(path_, "NVTX_EVENTS.start", "a value that is not an integer");
                r.startNs = r.endNs = st.int64(0);
                if (auto problem = limits::spanProblem(r.startNs, r.endNs))
                    importError(path_, "NVTX_EVENTS row with start " + std::to_string(r.startNs),
                                *problem);
            } else {
                readSpan(st, "NVTX_EVENTS", r.startNs, r.endNs);
            }
            r.kind = type == kNvtxMark      ? RangeKind::Mark
                     : type == kNvtxPushPop ? RangeKind::PushPop
                                            : RangeKind::StartEnd;
            r.processId = pidOf(st.int64(3));
            r.threadId = tidOf(st.int64(3));
            r.name = st.text(4);
            auto d = domains.find(st.int64(5));
            if (d != domains.end()) r.domain = d->second;
            r.color = static_cast<std::uint32_t>(st.int64(6));
            ranges.push_back(std::move(r));
        }
        assignNestingDepth(ranges);
        for (const auto& r : ranges)
            w.add(r);
    }

  private:
    bool has(const std::string& table) const { return tables_.count(table) > 0; }

    // The StringIds text for an id column, as a scalar subquery (NULL if absent).
    std::string nameOf(const Columns& c, const char* column) const {
        if (!c.has(column)) return "NULL";
        return "(SELECT value FROM StringIds WHERE id = " + c(column) + ")";
    }

    // start and end (columns 0 and 1) as stored by nsys: integers (text,
    // blobs, NULL and reals such as 1e300 are refused), a valid span.
    void readSpan(sql::Statement& st, const char* table, std::int64_t& start,
                  std::int64_t& end) const {
        for (int col : {0, 1})
            if (!st.isInteger(col))
                importError(path_, std::string(table) + (col ? ".end" : ".start"),
                            "a value that is not an integer (row with start " + st.text(0) + ")");
        start = st.int64(0);
        end = st.int64(1);
        if (auto problem = limits::spanProblem(start, end))
            importError(path_, std::string(table) + " row with start " + std::to_string(start),
                        *problem);
    }

    std::int64_t checkedBytes(sql::Statement& st, int col, const char* table) const {
        auto bytes = st.int64(col);
        if (!st.isInteger(col) || limits::bytesProblem(bytes))
            importError(
                path_, std::string(table) + ".bytes",
                "negative, over 1 PiB or not an integer (row with start " + st.text(0) + ")");
        return bytes;
    }

    // nsys traces every process of a program: each numbers its streams and
    // correlation ids alike. Stored apart as a recording stores them
    // (conventions/stream_assigner.h, correlation_ids.h); an export without
    // globalPid keeps them as they are.
    template <typename R>
    void keepApart(std::uint32_t pid, R& r, StoreWriter& w) {
        if (pid == 0) return;
        gpuProcessesKnown_ = true;
        std::optional<GpuStreamRecord> fresh;
        r.streamId = streams_.assign(pid, r.deviceId, r.streamId, fresh);
        if (fresh) w.add(*fresh);
        r.correlationId = correlations_.of(pid, r.correlationId);
    }

    template <typename R>
    void fillTimes(sql::Statement& st, const char* table, R& r) const {
        readSpan(st, table, r.startNs, r.endNs);
        r.deviceId = static_cast<std::uint32_t>(st.int64(2));
        r.contextId = static_cast<std::uint32_t>(st.int64(3));
        r.streamId = static_cast<std::uint32_t>(st.int64(4));
        r.correlationId = static_cast<std::uint32_t>(st.int64(5));
    }

    const std::string& path_;
    sql::Db db_;
    std::set<std::string> tables_;
    StreamAssigner streams_;
    CorrelationIds correlations_;
    bool gpuProcessesKnown_ = false;  // some kernel, copy or memset had its globalPid
};

}  // namespace

bool isSqliteFile(const std::string& firstBytes) {
    static const std::string header("SQLite format 3\0", 16);
    return firstBytes.compare(0, header.size(), header) == 0;
}

ImportResult importNsysExport(Store& store, const std::string& path, const std::string& label) {
    NsysReader reader(path);
    std::string version = reader.checkVersion();
    NewRun nr;
    std::string file = std::filesystem::path(path).filename().string();
    nr.label = label.empty() ? "nsys " + file : label;
    nr.workload = WorkloadInfo{file, "imported", ""};
    nr.device = reader.device();
    nr.command = "nsys export --type sqlite (imported from " + path + ")";
    nr.startedAtNs = reader.sessionStartNs();
    std::int64_t kernels = 0;
    auto imported = storeImportedRun(store, nr, [&](RunId run, StoreWriter& w) {
        kernels = reader.kernels(w);
        reader.memcpys(w);
        reader.memsets(w);
        reader.apiCalls(w, "CUPTI_ACTIVITY_KIND_RUNTIME", ApiKind::Runtime);
        reader.apiCalls(w, "CUPTI_ACTIVITY_KIND_DRIVER", ApiKind::Driver);
        reader.nvtx(w);
        store.setProperty(run, "imported_from", path);
        store.setProperty(run, "nsys_export_schema_version", version);
    });
    return {imported.run,
            "Nsight Systems SQLite export (schema " + version + ")",
            imported.requests,
            kernels,
            imported.records,
            {imported.run},
            {}};
}

}  // namespace ws
