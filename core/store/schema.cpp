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
CREATE TABLE kernels (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
    device_id INTEGER NOT NULL, context_id INTEGER NOT NULL, stream_id INTEGER NOT NULL,
    correlation_id INTEGER NOT NULL,
    name_id INTEGER NOT NULL REFERENCES strings(id),
    grid_x INTEGER, grid_y INTEGER, grid_z INTEGER,
    block_x INTEGER, block_y INTEGER, block_z INTEGER,
    cluster_x INTEGER, cluster_y INTEGER, cluster_z INTEGER,
    registers_per_thread INTEGER, static_smem INTEGER, dynamic_smem INTEGER,
    local_bytes_per_thread INTEGER, local_bytes_total INTEGER, smem_carveout INTEGER,
    graph_id INTEGER, graph_node_id INTEGER
);
CREATE INDEX kernels_by_stream ON kernels(run_id, stream_id, start_ns);
CREATE TABLE memcpys (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
    device_id INTEGER NOT NULL, context_id INTEGER NOT NULL, stream_id INTEGER NOT NULL,
    correlation_id INTEGER NOT NULL,
    kind TEXT NOT NULL, src_kind TEXT NOT NULL, dst_kind TEXT NOT NULL,
    bytes INTEGER NOT NULL, graph_id INTEGER
);
CREATE INDEX memcpys_by_stream ON memcpys(run_id, stream_id, start_ns);
CREATE TABLE memsets (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
    device_id INTEGER NOT NULL, context_id INTEGER NOT NULL, stream_id INTEGER NOT NULL,
    correlation_id INTEGER NOT NULL,
    bytes INTEGER NOT NULL, value INTEGER, memory_kind TEXT NOT NULL, graph_id INTEGER
);
CREATE INDEX memsets_by_stream ON memsets(run_id, stream_id, start_ns);
CREATE TABLE api_calls (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
    process_id INTEGER NOT NULL, thread_id INTEGER NOT NULL,
    correlation_id INTEGER NOT NULL,
    api TEXT NOT NULL CHECK (api IN ('runtime','driver')),
    callback_id INTEGER NOT NULL,
    name_id INTEGER NOT NULL REFERENCES strings(id),
    return_value INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX api_calls_by_thread ON api_calls(run_id, thread_id, start_ns);
CREATE TABLE ranges (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
    process_id INTEGER NOT NULL, thread_id INTEGER NOT NULL,
    name_id INTEGER NOT NULL REFERENCES strings(id),
    domain_id INTEGER NOT NULL REFERENCES strings(id),
    kind TEXT NOT NULL CHECK (kind IN ('push_pop','start_end','mark')),
    color INTEGER NOT NULL DEFAULT 0,
    depth INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX ranges_by_thread ON ranges(run_id, thread_id, start_ns);
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

// Index i holds the SQL that moves a store from version i to i + 1.
constexpr const char* kMigrations[] = {kVersion1};
static_assert(std::size(kMigrations) == kCurrentVersion);

}  // namespace

void migrate(sql::Db& db, int fromVersion) {
    if (fromVersion >= kCurrentVersion) return;
    sql::Transaction tx(db);
    for (int v = fromVersion; v < kCurrentVersion; ++v)
        db.exec(kMigrations[v]);
    db.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
    db.exec("PRAGMA user_version = " + std::to_string(kCurrentVersion));
    tx.commit();
}

}  // namespace ws::schema
