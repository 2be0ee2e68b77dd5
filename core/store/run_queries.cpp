#include "store/run_queries.h"
#include "gpu_metric_blob.h"

#include "store_db.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <unordered_map>

#include "model/device_fields.h"
#include "store/store.h"
#include "wire/event_codec.h"

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
    sql::Statement st(storeDb(store), std::string("SELECT ") + kRunColumns + "ORDER BY r.id");
    std::vector<RunInfo> runs;
    while (st.step())
        runs.push_back(readRun(st));
    return runs;
}

std::optional<RunInfo> findRun(Store& store, RunId id) {
    sql::Statement st(storeDb(store), std::string("SELECT ") + kRunColumns + "WHERE r.id = ?1");
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
    std::string columns;
    for (const auto& f : kDeviceFields)
        columns += std::string(columns.empty() ? "" : ", ") + "d." + f.column;
    sql::Statement st(storeDb(store), "SELECT " + columns +
                                          " FROM runs r JOIN devices d ON d.id = r.device_id "
                                          "WHERE r.id = ?1");
    st.bind(1, id);
    if (!st.step()) return std::nullopt;
    DeviceInfo d;
    int col = 0;
    for (const auto& f : kDeviceFields) {
        if (f.text) d.*f.text = st.text(col);
        if (f.int32) d.*f.int32 = st.int32(col);
        if (f.int64) d.*f.int64 = st.int64(col);
        ++col;
    }
    return d;
}

std::optional<WorkloadInfo> runWorkload(Store& store, RunId id) {
    sql::Statement st(storeDb(store),
                      "SELECT w.name, w.kind, w.config_text FROM runs r JOIN workloads w ON "
                      "w.id = r.workload_id WHERE r.id = ?1");
    st.bind(1, id);
    if (!st.step()) return std::nullopt;
    return WorkloadInfo{st.text(0), st.text(1), st.text(2)};
}

std::string runLog(Store& store, RunId id) {
    sql::Statement st(storeDb(store), "SELECT log FROM runs WHERE id = ?1");
    st.bind(1, id);
    return st.step() ? st.text(0) : std::string();
}

std::optional<double> numberProperty(const std::map<std::string, std::string>& properties,
                                     const std::string& key) {
    auto it = properties.find(key);
    if (it == properties.end()) return std::nullopt;
    char* end = nullptr;
    double v = std::strtod(it->second.c_str(), &end);
    if (end == it->second.c_str()) return std::nullopt;
    return v;
}

std::optional<double> positiveProperty(const std::map<std::string, std::string>& properties,
                                       const std::string& key) {
    auto v = numberProperty(properties, key);
    return v && std::isfinite(*v) && *v > 0 ? v : std::nullopt;
}

std::map<std::string, std::string> runProperties(Store& store, RunId id) {
    sql::Statement st(storeDb(store), "SELECT key, value FROM run_properties WHERE run_id = ?1");
    st.bind(1, id);
    std::map<std::string, std::string> props;
    while (st.step())
        props[st.text(0)] = st.text(1);
    return props;
}

std::vector<std::pair<RunId, std::string>> runsWithProperty(Store& store, const std::string& key) {
    sql::Statement st(storeDb(store),
                      "SELECT run_id, value FROM run_properties WHERE key = ?1 ORDER BY run_id");
    st.bind(1, key);
    std::vector<std::pair<RunId, std::string>> out;
    while (st.step())
        out.emplace_back(st.int64(0), st.text(1));
    return out;
}

