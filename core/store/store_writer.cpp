#include "store/store_writer.h"
#include "store_db.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "gpu_metric_blob.h"
#include "model/value_limits.h"
#include "wire/event_codec.h"

#include "store/store.h"
#include "util/process_identity.h"

namespace ws {

namespace {

// Records per chunk: large enough that SQLite's per-row cost vanishes, small
// enough that a zoomed-in window decodes little beyond what it shows.
constexpr std::size_t kRecordsPerChunk = 4096;

std::string insertSql(const char* table, std::initializer_list<const char*> columns,
                      const char* verb) {
    std::string sql = std::string(verb) + " INTO " + table + " (";
    bool first = true;
    for (const char* c : columns) {
        sql += first ? "" : ", ";
        sql += c;
        first = false;
    }
    sql += ") VALUES ";
    std::string row = "(";
    for (std::size_t i = 0; i < columns.size(); ++i)
        row += i ? ",?" : "?";
    row += ")";
    return sql + row;
}

}  // namespace

// One table's prepared single-row insert. (Multi-row VALUES lists measured
// slower: SQLite runs them as a compound select.)
struct StoreWriter::Table {
    Table(sql::Db& db, const char* name, std::initializer_list<const char*> columns,
          const char* verb = "INSERT")
        : insert(db, insertSql(name, columns, verb)) {}

    // bind(statement, firstParameterIndex, record) binds every column, so the
    // statement is rewound without clearing its bindings.
    template <typename T, typename Bind>
    void insertAll(const std::vector<T>& records, Bind bind) {
        for (const auto& r : records) {
            bind(insert, 1, r);
            insert.step();
            insert.rewind();
        }
    }

    sql::Statement insert;
};

struct StoreWriter::Statements {
    explicit Statements(sql::Db& db)
        : internInsert(db, "INSERT OR IGNORE INTO strings (value) VALUES (?1)"),
          internSelect(db, "SELECT id FROM strings WHERE value = ?1"),
          heartbeat(db, "UPDATE runs SET heartbeat_at = ?2 WHERE id = ?1"),
          chunk(db, "event_chunks",
                {"run_id", "kind", "group_id", "lane_id", "first_start_ns", "max_end_ns", "count",
                 "busy_ns", "bytes", "data", "format"}),
          request(db, "requests",
                  {"run_id", "request_id", "start_ns", "end_ns", "prompt_tokens", "output_tokens",
                   "success"},
                  "INSERT OR REPLACE"),
          token(db, "tokens", {"run_id", "request_id", "token_index", "time_ns"},
                "INSERT OR REPLACE"),
          sample(db, "samples",
                 {"run_id", "time_ns", "device_index", "power_w", "sm_clock_mhz", "mem_clock_mhz",
                  "temperature_c", "memory_used_bytes", "gpu_util_percent", "mem_util_percent",
                  "energy_j", "clock_event_reasons", "nvlink_tx_bytes", "nvlink_rx_bytes"}),
          overhead(db, "overheads", {"run_id", "start_ns", "end_ns", "kind"}),
          metric(db, "kernel_metrics", {"run_id", "correlation_id", "metric_id", "value"}),
          quality(db, "quality",
                  {"run_id", "check_name", "reference_variant", "token_agreement",
                   "max_logit_error", "tolerance", "passed"}),
          graphNode(db, "graph_nodes",
                    {"run_id", "process_id", "node_id", "original_node_id", "graph_id", "thread_id",
                     "time_ns", "node_type"}),
          collectiveCall(db, "collective_calls",
                         {"run_id", "process_id", "thread_id", "start_ns", "end_ns", "collective",
                          "communicator", "bytes"}),
          gpuStream(db, "gpu_streams",
                    {"run_id", "device_id", "stream_id", "process_id", "cuda_stream_id"}),
          gpuMetric(db, "gpu_metric_chunks",
                    {"run_id", "device_index", "metric", "first_start_ns", "last_end_ns", "count",
                     "data"}),
          pcSample(db, "pc_samples",
                   {"run_id", "function", "pc_offset", "stall_reason", "samples", "source_file",
                    "line", "sass"}) {}

