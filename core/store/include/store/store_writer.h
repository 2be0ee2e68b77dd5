// The one way records reach a store: buffered in memory and written in large
// transactions through prepared statements, with repeated strings interned.
// Every producer (capture, built-in workloads, importers, fixtures) uses it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/records.h"
#include "store/sqlite_db.h"

namespace ws {

class Store;

class StoreWriter {
  public:
    // Records are flushed once `batchSize` of them are pending, or on flush().
    StoreWriter(Store& store, RunId run, std::size_t batchSize = 1 << 16);
    ~StoreWriter();  // flushes; errors there are swallowed, call flush() to see them
    StoreWriter(const StoreWriter&) = delete;
    StoreWriter& operator=(const StoreWriter&) = delete;

    void add(const KernelRecord& r);
    void add(const MemcpyRecord& r);
    void add(const MemsetRecord& r);
    void add(const ApiCallRecord& r);
    void add(const RangeRecord& r);
    void add(const RequestRecord& r);
    void add(const TokenRecord& r);
    void add(const SampleRecord& r);
    void add(const OverheadRecord& r);
    void add(const KernelMetricRecord& r);
    void add(const QualityRecord& r);
    void add(const GraphNodeRecord& r);
    void add(const CollectiveCallRecord& r);
    void add(const GpuStreamRecord& r);
    // Samples in any order; those with an end before their start or a time
    // outside model/value_limits.h are discarded (and counted).
    void add(const GpuMetricSeries& r);
    // A record with no samples, or a negative or too large offset or count,
    // is discarded (and counted).
    void add(const PcSampleRecord& r);

    // Writes everything pending in one transaction. On failure (disk full, lock)
    // nothing of the batch is written and the records stay pending.
    void flush();

    // For recordings, which must not end because another process holds the
    // store's lock for a while: a locked or full store only delays writes.
    // Records wait in memory up to `maxPending`; beyond it they are discarded
    // and counted. A record kind the store rejects is discarded alone (the
    // other kinds of the batch are written) and said in problems().
    void keepRecordsWhenBlocked(std::size_t maxPending);
    // flush() for that mode: false when the store was locked or full and the
    // records stay pending; any other store error still throws.
    bool tryFlush();
    bool blocked() const { return blocked_; }
    // Records not stored: over the limit while blocked, rejected by the store,
    // or a metric/quality value that is not a finite number.
    std::int64_t discarded() const { return discarded_; }
    // What went wrong since the last call, one line each, for the run's log.
    std::vector<std::string> takeProblems();

    std::size_t pending() const { return pending_; }
    std::int64_t written() const { return written_; }
    RunId run() const { return run_; }

  private:
    struct Table;
    struct Statements;
    std::int64_t intern(std::string_view text);
    template <typename T>
    void push(std::vector<T>& records, const T& r);
    void writePending();
    template <typename Write>
    void writeKind(const char* kind, std::size_t count, Write write);
    void clearPending();
    template <typename T>
    void writeChunks(const std::vector<T>& records);

    Store& store_;
    RunId run_;
    std::size_t batchSize_;
    std::size_t pending_ = 0;
    std::int64_t written_ = 0;
    bool tolerant_ = false;  // keepRecordsWhenBlocked()
    std::size_t maxPending_ = 0;
    bool blocked_ = false;
    std::int64_t discarded_ = 0;
    std::size_t rejectedThisBatch_ = 0;
    std::vector<std::string> problems_;

    std::vector<KernelRecord> kernels_;
    std::vector<MemcpyRecord> memcpys_;
    std::vector<MemsetRecord> memsets_;
    std::vector<ApiCallRecord> apiCalls_;
    std::vector<RangeRecord> ranges_;
    std::vector<RequestRecord> requests_;
    std::vector<TokenRecord> tokens_;
    std::vector<SampleRecord> samples_;
    std::vector<OverheadRecord> overheads_;
    std::vector<KernelMetricRecord> metrics_;
    std::vector<QualityRecord> quality_;
    std::vector<GraphNodeRecord> graphNodes_;
    std::vector<CollectiveCallRecord> collectiveCalls_;
    std::vector<GpuStreamRecord> gpuStreams_;
    struct GpuMetricChunk {
        std::uint32_t deviceIndex = 0;
        std::string metric;
        std::int64_t firstStartNs = 0, lastEndNs = 0, count = 0;
        std::string data;  // store/gpu_metric_blob.h
    };
    std::vector<GpuMetricChunk> gpuMetricChunks_;
    std::vector<PcSampleRecord> pcSamples_;

    struct StringHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const {
            return std::hash<std::string_view>{}(s);
        }
    };
    std::unordered_map<std::string, std::int64_t, StringHash, std::equal_to<>> strings_;
    // In front of strings_: a record's name is one of a few that repeat, and
    // comparing it with a cached key costs less than hashing it (a fifth of
    // ingest's time in BM_StoreIngestLaunches). Entries point at strings_'s
    // keys (node-based, stable until erased; a rollback clears the cache).
    struct CachedString {
        const std::string* text = nullptr;
        std::int64_t id = 0;
    };
    std::array<CachedString, 128> internCache_{};
    std::vector<std::string> internedThisBatch_;
    std::unique_ptr<Statements> st_;
};

}  // namespace ws