RunAggregates runAggregates(Store& store, RunId id) {
    RunAggregates a;
    auto& db = storeDb(store);
    {
        sql::Statement st(db,
                          "SELECT kind, sum(count), sum(busy_ns), sum(bytes), min(first_start_ns), "
                          "max(max_end_ns) FROM event_chunks WHERE run_id = ?1 GROUP BY kind");
        st.bind(1, id);
        while (st.step()) {
            auto count = st.int64(1);
            switch (static_cast<codec::ChunkKind>(st.int32(0))) {
                case codec::ChunkKind::Kernel:
                    a.kernelCount = count;
                    a.kernelTimeNs = st.int64(2);
                    break;
                case codec::ChunkKind::Memcpy:
                    a.memcpyCount = count;
                    a.memcpyTimeNs = st.int64(2);
                    a.memcpyBytes = st.int64(3);
                    break;
                case codec::ChunkKind::Memset:
                    a.memsetCount = count;
                    break;
                case codec::ChunkKind::ApiCall:
                    a.apiCallCount = count;
                    break;
                case codec::ChunkKind::Range:
                    a.rangeCount = count;
                    break;
            }
            auto first = st.int64(4), last = st.int64(5);
            a.firstNs = a.firstNs ? std::min(*a.firstNs, first) : first;
            a.lastNs = a.lastNs ? std::max(*a.lastNs, last) : last;
        }
    }
    auto count = [&](const char* table) {
        sql::Statement st(db, std::string("SELECT count(*) FROM ") + table + " WHERE run_id = ?1");
        st.bind(1, id);
        st.step();
        return st.int64(0);
    };
    a.requestCount = count("requests");
    a.tokenCount = count("tokens");
    a.sampleCount = count("samples");
    a.overheadCount = count("overheads");
    a.streamCount = static_cast<std::int64_t>(runStreams(store, id).size());
    return a;
}

std::vector<StreamKey> runStreams(Store& store, RunId id) {
    sql::Statement st(storeDb(store),
                      "SELECT DISTINCT group_id, lane_id FROM event_chunks WHERE run_id = ?1 AND "
                      "kind IN (1, 2, 3) ORDER BY 1, 2");
    st.bind(1, id);
    std::vector<StreamKey> keys;
    while (st.step())
        keys.push_back(
            {static_cast<std::uint32_t>(st.int64(0)), static_cast<std::uint32_t>(st.int64(1))});
    return keys;
}

namespace {

// Resolves interned string ids, asking SQLite once per id.
class StringCache {
  public:
    explicit StringCache(Store& store)
        : select_(storeDb(store), "SELECT value FROM strings WHERE id = ?1") {}
    const std::string& operator()(std::int64_t id) {
        auto it = cache_.find(id);
        if (it != cache_.end()) return it->second;
        select_.bind(1, id);
        std::string value =
            select_.step() ? select_.text(0) : "<missing string " + std::to_string(id) + ">";
        select_.reset();
        return cache_.emplace(id, std::move(value)).first->second;
    }

