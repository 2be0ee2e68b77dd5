#include "store/store_writer.h"

#include "store/store.h"
#include "util/process_identity.h"

namespace ws {

struct StoreWriter::Statements {
    explicit Statements(sql::Db& db)
        : internInsert(db, "INSERT OR IGNORE INTO strings (value) VALUES (?1)"),
          internSelect(db, "SELECT id FROM strings WHERE value = ?1"),
          kernel(db,
                 "INSERT INTO kernels (run_id, start_ns, end_ns, device_id, context_id, stream_id, "
                 "correlation_id, name_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, "
                 "cluster_x, cluster_y, cluster_z, registers_per_thread, static_smem, "
                 "dynamic_smem, local_bytes_per_thread, local_bytes_total, smem_carveout, "
                 "graph_id, graph_node_id) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,"
                 "?14,?15,?16,?17,?18,?19,?20,?21,?22,?23,?24,?25)"),
          memcpy(db,
                 "INSERT INTO memcpys (run_id, start_ns, end_ns, device_id, context_id, stream_id, "
                 "correlation_id, kind, src_kind, dst_kind, bytes, graph_id) VALUES "
                 "(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12)"),
          memset(db,
                 "INSERT INTO memsets (run_id, start_ns, end_ns, device_id, context_id, stream_id, "
                 "correlation_id, bytes, value, memory_kind, graph_id) VALUES "
                 "(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)"),
          api(db,
              "INSERT INTO api_calls (run_id, start_ns, end_ns, process_id, thread_id, "
              "correlation_id, api, callback_id, name_id, return_value) VALUES "
              "(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)"),
          range(db,
                "INSERT INTO ranges (run_id, start_ns, end_ns, process_id, thread_id, name_id, "
                "domain_id, kind, color, depth) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)"),
          request(db,
                  "INSERT OR REPLACE INTO requests (run_id, request_id, start_ns, end_ns, "
                  "prompt_tokens, output_tokens, success) VALUES (?1,?2,?3,?4,?5,?6,?7)"),
          token(db,
                "INSERT OR REPLACE INTO tokens (run_id, request_id, token_index, time_ns) "
                "VALUES (?1,?2,?3,?4)"),
          sample(db,
                 "INSERT INTO samples (run_id, time_ns, device_index, power_w, sm_clock_mhz, "
                 "mem_clock_mhz, temperature_c, memory_used_bytes, gpu_util_percent, "
                 "mem_util_percent, energy_j) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)"),
          overhead(db,
                   "INSERT INTO overheads (run_id, start_ns, end_ns, kind) VALUES (?1,?2,?3,?4)"),
          metric(db,
                 "INSERT INTO kernel_metrics (run_id, correlation_id, metric_id, value) VALUES "
                 "(?1,?2,?3,?4)"),
          quality(db,
                  "INSERT INTO quality (run_id, check_name, reference_variant, token_agreement, "
                  "max_logit_error, tolerance, passed) VALUES (?1,?2,?3,?4,?5,?6,?7)"),
          heartbeat(db, "UPDATE runs SET heartbeat_at = ?2 WHERE id = ?1") {}

