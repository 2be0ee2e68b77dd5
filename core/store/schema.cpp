#include "store/schema.h"

#include <string>

#include "store/sqlite_db.h"

namespace ws::schema {

namespace {

// Version 1: the first schema. Times are integer nanoseconds; strings that
// repeat (kernel, API and NVTX names) are interned in `strings`.
constexpr const char* kVersion1 = R"sql(
CREATE TABLE strings (
    id    INTEGER PRIMARY KEY,
    value TEXT NOT NULL UNIQUE
);
CREATE TABLE devices (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL, uuid TEXT NOT NULL DEFAULT '',
    cc_major INTEGER NOT NULL, cc_minor INTEGER NOT NULL,
    sm_count INTEGER NOT NULL, memory_bytes INTEGER NOT NULL,
    memory_bus_width_bits INTEGER, memory_clock_khz INTEGER, sm_clock_khz INTEGER,
    l2_bytes INTEGER, driver_version TEXT, cuda_version TEXT,
    regs_per_sm INTEGER, regs_per_block INTEGER,
    smem_per_sm INTEGER, smem_per_block INTEGER, smem_per_block_optin INTEGER,
    reserved_smem_per_block INTEGER,
    max_warps_per_sm INTEGER, max_blocks_per_sm INTEGER, max_threads_per_block INTEGER,
    warp_size INTEGER NOT NULL DEFAULT 32,
    UNIQUE (uuid, name, driver_version)
);
CREATE TABLE workloads (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('decoder','kernel','command','imported')),
    config_text TEXT NOT NULL DEFAULT '',
    UNIQUE (name, kind, config_text)
);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    label TEXT NOT NULL DEFAULT '',
    workload_id INTEGER REFERENCES workloads(id),
    device_id INTEGER REFERENCES devices(id),
    variant TEXT NOT NULL DEFAULT '',
    tags TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL CHECK (status IN ('running','ok','failed','killed')),
    exit_code INTEGER, signal INTEGER,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    command TEXT NOT NULL DEFAULT '',
    host TEXT NOT NULL DEFAULT '',
    writer_pid INTEGER, writer_start_ticks INTEGER, heartbeat_at INTEGER,
    dropped_records INTEGER NOT NULL DEFAULT 0,
    warpscope_version TEXT NOT NULL DEFAULT '',
    log TEXT NOT NULL DEFAULT ''
);
-- Kernels, memcpys, memsets, API calls and NVTX ranges, packed per lane
-- (device stream or host thread) into chunks of records sorted by start;
-- store/event_codec.h holds the blob format. Summary columns let aggregates
-- and time-window lookups skip decoding.
CREATE TABLE event_chunks (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    kind INTEGER NOT NULL CHECK (kind BETWEEN 1 AND 5),
    group_id INTEGER NOT NULL,
    lane_id INTEGER NOT NULL,
    first_start_ns INTEGER NOT NULL,
    max_end_ns INTEGER NOT NULL,
    count INTEGER NOT NULL,
    busy_ns INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    data BLOB NOT NULL
);
CREATE INDEX event_chunks_by_lane ON event_chunks(run_id, kind, group_id, lane_id, first_start_ns);
CREATE TABLE requests (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    request_id INTEGER NOT NULL,
    start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
    prompt_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
    success INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (run_id, request_id)
);
CREATE TABLE tokens (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    request_id INTEGER NOT NULL,
    token_index INTEGER NOT NULL,
    time_ns INTEGER NOT NULL,
    PRIMARY KEY (run_id, request_id, token_index)
);
CREATE TABLE kernel_metrics (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    correlation_id INTEGER NOT NULL,
    metric_id INTEGER NOT NULL REFERENCES strings(id),
    value REAL NOT NULL
);
CREATE INDEX kernel_metrics_by_kernel ON kernel_metrics(run_id, correlation_id);
CREATE TABLE samples (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    time_ns INTEGER NOT NULL, device_index INTEGER NOT NULL,
    power_w REAL, sm_clock_mhz REAL, mem_clock_mhz REAL, temperature_c REAL,
    memory_used_bytes INTEGER, gpu_util_percent REAL, mem_util_percent REAL, energy_j REAL
);
CREATE INDEX samples_by_time ON samples(run_id, time_ns);
CREATE TABLE overheads (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
    kind TEXT NOT NULL
);
CREATE TABLE quality (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    check_name TEXT NOT NULL, reference_variant TEXT NOT NULL,
    token_agreement REAL NOT NULL, max_logit_error REAL NOT NULL,
    tolerance REAL NOT NULL, passed INTEGER NOT NULL
);
CREATE TABLE run_properties (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    key TEXT NOT NULL, value TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
);
)sql";