  private:
    sql::Statement select_;
    std::unordered_map<std::int64_t, std::string> cache_;
};

// Visits the records of one kind overlapping `window`, lane after lane, each
// lane in start order, reading one chunk after another.
// A slice in time of what forEachChunked visits: records starting in a span.
struct StartSlice {
    TimeWindow starts;
    bool reversed = false;  // an opened chunk held a record ending before it starts
};

template <typename T>
void forEachChunked(Store& store, RunId id, TimeWindow window, std::optional<std::uint32_t> lane,
                    const std::function<void(const T&)>& visit, StartSlice* slice = nullptr) {
    StringCache strings(store);
    codec::Lookup lookup = [&](std::int64_t sid) -> const std::string& { return strings(sid); };
    sql::Statement st(
        storeDb(store),
        "SELECT group_id, lane_id, count, data, format, first_start_ns FROM event_chunks "
        "WHERE run_id = ?1 AND kind = ?2 AND first_start_ns < ?4 AND max_end_ns > ?3 AND (?5 IS "
        "NULL OR lane_id = ?5) AND first_start_ns < ?7 AND max_end_ns >= ?6 ORDER BY group_id, "
        "lane_id, first_start_ns");
    st.bind(1, id);
    st.bind(2, static_cast<int>(codec::kindOf<T>()));
    st.bind(3, window.beginNs);
    st.bind(4, window.endNs);
    if (lane)
        st.bind(5, *lane);
    else
        st.bindNull(5);
    // Without a slice, conditions that hold for every chunk the window takes.
    st.bind(6, slice ? slice->starts.beginNs : std::numeric_limits<std::int64_t>::min());
    st.bind(7, slice ? slice->starts.endNs : std::numeric_limits<std::int64_t>::max());
    // A lane's records in start order, one chunk in memory at a time (more
    // only where chunks overlap in time: chunks of one lane written by
    // different flushes may interleave). Chunks come in order of their first
    // start, so a pending record that starts before the next chunk's first
    // start precedes everything still to come and can be visited. Equal
    // starts keep chunk order, then order within the chunk.
    auto byStart = [](const T& a, const T& b) { return a.startNs < b.startNs; };
    std::vector<T> pending, chunk;
    std::optional<codec::Lane> current;
    auto visitBefore = [&](std::int64_t limitNs) {
        auto end = std::find_if(pending.begin(), pending.end(),
                                [&](const T& r) { return r.startNs >= limitNs; });
        for (auto it = pending.begin(); it != end; ++it)
            if (it->startNs < window.endNs && it->endNs > window.beginNs) visit(*it);
        pending.erase(pending.begin(), end);
    };
    constexpr std::int64_t kAll = std::numeric_limits<std::int64_t>::max();
    while (st.step()) {
        codec::Lane l{static_cast<std::uint32_t>(st.int64(0)),
                      static_cast<std::uint32_t>(st.int64(1))};
        if (current && *current != l) visitBefore(kAll);
        current = l;
        visitBefore(st.int64(5));
        chunk.clear();
        try {
            codec::decode(st.blob(3), st.int64(2), l, lookup, chunk,
                          static_cast<codec::Format>(st.int32(4)));
        } catch (const std::runtime_error& e) {
            throw StoreError(StoreError::Kind::Sql,
                             store.path() + ": run " + std::to_string(id) + ": " + e.what());
        }
        if (slice) {
            slice->reversed =
                slice->reversed || std::any_of(chunk.begin(), chunk.end(),
                                               [](const T& r) { return r.endNs < r.startNs; });
            std::erase_if(chunk, [&](const T& r) {
                return !(r.startNs >= slice->starts.beginNs && r.startNs < slice->starts.endNs);
            });
        }
        if (chunk.empty()) continue;  // a damaged or foreign store's empty blob
        // Chunks are written sorted and a lane's chunks rarely overlap: sort
        // and merge (each allocating a buffer of the chunk's size) only when
        // they are needed.
        if (!std::is_sorted(chunk.begin(), chunk.end(), byStart))
            std::stable_sort(chunk.begin(), chunk.end(), byStart);
        if (pending.empty()) {
            pending.swap(chunk);
        } else {
            auto middle = static_cast<std::ptrdiff_t>(pending.size());
            const bool after = pending.back().startNs <= chunk.front().startNs;
            pending.insert(pending.end(), std::make_move_iterator(chunk.begin()),
                           std::make_move_iterator(chunk.end()));
            if (!after)
                std::inplace_merge(pending.begin(), pending.begin() + middle, pending.end(),
                                   byStart);
        }
    }
    visitBefore(kAll);
}

template <typename T>
std::vector<T> collect(Store& store, RunId id, TimeWindow window,
                       std::optional<std::uint32_t> lane) {
    std::vector<T> out;
    forEachChunked<T>(store, id, window, lane, [&](const T& r) { out.push_back(r); });
    std::stable_sort(out.begin(), out.end(),
                     [](const T& a, const T& b) { return a.startNs < b.startNs; });
    return out;
}

}  // namespace

template <typename T>
struct StartOrderReader<T>::Impl {
    struct ChunkRef {
        std::int64_t rowid = 0;
        std::int64_t firstStartNs = 0;
        std::int64_t count = 0;
        codec::Lane lane;
        int format = 0;
    };
    struct Open {
        std::vector<T> records;
        std::size_t at = 0;
        std::size_t order = 0;  // which chunk, for ties
    };