    sql::Statement internInsert, internSelect, heartbeat;
    Table chunk, request, token, sample, overhead, metric, quality, graphNode, collectiveCall,
        gpuStream, gpuMetric, pcSample;
};

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

template <typename T>
void StoreWriter::push(std::vector<T>& records, const T& r) {
    if (blocked_ && pending_ >= maxPending_) {
        ++discarded_;
        return;
    }
    records.push_back(r);
    // While blocked, the next try is the caller's periodic tryFlush().
    if (++pending_ >= batchSize_ && !blocked_) tolerant_ ? (void)tryFlush() : flush();
}

void StoreWriter::add(const KernelRecord& r) {
    push(kernels_, r);
}
void StoreWriter::add(const MemcpyRecord& r) {
    push(memcpys_, r);
}
void StoreWriter::add(const MemsetRecord& r) {
    push(memsets_, r);
}
void StoreWriter::add(const ApiCallRecord& r) {
    push(apiCalls_, r);
}
void StoreWriter::add(const RangeRecord& r) {
    push(ranges_, r);
}
void StoreWriter::add(const RequestRecord& r) {
    push(requests_, r);
}
void StoreWriter::add(const TokenRecord& r) {
    push(tokens_, r);
}
void StoreWriter::add(const SampleRecord& r) {
    push(samples_, r);
}
void StoreWriter::add(const OverheadRecord& r) {
    push(overheads_, r);
}
void StoreWriter::add(const KernelMetricRecord& r) {
    // A ratio metric over a zero denominator is NaN: no value, nothing stored.
    if (!std::isfinite(r.value)) {
        ++discarded_;
        return;
    }
    push(metrics_, r);
}
void StoreWriter::add(const QualityRecord& r) {
    if (!std::isfinite(r.tokenAgreement) || !std::isfinite(r.maxLogitError) ||
        !std::isfinite(r.tolerance)) {
        ++discarded_;
        problems_.push_back("quality check '" + r.check + "' not stored: a value is not finite");
        return;
    }
    push(quality_, r);
}
void StoreWriter::add(const GraphNodeRecord& r) {
    push(graphNodes_, r);
}
void StoreWriter::add(const CollectiveCallRecord& r) {
    push(collectiveCalls_, r);
}
void StoreWriter::add(const GpuStreamRecord& r) {
    push(gpuStreams_, r);
}

void StoreWriter::add(const GpuMetricSeries& r) {
    std::vector<GpuMetricSample> samples;
    samples.reserve(r.samples.size());
    for (const auto& sample : r.samples) {
        if (limits::spanProblem(sample.startNs, sample.endNs)) {
            ++discarded_;
            continue;
        }
        samples.push_back(sample);
    }
    std::stable_sort(samples.begin(), samples.end(),
                     [](const auto& a, const auto& b) { return a.startNs < b.startNs; });
    for (std::size_t at = 0; at < samples.size(); at += kRecordsPerChunk) {
        const auto part =
            std::span(samples).subspan(at, std::min(kRecordsPerChunk, samples.size() - at));
        GpuMetricChunk chunk;
        chunk.deviceIndex = r.deviceIndex;
        chunk.metric = r.metric;
        chunk.firstStartNs = part.front().startNs;
        chunk.lastEndNs = part.front().endNs;
        for (const auto& sample : part)
            chunk.lastEndNs = std::max(chunk.lastEndNs, sample.endNs);
        chunk.count = static_cast<std::int64_t>(part.size());
        chunk.data = gpu_metric_blob::encode(part);
        push(gpuMetricChunks_, std::move(chunk));
    }
}

void StoreWriter::add(const PcSampleRecord& r) {
    constexpr std::uint64_t kMost = std::uint64_t{1} << 62;
    if (r.samples <= 0 || r.pcOffset >= kMost) {
        ++discarded_;
        return;
    }
    push(pcSamples_, r);
}

void StoreWriter::keepRecordsWhenBlocked(std::size_t maxPending) {
    tolerant_ = true;
    maxPending_ = std::max(maxPending, batchSize_);
}

std::vector<std::string> StoreWriter::takeProblems() {
    return std::exchange(problems_, {});
}

bool StoreWriter::tryFlush() {
    try {
        flush();
    } catch (const StoreError& e) {
        if (e.kind() != StoreError::Kind::Locked && e.kind() != StoreError::Kind::DiskFull) throw;
        blocked_ = true;
        return false;
    }
    blocked_ = false;
    return true;
}

namespace {
// A slot of the intern cache from the text's length and three 8-byte samples
// (start, middle, end): cheap, and kernel names that share a prefix and a
// suffix mostly differ in the middle. A collision only costs a miss.
std::size_t internSlot(std::string_view t, std::size_t slots) {
    std::uint64_t a = 0, b = 0, c = 0;
    const std::size_t n = t.size();
    if (n >= 8) {
        std::memcpy(&a, t.data(), 8);
        std::memcpy(&b, t.data() + (n - 8) / 2, 8);
        std::memcpy(&c, t.data() + n - 8, 8);
    } else if (n > 0) {
        std::memcpy(&a, t.data(), n);
    }
    std::uint64_t h = a ^ std::rotl(b, 21) ^ std::rotl(c, 42) ^ n;
    h *= 0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>(h >> 40) % slots;
}
}  // namespace

std::int64_t StoreWriter::intern(std::string_view text) {
    CachedString& cached = internCache_[internSlot(text, internCache_.size())];
    if (cached.text && *cached.text == text) return cached.id;
    if (auto it = strings_.find(text); it != strings_.end()) {
        cached = {&it->first, it->second};
        return it->second;
    }
    st_->internInsert.bind(1, text);
    st_->internInsert.exec();
    st_->internSelect.bind(1, text);
    st_->internSelect.step();
    auto id = st_->internSelect.int64(0);
    st_->internSelect.reset();
    auto [it, inserted] = strings_.emplace(std::string(text), id);
    cached = {&it->first, id};
    internedThisBatch_.emplace_back(text);
    return id;
}

void StoreWriter::flush() {
    if (pending_ == 0) return;
    if (!st_) st_ = std::make_unique<Statements>(storeDb(store_));
    internedThisBatch_.clear();
    rejectedThisBatch_ = 0;
    try {
        sql::Transaction tx(storeDb(store_));
        writePending();
        tx.commit();
    } catch (...) {
        // The rolled-back transaction took these strings with it.
        for (const auto& s : internedThisBatch_)
            strings_.erase(s);
        internCache_.fill({});
        throw;
    }
    written_ += static_cast<std::int64_t>(pending_ - rejectedThisBatch_);
    clearPending();
}

void StoreWriter::clearPending() {
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
    graphNodes_.clear();
    collectiveCalls_.clear();
    gpuStreams_.clear();
    gpuMetricChunks_.clear();
    pcSamples_.clear();
}

namespace {
// Summary columns only: records are range-checked where they come in, and a
// sum that would still overflow stops at the limit instead.
std::int64_t saturatingAdd(std::int64_t a, std::int64_t b) {
    std::int64_t out;
    if (!__builtin_add_overflow(a, b, &out)) return out;
    return b > 0 ? std::numeric_limits<std::int64_t>::max()
                 : std::numeric_limits<std::int64_t>::min();
}
std::int64_t saturatingSub(std::int64_t a, std::int64_t b) {
    std::int64_t out;
    if (!__builtin_sub_overflow(a, b, &out)) return out;
    return b < 0 ? std::numeric_limits<std::int64_t>::max()
                 : std::numeric_limits<std::int64_t>::min();
}

std::int64_t bytesOf(const MemcpyRecord& r) {
    return r.bytes;
}
std::int64_t bytesOf(const MemsetRecord& r) {
    return r.bytes;
}
template <typename T>
std::int64_t bytesOf(const T&) {
    return 0;
}
}  // namespace

template <typename T>
void StoreWriter::writeChunks(const std::vector<T>& records) {
    if (records.empty()) return;
    // Group by lane, each lane in start order, then cut into chunks. Lanes
    // are few (streams, threads) and each mostly arrives in order: records go
    // to their lane's bucket as they come, and only a lane out of order is
    // sorted (stable, so the order is that of one stable sort by lane, start).
    std::vector<std::pair<codec::Lane, std::vector<const T*>>> lanes;
    std::unordered_map<std::uint64_t, std::size_t> laneIndex;
    std::size_t last = 0;
    for (const auto& r : records) {
        const auto lane = codec::laneOf(r);
        if (last >= lanes.size() || lanes[last].first != lane) {
            const auto key = std::uint64_t(lane.group) << 32 | lane.lane;
            const auto [at, fresh] = laneIndex.try_emplace(key, lanes.size());
            if (fresh) lanes.emplace_back(lane, std::vector<const T*>{});
            last = at->second;
        }
        lanes[last].second.push_back(&r);
    }
    std::sort(lanes.begin(), lanes.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<const T*> order;
    order.reserve(records.size());
    const auto byStart = [](const T* a, const T* b) { return a->startNs < b->startNs; };
    for (auto& [lane, inLane] : lanes) {
        if (!std::is_sorted(inLane.begin(), inLane.end(), byStart))
            std::stable_sort(inLane.begin(), inLane.end(), byStart);
        order.insert(order.end(), inLane.begin(), inLane.end());
    }
    auto intern = [this](std::string_view text) { return this->intern(text); };
    std::vector<const T*> chunk;
    std::string blob;
    auto& insert = st_->chunk.insert;
    for (std::size_t i = 0; i < order.size();) {
        auto lane = codec::laneOf(*order[i]);
        chunk.clear();
        std::int64_t maxEnd = order[i]->endNs, busy = 0, bytes = 0;
        for (; i < order.size() && chunk.size() < kRecordsPerChunk &&
               codec::laneOf(*order[i]) == lane;
             ++i) {
            chunk.push_back(order[i]);
            maxEnd = std::max(maxEnd, order[i]->endNs);
            busy = saturatingAdd(busy, saturatingSub(order[i]->endNs, order[i]->startNs));
            bytes = saturatingAdd(bytes, bytesOf(*order[i]));
        }
        blob.clear();
        codec::encode(chunk, intern, blob, codec::kWriteFormat);
        insert.bind(1, run_);
        insert.bind(2, static_cast<int>(codec::kindOf<T>()));
        insert.bind(3, lane.group);
        insert.bind(4, lane.lane);
        insert.bind(5, chunk.front()->startNs);
        insert.bind(6, maxEnd);
        insert.bind(7, static_cast<std::int64_t>(chunk.size()));
        insert.bind(8, busy);
        insert.bind(9, bytes);
        insert.bindBlob(10, blob);
        insert.bind(11, static_cast<int>(codec::kWriteFormat));
        insert.step();
        insert.rewind();
    }
}

// In a recording (keepRecordsWhenBlocked) each kind is written under its own
// savepoint, so one kind the store rejects costs only that kind's records.
template <typename Write>
void StoreWriter::writeKind(const char* kind, std::size_t count, Write write) {
    if (count == 0) return;
    if (!tolerant_) return write();
    auto& db = storeDb(store_);
    const auto internedBefore = internedThisBatch_.size();
    db.exec("SAVEPOINT record_kind");
    try {
        write();
        db.exec("RELEASE record_kind");
    } catch (const StoreError& e) {
        if (e.kind() == StoreError::Kind::Locked || e.kind() == StoreError::Kind::DiskFull) throw;
        db.exec("ROLLBACK TO record_kind");
        db.exec("RELEASE record_kind");
        for (auto i = internedBefore; i < internedThisBatch_.size(); ++i)
            strings_.erase(internedThisBatch_[i]);
        internedThisBatch_.resize(internedBefore);
        internCache_.fill({});
        discarded_ += static_cast<std::int64_t>(count);
        rejectedThisBatch_ += count;
        problems_.push_back(std::to_string(count) + " " + kind +
                            " records not stored: " + e.what());
    }
}

void StoreWriter::writePending() {
    auto& s = *st_;
    const RunId run = run_;
    writeKind("kernel", kernels_.size(), [&] { writeChunks(kernels_); });
    writeKind("memcpy", memcpys_.size(), [&] { writeChunks(memcpys_); });
    writeKind("memset", memsets_.size(), [&] { writeChunks(memsets_); });
    writeKind("API call", apiCalls_.size(), [&] { writeChunks(apiCalls_); });
    writeKind("range", ranges_.size(), [&] { writeChunks(ranges_); });
    writeKind("request", requests_.size(), [&] {
        s.request.insertAll(requests_, [&](sql::Statement& st, int i, const RequestRecord& r) {
            st.bind(i, run);
            st.bind(i + 1, r.requestId);
            st.bind(i + 2, r.startNs);
            st.bind(i + 3, r.endNs);
            st.bind(i + 4, r.promptTokens);
            st.bind(i + 5, r.outputTokens);
            st.bind(i + 6, r.success);
        });
    });
    writeKind("token", tokens_.size(), [&] {
        s.token.insertAll(tokens_, [&](sql::Statement& st, int i, const TokenRecord& r) {
            st.bind(i, run);
            st.bind(i + 1, r.requestId);
            st.bind(i + 2, r.index);
            st.bind(i + 3, r.timeNs);
        });
    });
    writeKind("device sample", samples_.size(), [&] {
        s.sample.insertAll(samples_, [&](sql::Statement& st, int i, const SampleRecord& r) {
            st.bind(i, run);
            st.bind(i + 1, r.timeNs);
            st.bind(i + 2, r.deviceIndex);
            st.bind(i + 3, r.powerW);
            st.bind(i + 4, r.smClockMhz);
            st.bind(i + 5, r.memClockMhz);
            st.bind(i + 6, r.temperatureC);
            st.bind(i + 7, r.memoryUsedBytes);
            st.bind(i + 8, r.gpuUtilPercent);
            st.bind(i + 9, r.memUtilPercent);
            st.bind(i + 10, r.energyJ);
            st.bind(i + 11, r.clockEventReasons);
            st.bind(i + 12, r.nvlinkTxBytes);
            st.bind(i + 13, r.nvlinkRxBytes);
        });
    });
    writeKind("overhead", overheads_.size(), [&] {
        s.overhead.insertAll(overheads_, [&](sql::Statement& st, int i, const OverheadRecord& r) {
            st.bind(i, run);
            st.bind(i + 1, r.startNs);
            st.bind(i + 2, r.endNs);
            st.bind(i + 3, r.kind);
        });
    });
    writeKind("kernel metric", metrics_.size(), [&] {
        s.metric.insertAll(metrics_, [&](sql::Statement& st, int i, const KernelMetricRecord& r) {
            st.bind(i, run);
            st.bind(i + 1, r.correlationId);
            st.bind(i + 2, intern(r.metric));
            st.bind(i + 3, r.value);
        });
    });
    writeKind("quality", quality_.size(), [&] {
        s.quality.insertAll(quality_, [&](sql::Statement& st, int i, const QualityRecord& r) {
            st.bind(i, run);
            st.bind(i + 1, r.check);
            st.bind(i + 2, r.referenceVariant);
            st.bind(i + 3, r.tokenAgreement);
            st.bind(i + 4, r.maxLogitError);
            st.bind(i + 5, r.tolerance);
            st.bind(i + 6, r.passed);
        });
    });
    writeKind("graph node", graphNodes_.size(), [&] {
        s.graphNode.insertAll(graphNodes_,
                              [&](sql::Statement& st, int i, const GraphNodeRecord& r) {
                                  st.bind(i, run);
                                  st.bind(i + 1, static_cast<std::int64_t>(r.processId));
                                  // Node ids are 64-bit unsigned; SQLite keeps their bits in a
                                  // signed integer.
                                  st.bind(i + 2, static_cast<std::int64_t>(r.nodeId));
                                  st.bind(i + 3, static_cast<std::int64_t>(r.originalNodeId));
                                  st.bind(i + 4, static_cast<std::int64_t>(r.graphId));
                                  st.bind(i + 5, static_cast<std::int64_t>(r.threadId));
                                  st.bind(i + 6, r.timeNs);
                                  st.bind(i + 7, r.nodeType);
                              });
    });
    writeKind("NCCL call", collectiveCalls_.size(), [&] {
        s.collectiveCall.insertAll(collectiveCalls_,
                                   [&](sql::Statement& st, int i, const CollectiveCallRecord& r) {
                                       st.bind(i, run);
                                       st.bind(i + 1, static_cast<std::int64_t>(r.processId));
                                       st.bind(i + 2, static_cast<std::int64_t>(r.threadId));
                                       st.bind(i + 3, r.startNs);
                                       st.bind(i + 4, r.endNs);
                                       st.bind(i + 5, r.collective);
                                       // A 64-bit hash; SQLite keeps its bits in a signed integer.
                                       st.bind(i + 6, static_cast<std::int64_t>(r.communicator));
                                       st.bind(i + 7, r.bytes);
                                   });
    });
    writeKind("GPU stream", gpuStreams_.size(), [&] {
        s.gpuStream.insertAll(gpuStreams_,
                              [&](sql::Statement& st, int i, const GpuStreamRecord& r) {
                                  st.bind(i, run);
                                  st.bind(i + 1, static_cast<std::int64_t>(r.deviceId));
                                  st.bind(i + 2, static_cast<std::int64_t>(r.streamId));
                                  st.bind(i + 3, static_cast<std::int64_t>(r.processId));
                                  st.bind(i + 4, static_cast<std::int64_t>(r.cudaStreamId));
                              });
    });
    writeKind("GPU metric sample", gpuMetricChunks_.size(), [&] {
        s.gpuMetric.insertAll(gpuMetricChunks_,
                              [&](sql::Statement& st, int i, const GpuMetricChunk& c) {
                                  st.bind(i, run);
                                  st.bind(i + 1, static_cast<std::int64_t>(c.deviceIndex));
                                  st.bind(i + 2, c.metric);
                                  st.bind(i + 3, c.firstStartNs);
                                  st.bind(i + 4, c.lastEndNs);
                                  st.bind(i + 5, c.count);
                                  st.bindBlob(i + 6, c.data);
                              });
    });
    writeKind("PC sample", pcSamples_.size(), [&] {
        s.pcSample.insertAll(pcSamples_, [&](sql::Statement& st, int i, const PcSampleRecord& r) {
            st.bind(i, run);
            st.bind(i + 1, r.function);
            st.bind(i + 2, static_cast<std::int64_t>(r.pcOffset));
            st.bind(i + 3, r.stallReason);
            st.bind(i + 4, r.samples);
            st.bind(i + 5, r.sourceFile);
            st.bind(i + 6, static_cast<std::int64_t>(r.line));
            st.bind(i + 7, r.sass);
        });
    });
    s.heartbeat.bind(1, run);
    s.heartbeat.bind(2, unixNowNs());
    s.heartbeat.exec();
}

}  // namespace ws
