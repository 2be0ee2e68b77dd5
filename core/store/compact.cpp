#include "store/compact.h"
#include "store_db.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "chunk_recode.h"
#include "store/recording_intent.h"
#include "store/store_error.h"

namespace ws {

namespace {

// Interned strings both ways. Chunks only refer to strings already in the
// store, so a name that is not there means a damaged chunk, never a new string.
class Strings {
  public:
    explicit Strings(sql::Db& db) {
        sql::Statement st(db, "SELECT id, value FROM strings");
        while (st.step()) {
            auto [it, added] = byId_.emplace(st.int64(0), st.text(1));
            byValue_.emplace(it->second, it->first);
        }
    }
    const std::string& value(std::int64_t id) const {
        auto it = byId_.find(id);
        if (it == byId_.end())
            throw std::runtime_error("refers to string " + std::to_string(id) +
                                     ", which the store does not hold");
        return it->second;
    }
    std::int64_t id(std::string_view value) const { return byValue_.at(std::string(value)); }

  private:
    std::unordered_map<std::int64_t, std::string> byId_;
    std::unordered_map<std::string, std::int64_t> byValue_;
};

// Each batch commits on its own, so readers see progress and a cancel or a
// crash keeps what was done (both formats read).
constexpr std::size_t kChunksPerTransaction = 256;

std::int64_t fileBytes(Store& store) {
    storeDb(store).exec("PRAGMA wal_checkpoint(TRUNCATE)");
    std::error_code ec;
    auto bytes = std::filesystem::file_size(store.path(), ec);
    return ec ? 0 : static_cast<std::int64_t>(bytes);
}

// The first run still being recorded, and the host recording it.
std::optional<std::pair<RunId, std::string>> runBeingRecorded(Store& store) {
    sql::Statement st(storeDb(store),
                      "SELECT id, host FROM runs WHERE status = 'running' ORDER BY id LIMIT 1");
    if (!st.step()) return std::nullopt;
    return std::pair(st.int64(0), st.text(1));
}

// A run still being recorded holds the store's write lock between flushes;
// compaction would stall it (and VACUUM cannot run beside it at all).
void refuseWhileRecording(Store& store) {
    auto running = runBeingRecorded(store);
    if (!running) return;
    auto id = std::to_string(running->first);
    throw StoreError(StoreError::Kind::Locked,
                     store.path() + ": run " + id + " (on " + running->second +
                         ") is still being recorded; compact when it has finished, or remove it "
                         "with `warpscope-cli rm " +
                         id + "` if that recording is gone");
}

std::string liveRecording(Store& store) {
    if (auto running = runBeingRecorded(store))
        return "run " + std::to_string(running->first) + " is being recorded";
    if (recordingIntended(store.path())) return "a recording is starting";
    return "";
}

// VACUUM holds the write lock for as long as it runs (minutes on a large
// store); a recording that announces itself meanwhile interrupts it, which
// rolls it back and leaves the file as it was.
void vacuumUnlessARecordingWaits(Store& store, CompactResult& result) {
    result.vacuumSkipped = liveRecording(store);
    if (!result.vacuumSkipped.empty()) return;
    struct Watch {
        std::string path;
        std::chrono::steady_clock::time_point nextCheck;
        bool yielded = false;
    } watch{store.path(), std::chrono::steady_clock::now(), false};
    sqlite3_progress_handler(
        storeDb(store).handle(), 10000,
        [](void* p) -> int {
            auto& w = *static_cast<Watch*>(p);
            auto now = std::chrono::steady_clock::now();
            if (now < w.nextCheck) return 0;
            w.nextCheck = now + std::chrono::milliseconds(50);
            w.yielded = recordingIntended(w.path);
            return w.yielded ? 1 : 0;
        },
        &watch);
    try {
        storeDb(store).exec("VACUUM");
    } catch (const StoreError&) {
        sqlite3_progress_handler(storeDb(store).handle(), 0, nullptr, nullptr);
        if (!watch.yielded) throw;
        result.vacuumSkipped = "a recording started";
        return;
    }
    sqlite3_progress_handler(storeDb(store).handle(), 0, nullptr, nullptr);
}

}  // namespace

CompactResult compactStore(Store& store, codec::Format format, const CompactProgress& progress) {
    store.requireWritable("compact");
    refuseWhileRecording(store);
    auto& db = storeDb(store);
    CompactResult result;
    result.bytesBefore = fileBytes(store);
    // Row ids first: updating the rows a SELECT is still walking is undefined.
    std::vector<std::int64_t> rows;
    {
        sql::Statement st(db, "SELECT rowid FROM event_chunks WHERE format != ?1");
        st.bind(1, static_cast<int>(format));
        while (st.step())
            rows.push_back(st.int64(0));
    }
    Strings strings(db);
    sql::Statement select(db,
                          "SELECT run_id, kind, group_id, lane_id, count, data, format "
                          "FROM event_chunks WHERE rowid = ?1");
    sql::Statement update(db, "UPDATE event_chunks SET data = ?2, format = ?3 WHERE rowid = ?1");
    const auto total = static_cast<std::int64_t>(rows.size());
    for (std::size_t begin = 0; begin < rows.size(); begin += kChunksPerTransaction) {
        // A batch holds the lock briefly; a recording waiting for it gets it
        // between batches (SQLite's busy handler), so nothing more is needed.
        sql::Transaction tx(db);
        const std::size_t end = std::min(rows.size(), begin + kChunksPerTransaction);
        for (std::size_t i = begin; i < end; ++i) {
            select.bind(1, rows[i]);
            if (!select.step()) {
                select.reset();
                continue;
            }
            codec::Lane lane{static_cast<std::uint32_t>(select.int64(2)),
                             static_cast<std::uint32_t>(select.int64(3))};
            std::string blob;
            try {
                blob = recodeChunk(
                    static_cast<codec::ChunkKind>(select.int32(1)), select.blob(5), select.int64(4),
                    lane, static_cast<codec::Format>(select.int32(6)), format,
                    [&](std::int64_t id) -> const std::string& { return strings.value(id); },
                    [&](std::string_view s) { return strings.id(s); });
            } catch (const std::exception& e) {
                throw StoreError(StoreError::Kind::Sql,
                                 store.path() + ": run " + std::to_string(select.int64(0)) +
                                     ": an event chunk could not be read: " + e.what());
            }
            select.reset();
            update.bind(1, rows[i]);
            update.bindBlob(2, blob);
            update.bind(3, static_cast<int>(format));
            update.step();
            update.reset();
            if (progress && !progress(static_cast<std::int64_t>(i) + 1, total)) {
                result.cancelled = true;
                result.bytesAfter = result.bytesBefore;
                return result;  // this batch rolls back; the ones before stay rewritten
            }
        }
        tx.commit();
        result.chunksRewritten = static_cast<std::int64_t>(end);
    }
    vacuumUnlessARecordingWaits(store, result);
    result.bytesAfter = fileBytes(store);
    return result;
}

}  // namespace ws