    Impl(Store& s, RunId id, TimeWindow w, std::optional<TimeWindow> startsIn = std::nullopt)
        : store(s),
          run(id),
          window(w),
          starts(startsIn),
          strings(s),
          blob(storeDb(s), "SELECT data FROM event_chunks WHERE rowid = ?1") {
        lookup = [this](std::int64_t sid) -> const std::string& { return strings(sid); };
        // Positions only (no blobs), ordered by first start over all lanes.
        sql::Statement st(storeDb(s),
                          "SELECT rowid, first_start_ns, count, group_id, lane_id, format FROM "
                          "event_chunks WHERE run_id = ?1 AND kind = ?2 AND first_start_ns < ?4 "
                          "AND max_end_ns > ?3 AND first_start_ns < ?6 AND max_end_ns >= ?5 "
                          "ORDER BY first_start_ns, group_id, lane_id, rowid");
        st.bind(1, id);
        st.bind(2, static_cast<int>(codec::kindOf<T>()));
        st.bind(3, w.beginNs);
        st.bind(4, w.endNs);
        // Without a slice, conditions that hold for every chunk the window takes.
        st.bind(5, starts ? starts->beginNs : std::numeric_limits<std::int64_t>::min());
        st.bind(6, starts ? starts->endNs : std::numeric_limits<std::int64_t>::max());
        while (st.step())
            chunks.push_back(
                {st.int64(0),
                 st.int64(1),
                 st.int64(2),
                 {static_cast<std::uint32_t>(st.int64(3)), static_cast<std::uint32_t>(st.int64(4))},
                 st.int32(5)});
    }

    void openChunk() {
        const ChunkRef& ref = chunks[nextChunk];
        Open o;
        if (!spare.empty()) {
            o.records = std::move(spare.back());
            spare.pop_back();
        }
        o.records.clear();
        o.order = nextChunk++;
        blob.bind(1, ref.rowid);
        if (blob.step()) {
            try {
                codec::decode(blob.blob(0), ref.count, ref.lane, lookup, o.records,
                              static_cast<codec::Format>(ref.format));
            } catch (const std::runtime_error& e) {
                throw StoreError(StoreError::Kind::Sql,
                                 store.path() + ": run " + std::to_string(run) + ": " + e.what());
            }
        }
        blob.reset();
        auto byStart = [](const T& a, const T& b) { return a.startNs < b.startNs; };
        if (!std::is_sorted(o.records.begin(), o.records.end(), byStart))
            std::stable_sort(o.records.begin(), o.records.end(), byStart);
        if (starts)
            reversed = reversed || std::any_of(o.records.begin(), o.records.end(),
                                               [](const T& r) { return r.endNs < r.startNs; });
        // Records outside the window (or the slice) are skipped here, once.
        std::erase_if(o.records, [&](const T& r) {
            return !(r.startNs < window.endNs && r.endNs > window.beginNs) ||
                   (starts && !(r.startNs >= starts->beginNs && r.startNs < starts->endNs));
        });
        if (o.records.empty()) {
            spare.push_back(std::move(o.records));
            return;
        }
        std::size_t slot = open.size();
        if (!freeSlots.empty()) {
            slot = freeSlots.back();
            freeSlots.pop_back();
            open[slot] = std::move(o);
        } else {
            open.push_back(std::move(o));
        }
        heap.push_back({open[slot].records.front().startNs, open[slot].order, slot});
        std::push_heap(heap.begin(), heap.end(), Later{});
    }

    // Steps past the record next() returned last (its chunk is the heap's
    // top), then opens what is due.
    void advance() {
        if (returned) {
            returned = false;
            const auto slot = heap.front().slot;
            if (++open[slot].at < open[slot].records.size()) {
                heap.front().startNs = open[slot].records[open[slot].at].startNs;
                siftDownTop();  // its next record starts no earlier
            } else {
                std::pop_heap(heap.begin(), heap.end(), Later{});
                heap.pop_back();
                spare.push_back(std::move(open[slot].records));
                open[slot].records = {};
                freeSlots.push_back(slot);
            }
        }
        fill();
    }