    sql::Statement internInsert, internSelect;
    sql::Statement kernel, memcpy, memset, api, range, request, token, sample, overhead, metric,
        quality, heartbeat;
};

namespace {
const char* rangeKindName(RangeKind kind) {
    switch (kind) {
        case RangeKind::PushPop:
            return "push_pop";
        case RangeKind::StartEnd:
            return "start_end";
        case RangeKind::Mark:
            return "mark";
    }
    return "push_pop";
}
}  // namespace

StoreWriter::StoreWriter(Store& store, RunId run, std::size_t batchSize)
    : store_(store), run_(run), batchSize_(batchSize ? batchSize : 1) {
    store_.requireWritable("write records");
}

StoreWriter::~StoreWriter() {
    try {
        flush();
    } catch (...) {
        // A destructor cannot report; callers that care call flush() themselves.
    }
}

void StoreWriter::maybeFlush() {
    if (++pending_ >= batchSize_) flush();
}

void StoreWriter::add(const KernelRecord& r) {
    kernels_.push_back(r);
    maybeFlush();
}
void StoreWriter::add(const MemcpyRecord& r) {
    memcpys_.push_back(r);
    maybeFlush();
}
void StoreWriter::add(const MemsetRecord& r) {
    memsets_.push_back(r);
    maybeFlush();
}
void StoreWriter::add(const ApiCallRecord& r) {
    apiCalls_.push_back(r);
    maybeFlush();
}
void StoreWriter::add(const RangeRecord& r) {
    ranges_.push_back(r);
    maybeFlush();
}
void StoreWriter::add(const RequestRecord& r) {
    requests_.push_back(r);
    maybeFlush();
}
void StoreWriter::add(const TokenRecord& r) {
    tokens_.push_back(r);
    maybeFlush();
}
void StoreWriter::add(const SampleRecord& r) {
    samples_.push_back(r);
    maybeFlush();
}
void StoreWriter::add(const OverheadRecord& r) {
    overheads_.push_back(r);
    maybeFlush();
}
void StoreWriter::add(const KernelMetricRecord& r) {
    metrics_.push_back(r);
    maybeFlush();
}
void StoreWriter::add(const QualityRecord& r) {
    quality_.push_back(r);
    maybeFlush();
}

std::int64_t StoreWriter::intern(std::string_view text) {
    if (auto it = strings_.find(text); it != strings_.end()) return it->second;
    st_->internInsert.bind(1, text);
    st_->internInsert.exec();
    st_->internSelect.bind(1, text);
    st_->internSelect.step();
    auto id = st_->internSelect.int64(0);
    st_->internSelect.reset();
    strings_.emplace(std::string(text), id);
    internedThisBatch_.emplace_back(text);
    return id;
}

void StoreWriter::flush() {
    if (pending_ == 0) return;
    if (!st_) st_ = std::make_unique<Statements>(store_.db());
    internedThisBatch_.clear();
    try {
        sql::Transaction tx(store_.db());
        writePending();
        tx.commit();
    } catch (...) {
        // The rolled-back transaction took these strings with it.
        for (const auto& s : internedThisBatch_)
            strings_.erase(s);
        throw;
    }
    written_ += static_cast<std::int64_t>(pending_);
    pending_ = 0;
    kernels_.clear();
    memcpys_.clear();
    memsets_.clear();
    apiCalls_.clear();
    ranges_.clear();
    requests_.clear();
    tokens_.clear();
    samples_.clear();
    overheads_.clear();
    metrics_.clear();
    quality_.clear();
}

void StoreWriter::writePending() {
    auto& s = *st_;
    for (const auto& r : kernels_) {
        auto& k = s.kernel;
        k.bind(1, run_);
        k.bind(2, r.startNs);
        k.bind(3, r.endNs);
        k.bind(4, r.deviceId);
        k.bind(5, r.contextId);
        k.bind(6, r.streamId);
        k.bind(7, r.correlationId);
        k.bind(8, intern(r.name));
        int i = 9;
        for (int v : {r.gridX, r.gridY, r.gridZ, r.blockX, r.blockY, r.blockZ, r.clusterX,
                      r.clusterY, r.clusterZ, r.registersPerThread, r.staticSharedBytes,
                      r.dynamicSharedBytes, r.localBytesPerThread})
            k.bind(i++, v);
        k.bind(22, r.localBytesTotal);
        k.bind(23, r.sharedCarveoutBytes);
        k.bind(24, r.graphId);
        k.bind(25, r.graphNodeId);
        k.exec();
    }
    for (const auto& r : memcpys_) {
        auto& m = s.memcpy;
        m.bind(1, run_);
        m.bind(2, r.startNs);
        m.bind(3, r.endNs);
        m.bind(4, r.deviceId);
        m.bind(5, r.contextId);
        m.bind(6, r.streamId);
        m.bind(7, r.correlationId);
        m.bind(8, std::string_view(toString(r.kind)));
        m.bind(9, std::string_view(toString(r.srcKind)));
        m.bind(10, std::string_view(toString(r.dstKind)));
        m.bind(11, r.bytes);
        m.bind(12, r.graphId);
        m.exec();
    }
    for (const auto& r : memsets_) {
        auto& m = s.memset;
        m.bind(1, run_);
        m.bind(2, r.startNs);
        m.bind(3, r.endNs);
        m.bind(4, r.deviceId);
        m.bind(5, r.contextId);
        m.bind(6, r.streamId);
        m.bind(7, r.correlationId);
        m.bind(8, r.bytes);
        m.bind(9, r.value);
        m.bind(10, std::string_view(toString(r.memoryKind)));
        m.bind(11, r.graphId);
        m.exec();
    }
    for (const auto& r : apiCalls_) {
        auto& a = s.api;
        a.bind(1, run_);
        a.bind(2, r.startNs);
        a.bind(3, r.endNs);
        a.bind(4, r.processId);
        a.bind(5, r.threadId);
        a.bind(6, r.correlationId);
        a.bind(7, std::string_view(r.kind == ApiKind::Runtime ? "runtime" : "driver"));
        a.bind(8, r.callbackId);
        a.bind(9, intern(r.name));
        a.bind(10, r.returnValue);
        a.exec();
    }
    for (const auto& r : ranges_) {
        auto& g = s.range;
        g.bind(1, run_);
        g.bind(2, r.startNs);
        g.bind(3, r.endNs);
        g.bind(4, r.processId);
        g.bind(5, r.threadId);
        g.bind(6, intern(r.name));
        g.bind(7, intern(r.domain));
        g.bind(8, std::string_view(rangeKindName(r.kind)));
        g.bind(9, r.color);
        g.bind(10, r.depth);
        g.exec();
    }
    for (const auto& r : requests_) {
        auto& q = s.request;
        q.bind(1, run_);
        q.bind(2, r.requestId);
        q.bind(3, r.startNs);
        q.bind(4, r.endNs);
        q.bind(5, r.promptTokens);
        q.bind(6, r.outputTokens);
        q.bind(7, r.success);
        q.exec();
    }
    for (const auto& r : tokens_) {
        auto& t = s.token;
        t.bind(1, run_);
        t.bind(2, r.requestId);
        t.bind(3, r.index);
        t.bind(4, r.timeNs);
        t.exec();
    }
    for (const auto& r : samples_) {
        auto& m = s.sample;
        m.bind(1, run_);
        m.bind(2, r.timeNs);
        m.bind(3, r.deviceIndex);
        m.bind(4, r.powerW);
        m.bind(5, r.smClockMhz);
        m.bind(6, r.memClockMhz);
        m.bind(7, r.temperatureC);
        m.bind(8, r.memoryUsedBytes);
        m.bind(9, r.gpuUtilPercent);
        m.bind(10, r.memUtilPercent);
        m.bind(11, r.energyJ);
        m.exec();
    }
    for (const auto& r : overheads_) {
        auto& o = s.overhead;
        o.bind(1, run_);
        o.bind(2, r.startNs);
        o.bind(3, r.endNs);
        o.bind(4, r.kind);
        o.exec();
    }
    for (const auto& r : metrics_) {
        auto& m = s.metric;
        m.bind(1, run_);
        m.bind(2, r.correlationId);
        m.bind(3, intern(r.metric));
        m.bind(4, r.value);
        m.exec();
    }
    for (const auto& r : quality_) {
        auto& q = s.quality;
        q.bind(1, run_);
        q.bind(2, r.check);
        q.bind(3, r.referenceVariant);
        q.bind(4, r.tokenAgreement);
        q.bind(5, r.maxLogitError);
        q.bind(6, r.tolerance);
        q.bind(7, r.passed);
        q.exec();
    }
    s.heartbeat.bind(1, run_);
    s.heartbeat.bind(2, unixNowNs());
    s.heartbeat.exec();
}

}  // namespace ws