// Version 2: NVML's clock event (throttle) reasons with each device sample.
constexpr const char* kVersion2 = R"sql(
ALTER TABLE samples ADD COLUMN clock_event_reasons INTEGER;
)sql";

// Version 3: the blob format of each event chunk (store/event_codec.h);
// chunks written before it are inline.
constexpr const char* kVersion3 = R"sql(
ALTER TABLE event_chunks ADD COLUMN format INTEGER NOT NULL DEFAULT 1;
)sql";

// Version 4: CUDA graph nodes as capture created and instantiation copied
// them (model/records.h GraphNodeRecord), to trace replayed kernels back to
// the NVTX ranges open when their graph was captured; the process of each GPU
// stream (GpuStreamRecord).
constexpr const char* kVersion4 = R"sql(
CREATE TABLE graph_nodes (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    process_id INTEGER NOT NULL,
    node_id INTEGER NOT NULL,
    original_node_id INTEGER NOT NULL,
    graph_id INTEGER NOT NULL,
    thread_id INTEGER NOT NULL,
    time_ns INTEGER NOT NULL,
    node_type INTEGER NOT NULL
);
CREATE INDEX graph_nodes_by_run ON graph_nodes(run_id);
CREATE TABLE gpu_streams (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    device_id INTEGER NOT NULL,
    stream_id INTEGER NOT NULL,
    process_id INTEGER NOT NULL,
    cuda_stream_id INTEGER NOT NULL
);
CREATE INDEX gpu_streams_by_run ON gpu_streams(run_id);
)sql";

// Version 5: NVLink data sent and received by each GPU with every device
// sample (cumulative bytes; a rate is the difference of two samples).
constexpr const char* kVersion5 = R"sql(
ALTER TABLE samples ADD COLUMN nvlink_tx_bytes INTEGER;
ALTER TABLE samples ADD COLUMN nvlink_rx_bytes INTEGER;
)sql";

// Version 6: NCCL calls with their message sizes, from NCCL's NVTX payloads
// (model/records.h CollectiveCallRecord): the kernels a call launched on its
// thread between start and end moved `bytes`.
constexpr const char* kVersion6 = R"sql(
CREATE TABLE collective_calls (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    process_id INTEGER NOT NULL,
    thread_id INTEGER NOT NULL,
    start_ns INTEGER NOT NULL,
    end_ns INTEGER NOT NULL,
    collective TEXT NOT NULL,
    communicator INTEGER NOT NULL,
    bytes INTEGER NOT NULL
);
CREATE INDEX collective_calls_by_run ON collective_calls(run_id);
)sql";

// Version 7: serving workloads (`kind = "serve"`) can be recorded; the CHECK
// list of workload kinds is model/closed_lists.h's kWorkloadKindNames. SQLite
// cannot change a CHECK in place: the table is rebuilt with the same ids, as
// sqlite.org/lang_altertable.html#otheralter does it (foreign keys off around
// the transaction, see migrate; runs.workload_id keeps naming `workloads`).
constexpr const char* kVersion7 = R"sql(
CREATE TABLE workloads_v7 (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('decoder','kernel','command','serve','imported')),
    config_text TEXT NOT NULL DEFAULT '',
    UNIQUE (name, kind, config_text)
);
INSERT INTO workloads_v7 (id, name, kind, config_text)
    SELECT id, name, kind, config_text FROM workloads;