    // Restores the heap after its top's key grew: one pass down instead of a
    // pop and a push.
    void siftDownTop() {
        const Later later;
        const std::size_t n = heap.size();
        const Head item = heap.front();
        std::size_t i = 0;
        for (;;) {
            std::size_t child = 2 * i + 1;
            if (child >= n) break;
            if (child + 1 < n && later(heap[child], heap[child + 1])) ++child;
            if (!later(item, heap[child])) break;
            heap[i] = heap[child];
            i = child;
        }
        heap[i] = item;
    }

    // Opens chunks until the earliest open record precedes every unopened chunk.
    void fill() {
        while (nextChunk < chunks.size() &&
               (heap.empty() || chunks[nextChunk].firstStartNs <= heap.front().startNs))
            openChunk();
    }

    // An open chunk on the heap with the start of its next record, so that
    // comparisons read the heap alone.
    struct Head {
        std::int64_t startNs = 0;
        std::size_t order = 0;  // the chunk's, for ties
        std::size_t slot = 0;   // in open
    };
    struct Later {
        bool operator()(const Head& a, const Head& b) const {
            return a.startNs != b.startNs ? a.startNs > b.startNs : a.order > b.order;
        }
    };

    Store& store;
    RunId run;
    TimeWindow window;
    std::optional<TimeWindow> starts;  // a slice: records starting in it only
    bool reversed = false;             // a slice's chunk held a record ending before its start
    StringCache strings;
    codec::Lookup lookup;
    sql::Statement blob;
    std::vector<ChunkRef> chunks;
    std::size_t nextChunk = 0;
    // Open chunks by index; a finished one's slot is reused.
    std::vector<Open> open;
    // Open slots as a heap by Later (earliest head first); ties cannot occur
    // (chunk order breaks them), so the top is the same however it is built.
    std::vector<Head> heap;
    std::vector<std::vector<T>> spare;  // decoded-records buffers to reuse
    std::vector<std::size_t> freeSlots;
    bool returned = false;  // next() returned the top's head, not yet stepped past
};

template <typename T>
StartOrderReader<T>::StartOrderReader(Store& store, RunId id, TimeWindow window)
    : impl_(std::make_unique<Impl>(store, id, window)) {}

template <typename T>
StartOrderReader<T>::StartOrderReader(Store& store, RunId id, TimeWindow window, TimeWindow starts)
    : impl_(std::make_unique<Impl>(store, id, window, starts)) {}

template <typename T>
StartOrderReader<T>::~StartOrderReader() = default;

template <typename T>
bool StartOrderReader<T>::reversed() const {
    return impl_->reversed;
}

template <typename T>
const T* StartOrderReader<T>::next() {
    auto& m = *impl_;
    m.advance();
    if (m.heap.empty()) return nullptr;
    const auto slot = m.heap.front().slot;
    m.returned = true;
    return &m.open[slot].records[m.open[slot].at];
}

template <typename T>
std::optional<std::int64_t> StartOrderReader<T>::peekStart() {
    auto& m = *impl_;
    m.advance();
    if (m.heap.empty()) return std::nullopt;
    return m.heap.front().startNs;
}

template <typename T>
const std::string& StartOrderReader<T>::text(std::int64_t stringId) {
    return impl_->strings(stringId);
}

template class StartOrderReader<KernelRecord>;
template class StartOrderReader<MemcpyRecord>;
template class StartOrderReader<MemsetRecord>;
template class StartOrderReader<ApiCallRecord>;
template class StartOrderReader<RangeRecord>;
template class StartOrderReader<codec::KernelBrief>;
template class StartOrderReader<codec::ApiCallBrief>;

