// A Warpscope run store: one SQLite file holding many runs. Opening checks the
// file before anything is written, so a foreign, newer or damaged file is
// refused and left byte-for-byte as it was.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/records.h"
#include "store/store_error.h"

namespace ws {

namespace sql {
class Db;
}

struct NewRun {
    std::string label;
    std::optional<WorkloadInfo> workload;
    std::optional<DeviceInfo> device;
    std::string variant;
    std::string tags;
    std::string command;
    std::int64_t startedAtNs = 0;  // 0 = now
};

// "b, a,,b " -> "b,a": each tag trimmed, empty and repeated ones dropped,
// the order kept.
std::string normalizedTags(std::string_view tags);

class Store {
  public:
    struct Options {
        bool readOnly = false;  // never write; also chosen when the file is not writable
        int busyTimeoutMs = 5000;
    };

    // ~/.local/share/warpscope/runs.wsdb (XDG_DATA_HOME respected).
    static std::string defaultPath();

    explicit Store(const std::string& path) : Store(path, Options{}) {}
    Store(const std::string& path, Options options);
    ~Store();
    Store(const Store&) = delete;
    Store& operator=(const Store&) = delete;

    const std::string& path() const;
    bool readOnly() const;
    // Runs found `running` whose writer had died, marked killed by this open.
    const std::vector<RunId>& recoveredRuns() const { return recovered_; }

    RunId beginRun(const NewRun& run);
    void finishRun(RunId id, RunStatus status, std::optional<int> exitCode = std::nullopt,
                   std::optional<int> signal = std::nullopt, std::int64_t endedAtNs = 0);
    void appendLog(RunId id, std::string_view text);
    void addDroppedRecords(RunId id, std::int64_t count);
    void setProperty(RunId id, std::string_view key, std::string_view value);
    void setDevice(RunId id, const DeviceInfo& device);
    // For importers that learn when a run began only at the end of its file.
    void setStartedAt(RunId id, std::int64_t startedAtNs);
    void deleteRun(RunId id);
    // What `label` and `tag` change after a run is recorded. Tags are a
    // comma-separated list; setTags trims and de-duplicates them.
    void setLabel(RunId id, std::string_view label);
    void setTags(RunId id, std::string_view tags);

    // How long a write waits for another process's lock before StoreError(Locked).
    void setBusyTimeout(int ms);

    // Throws StoreError(ReadOnly) with a message naming the store.
    void requireWritable(std::string_view action) const;

    // Several writes made one: committed by commit(), rolled back when it
    // goes out of scope first. Inside another it is a savepoint of that one.
    class Transaction {
      public:
        explicit Transaction(Store& store);
        ~Transaction();
        Transaction(const Transaction&) = delete;
        Transaction& operator=(const Transaction&) = delete;
        void commit();

      private:
        struct Open;
        std::unique_ptr<Open> open_;
    };

  private:
    // The one door to SQL: the store's own sources (store_db.h) and nothing
    // else, so every query lives in core/store.
    friend sql::Db& storeDb(Store& store);
    sql::Db& db() { return *db_; }

    void checkBeforeWriting(const std::string& path, const std::string& shownAs, bool& readOnly);
    void recoverAbandonedRuns();
    std::int64_t upsertDevice(const DeviceInfo& device);
    std::int64_t upsertWorkload(const WorkloadInfo& workload);

    // A private copy of a store and its -wal read where SQLite cannot read
    // them in place (a folder the user cannot write: no -shm can be made).
    std::string walCopyFolder_;
    std::unique_ptr<sql::Db> db_;
    std::vector<RunId> recovered_;
};

}  // namespace ws