DROP TABLE workloads;
ALTER TABLE workloads_v7 RENAME TO workloads;
)sql";
// Version 8: GPU performance-monitor samples (`record --gpu-metrics`), one
// row per chunk of consecutive samples of one metric of one GPU; the blob is
// store/gpu_metric_blob.h's. The metric's name is text in the row, not a
// `strings` id, so copying a run copies the table as it is.
constexpr const char* kVersion8 = R"sql(
CREATE TABLE gpu_metric_chunks (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    device_index INTEGER NOT NULL,
    metric TEXT NOT NULL,
    first_start_ns INTEGER NOT NULL,
    last_end_ns INTEGER NOT NULL,
    count INTEGER NOT NULL CHECK (count > 0),
    data BLOB NOT NULL
);
CREATE INDEX gpu_metric_chunks_by_run
    ON gpu_metric_chunks(run_id, device_index, metric, first_start_ns);
)sql";
// Version 9: where kernels stall (`record --pc-sampling`, CUPTI PC sampling),
// one row per instruction and stall reason, summed over the run. Text, not
// `strings` ids, for the same reason as version 8.
constexpr const char* kVersion9 = R"sql(
CREATE TABLE pc_samples (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    function TEXT NOT NULL,
    pc_offset INTEGER NOT NULL CHECK (pc_offset >= 0),
    stall_reason TEXT NOT NULL,
    samples INTEGER NOT NULL CHECK (samples > 0),
    source_file TEXT NOT NULL DEFAULT '',
    line INTEGER NOT NULL DEFAULT 0 CHECK (line >= 0)
);
CREATE INDEX pc_samples_by_run ON pc_samples(run_id, function);
)sql";
// Each sampled instruction's SASS text, from nvdisasm where it was found.
constexpr const char* kVersion10 = R"sql(
ALTER TABLE pc_samples ADD COLUMN sass TEXT NOT NULL DEFAULT '';
)sql";
constexpr int kFirstTableRebuild = 6;  // index of the first migration that rebuilds a table

// Index i holds the SQL that moves a store from version i to i + 1.
constexpr const char* kMigrations[] = {kVersion1, kVersion2, kVersion3, kVersion4, kVersion5,
                                       kVersion6, kVersion7, kVersion8, kVersion9, kVersion10};
static_assert(std::size(kMigrations) == kCurrentVersion);

// Foreign keys off while it lives (when `off`), back as they were after:
// the pragma cannot change inside a transaction, so this outlives it.
class ForeignKeysOff {
  public:
    ForeignKeysOff(sql::Db& db, bool off)
        : db_(db), restore_(off && db.queryInt("PRAGMA foreign_keys") != 0) {
        if (restore_) db_.exec("PRAGMA foreign_keys = OFF");
    }
    ~ForeignKeysOff() {
        try {
            if (restore_) db_.exec("PRAGMA foreign_keys = ON");
        } catch (...) {  // a destructor must not throw; the next open turns them on again
        }
    }
    ForeignKeysOff(const ForeignKeysOff&) = delete;
    ForeignKeysOff& operator=(const ForeignKeysOff&) = delete;

  private:
    sql::Db& db_;
    bool restore_;
};

}  // namespace

void migrate(sql::Db& db, int fromVersion) {
    // Store::checkBeforeWriting refuses these first; an index outside the
    // table must never run whatever memory holds as SQL.
    if (fromVersion < 0 || fromVersion > kCurrentVersion)
        throw StoreError(
            StoreError::Kind::Damaged,
            db.path() + ": schema version " + std::to_string(fromVersion) + " cannot be migrated");
    if (fromVersion >= kCurrentVersion) return;
    // A table rebuilt with foreign keys on would drop its rows' references
    // (DROP TABLE deletes first); they are off for the transaction (a pragma
    // that cannot change inside one), checked before it commits, and back on.
    const bool rebuilds = fromVersion > 0 && fromVersion <= kFirstTableRebuild;
    ForeignKeysOff off(db, rebuilds);
    sql::Transaction tx(db);
    for (int v = fromVersion; v < kCurrentVersion; ++v)
        db.exec(kMigrations[v]);
    if (rebuilds && db.queryInt("SELECT count(*) FROM pragma_foreign_key_check") != 0)
        throw StoreError(StoreError::Kind::Damaged,
                         db.path() + ": a reference broke while migrating; left as it was");
    db.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
    db.exec("PRAGMA user_version = " + std::to_string(kCurrentVersion));
    tx.commit();
}

void ensureIndexes(sql::Db& db) {
    // The chunk index with each chunk's summary columns: the chunk directory
    // (a timeline's overview), aggregates and time-window lookups read the
    // index alone instead of a table page per chunk (on a run of 100 M
    // kernels, ~100 k random page reads). It starts with the columns of the
    // index it replaces, so every query that used that one uses it.
    if (db.queryInt("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = "
                    "'event_chunks_spans'") > 0)
        return;
    sql::Transaction tx(db);
    db.exec("DROP INDEX IF EXISTS event_chunks_by_lane");
    db.exec(
        "CREATE INDEX event_chunks_spans ON event_chunks(run_id, kind, group_id, lane_id, "
        "first_start_ns, max_end_ns, count, busy_ns, bytes)");
    tx.commit();
}

}  // namespace ws::schema