void forEachKernel(Store& store, RunId id, TimeWindow window, std::optional<std::uint32_t> stream,
                   const std::function<void(const KernelRecord&)>& visit) {
    forEachChunked(store, id, window, stream, visit);
}
void forEachMemcpy(Store& store, RunId id, TimeWindow window, std::optional<std::uint32_t> stream,
                   const std::function<void(const MemcpyRecord&)>& visit) {
    forEachChunked(store, id, window, stream, visit);
}
void forEachMemset(Store& store, RunId id, TimeWindow window, std::optional<std::uint32_t> stream,
                   const std::function<void(const MemsetRecord&)>& visit) {
    forEachChunked(store, id, window, stream, visit);
}
void forEachApiCall(Store& store, RunId id, TimeWindow window, std::optional<std::uint32_t> thread,
                    const std::function<void(const ApiCallRecord&)>& visit) {
    forEachChunked(store, id, window, thread, visit);
}
void forEachRange(Store& store, RunId id, TimeWindow window, std::optional<std::uint32_t> thread,
                  const std::function<void(const RangeRecord&)>& visit) {
    forEachChunked(store, id, window, thread, visit);
}

std::vector<KernelRecord> kernelsIn(Store& store, RunId id, TimeWindow window,
                                    std::optional<std::uint32_t> stream) {
    return collect<KernelRecord>(store, id, window, stream);
}
std::vector<MemcpyRecord> memcpysIn(Store& store, RunId id, TimeWindow window,
                                    std::optional<std::uint32_t> stream) {
    return collect<MemcpyRecord>(store, id, window, stream);
}
std::vector<MemsetRecord> memsetsIn(Store& store, RunId id, TimeWindow window,
                                    std::optional<std::uint32_t> stream) {
    return collect<MemsetRecord>(store, id, window, stream);
}
std::vector<RangeRecord> rangesStartingIn(Store& store, RunId id, TimeWindow starts,
                                          bool* reversed) {
    StartSlice slice{starts};
    std::vector<RangeRecord> out;
    forEachChunked<RangeRecord>(
        store, id, {}, std::nullopt, [&](const RangeRecord& r) { out.push_back(r); }, &slice);
    std::stable_sort(out.begin(), out.end(), [](const RangeRecord& a, const RangeRecord& b) {
        return a.startNs < b.startNs;
    });
    if (reversed) *reversed = slice.reversed;
    return out;
}

std::vector<RangeRecord> rangesIn(Store& store, RunId id, TimeWindow window,
                                  std::optional<std::uint32_t> thread) {
    return collect<RangeRecord>(store, id, window, thread);
}
std::vector<ApiCallRecord> apiCallsIn(Store& store, RunId id, TimeWindow window,
                                      std::optional<std::uint32_t> thread) {
    return collect<ApiCallRecord>(store, id, window, thread);
}

std::optional<ApiCallRecord> launchingCall(Store& store, RunId id, const KernelRecord& kernel) {
    std::optional<ApiCallRecord> found;
    forEachApiCall(store, id,
                   {kernel.startNs - kLaunchSearchWindowNs, kernel.startNs + kLaunchSearchWindowNs},
                   std::nullopt, [&](const ApiCallRecord& a) {
                       if (a.correlationId == kernel.correlationId) found = a;
                   });
    return found;
}

std::int64_t nextRequestId(Store& store, RunId id) {
    sql::Statement q(storeDb(store),
                     "SELECT COALESCE(MAX(request_id) + 1, 0) FROM requests WHERE run_id = ?");
    q.bind(1, id);
    return q.step() ? q.int64(0) : 0;
}

std::vector<RequestRecord> requestsOf(Store& store, RunId id) {
    sql::Statement st(storeDb(store),
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
    sql::Statement st(storeDb(store),
                      "SELECT request_id, token_index, time_ns FROM tokens WHERE run_id = ?1 "
                      "ORDER BY request_id, token_index");
    st.bind(1, id);
    std::vector<TokenRecord> out;
    while (st.step())
        out.push_back({st.int64(0), st.int32(1), st.int64(2)});
    return out;
}

std::vector<SampleRecord> samplesOf(Store& store, RunId id) {
    sql::Statement st(storeDb(store),
                      "SELECT time_ns, device_index, power_w, sm_clock_mhz, mem_clock_mhz, "
                      "temperature_c, memory_used_bytes, gpu_util_percent, mem_util_percent, "
                      "energy_j, clock_event_reasons, nvlink_tx_bytes, nvlink_rx_bytes FROM "
                      "samples WHERE run_id = ?1 ORDER BY time_ns");
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
        s.clockEventReasons = st.optInt64(10);
        s.nvlinkTxBytes = st.optInt64(11);
        s.nvlinkRxBytes = st.optInt64(12);
        out.push_back(s);
    }
    return out;
}

std::vector<GpuMetricSeries> gpuMetricsOf(Store& store, RunId id, std::int64_t startNs,
                                          std::int64_t endNs) {
    sql::Statement st(storeDb(store),
                      "SELECT device_index, metric, first_start_ns, count, data FROM "
                      "gpu_metric_chunks WHERE run_id = ?1 AND first_start_ns < ?3 AND "
                      "last_end_ns > ?2 ORDER BY device_index, metric, first_start_ns");
    st.bind(1, id);
    st.bind(2, startNs);
    st.bind(3, endNs);
    std::vector<GpuMetricSeries> out;
    while (st.step()) {
        const auto device = static_cast<std::uint32_t>(st.int64(0));
        std::string metric = st.text(1);
        if (out.empty() || out.back().deviceIndex != device || out.back().metric != metric)
            out.push_back({device, std::move(metric), {}});
        std::vector<GpuMetricSample> samples;
        try {
            samples = gpu_metric_blob::decode(st.blob(4), st.int64(2), st.int64(3));
        } catch (const std::runtime_error& e) {
            throw StoreError(StoreError::Kind::Sql, store.path() + ": run " + std::to_string(id) +
                                                        ": GPU metric " + out.back().metric + ": " +
                                                        e.what());
        }
        for (const auto& s : samples)
            if (s.endNs > startNs && s.startNs < endNs) out.back().samples.push_back(s);
    }
    return out;
}

std::vector<GpuMetricSeries> gpuMetricsOf(Store& store, RunId id) {
    return gpuMetricsOf(store, id, std::numeric_limits<std::int64_t>::min(),
                        std::numeric_limits<std::int64_t>::max());
}

namespace {

std::vector<PcSampleRecord> pcSamplesWhere(Store& store, RunId id, const std::string* function) {
    sql::Statement st(storeDb(store),
                      std::string("SELECT function, pc_offset, stall_reason, samples, source_file, "
                                  "line, sass FROM pc_samples WHERE run_id = ?1") +
                          (function ? " AND function = ?2" : "") +
                          " ORDER BY function, pc_offset, stall_reason");
    st.bind(1, id);
    if (function) st.bind(2, *function);
    std::vector<PcSampleRecord> out;
    while (st.step())
        out.push_back({st.text(0), static_cast<std::uint64_t>(st.int64(1)), st.text(2), st.int64(3),
                       st.text(4), static_cast<std::uint32_t>(st.int64(5)), st.text(6)});
    return out;
}

}  // namespace

std::vector<PcSampleRecord> pcSamplesOf(Store& store, RunId id) {
    return pcSamplesWhere(store, id, nullptr);
}

std::vector<PcSampleRecord> pcSamplesOf(Store& store, RunId id, const std::string& function) {
    return pcSamplesWhere(store, id, &function);
}

std::int64_t pcSampleCount(Store& store, RunId id) {
    sql::Statement st(storeDb(store),
                      "SELECT COALESCE(SUM(samples), 0) FROM pc_samples WHERE run_id = ?1 AND "
                      "stall_reason NOT LIKE '%\\_not\\_issued' ESCAPE '\\'");
    st.bind(1, id);
    return st.step() ? st.int64(0) : 0;
}

std::vector<KernelMetricRecord> kernelMetricsOf(Store& store, RunId id) {
    sql::Statement st(storeDb(store),
                      "SELECT m.correlation_id, s.value, m.value FROM kernel_metrics m "
                      "JOIN strings s ON s.id = m.metric_id WHERE m.run_id = ?1 "
                      "ORDER BY m.correlation_id, s.value");
    st.bind(1, id);
    std::vector<KernelMetricRecord> out;
    while (st.step())
        out.push_back({static_cast<std::uint32_t>(st.int64(0)), st.text(1), st.real(2)});
    return out;
}

std::map<std::string, double> kernelMetricsOf(Store& store, RunId id, std::uint32_t correlationId) {
    sql::Statement st(storeDb(store),
                      "SELECT s.value, m.value FROM kernel_metrics m JOIN strings s ON s.id = "
                      "m.metric_id WHERE m.run_id = ?1 AND m.correlation_id = ?2");
    st.bind(1, id);
    st.bind(2, correlationId);
    std::map<std::string, double> out;
    while (st.step())
        out[st.text(0)] = st.real(1);
    return out;
}

std::vector<QualityRecord> qualityOf(Store& store, RunId id) {
    sql::Statement st(storeDb(store),
                      "SELECT check_name, reference_variant, token_agreement, max_logit_error, "
                      "tolerance, passed FROM quality WHERE run_id = ?1");
    st.bind(1, id);
    std::vector<QualityRecord> out;
    while (st.step())
        out.push_back(
            {st.text(0), st.text(1), st.real(2), st.real(3), st.real(4), st.int32(5) != 0});
    return out;
}

std::vector<GraphNodeRecord> graphNodesOf(Store& store, RunId id) {
    sql::Statement st(storeDb(store),
                      "SELECT node_id, original_node_id, graph_id, process_id, thread_id, time_ns, "
                      "node_type FROM graph_nodes WHERE run_id = ?1 ORDER BY rowid");
    st.bind(1, id);
    std::vector<GraphNodeRecord> out;
    while (st.step()) {
        GraphNodeRecord r;
        r.nodeId = static_cast<std::uint64_t>(st.int64(0));
        r.originalNodeId = static_cast<std::uint64_t>(st.int64(1));
        r.graphId = static_cast<std::uint32_t>(st.int64(2));
        r.processId = static_cast<std::uint32_t>(st.int64(3));
        r.threadId = static_cast<std::uint32_t>(st.int64(4));
        r.timeNs = st.int64(5);
        r.nodeType = st.int32(6);
        out.push_back(r);
    }
    return out;
}

std::vector<CollectiveCallRecord> collectiveCallsOf(Store& store, RunId id) {
    sql::Statement st(storeDb(store),
                      "SELECT process_id, thread_id, start_ns, end_ns, collective, communicator, "
                      "bytes FROM collective_calls WHERE run_id = ?1 ORDER BY start_ns, rowid");
    st.bind(1, id);
    std::vector<CollectiveCallRecord> out;
    while (st.step()) {
        CollectiveCallRecord r;
        r.processId = static_cast<std::uint32_t>(st.int64(0));
        r.threadId = static_cast<std::uint32_t>(st.int64(1));
        r.startNs = st.int64(2);
        r.endNs = st.int64(3);
        r.collective = st.text(4);
        r.communicator = static_cast<std::uint64_t>(st.int64(5));
        r.bytes = st.int64(6);
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<GpuStreamRecord> gpuStreamsOf(Store& store, RunId id) {
    sql::Statement st(storeDb(store),
                      "SELECT device_id, stream_id, process_id, cuda_stream_id FROM gpu_streams "
                      "WHERE run_id = ?1 ORDER BY device_id, stream_id");
    st.bind(1, id);
    std::vector<GpuStreamRecord> out;
    while (st.step())
        out.push_back(
            {static_cast<std::uint32_t>(st.int64(0)), static_cast<std::uint32_t>(st.int64(1)),
             static_cast<std::uint32_t>(st.int64(2)), static_cast<std::uint32_t>(st.int64(3))});
    return out;
}

}  // namespace ws
