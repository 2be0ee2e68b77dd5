#include "store/store.h"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "model/device_fields.h"
#include "store/schema.h"
#include "store/sqlite_db.h"
#include "util/process_identity.h"
#include "util/version.h"

namespace ws {

namespace fs = std::filesystem;

namespace {

constexpr char kSqliteMagic[16] = "SQLite format 3";  // 15 chars + NUL, as SQLite writes it

bool hasSqliteHeader(const std::string& path, std::string& firstBytes) {
    std::ifstream in(path, std::ios::binary);
    char header[16] = {};
    in.read(header, sizeof header);
    firstBytes.assign(header, static_cast<std::size_t>(in.gcount()));
    return in.gcount() == 16 && std::memcmp(header, kSqliteMagic, 16) == 0;
}

std::string printable(const std::string& bytes) {
    std::string out;
    for (unsigned char c : bytes)
        out += (c >= 32 && c < 127) ? static_cast<char>(c) : '.';
    return out;
}

std::string hex(std::int64_t v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%08llx", static_cast<unsigned long long>(v & 0xffffffff));
    return buf;
}

bool folderWritable(const fs::path& file) {
    auto dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
    return access(dir.c_str(), W_OK) == 0;
}

bool writable(const fs::path& file) {
    // WAL needs the folder writable too, for the -wal and -shm files.
    return access(file.c_str(), W_OK) == 0 && folderWritable(file);
}

bool hasWal(const std::string& path) {
    std::error_code ec;
    return fs::file_size(path + "-wal", ec) > 0 && !ec;
}

// A fresh private folder holding copies of `path` and its -wal; its path.
std::string walCopy(const std::string& path) {
    std::string folder = (fs::temp_directory_path() / "warpscope-store-XXXXXX").string();
    if (!::mkdtemp(folder.data()))
        throw StoreError(StoreError::Kind::Io, path +
                                                   ": its -wal cannot be read in this folder and "
                                                   "no private copy could be made: " +
                                                   std::strerror(errno));
    const auto name = fs::path(path).filename().string();
    std::error_code ec;
    fs::copy_file(path, folder + "/" + name, ec);
    if (!ec) fs::copy_file(path + "-wal", folder + "/" + name + "-wal", ec);
    if (ec) {
        fs::remove_all(folder, ec);
        throw StoreError(StoreError::Kind::Io,
                         path + ": cannot be copied to read its -wal: " + ec.message());
    }
    return folder;
}

}  // namespace

std::string Store::defaultPath() {
    const char* xdg = std::getenv("XDG_DATA_HOME");
    fs::path base;
    if (xdg && *xdg)
        base = xdg;
    else if (const char* home = std::getenv("HOME"))
        base = fs::path(home) / ".local" / "share";
    else
        base = ".";
    return (base / "warpscope" / "runs.wsdb").string();
}

void Store::checkBeforeWriting(const std::string& path, const std::string& shownAs,
                               bool& readOnly) {
    std::error_code ec;
    if (!fs::exists(path, ec) || fs::file_size(path, ec) == 0) {
        if (readOnly) throw StoreError(StoreError::Kind::Io, shownAs + ": no such store");
        return;  // created below
    }
    if (fs::is_directory(path, ec))
        throw StoreError(StoreError::Kind::Io, shownAs + ": is a folder, not a store file");
    std::string first;
    if (!hasSqliteHeader(path, first))
        throw StoreError(StoreError::Kind::NotSqlite,
                         shownAs + ": not a Warpscope store: not an SQLite file (starts with \"" +
                             printable(first) + "\"); the file was not changed");

    // A snapshot probe takes no lock and creates no -wal/-shm beside a file
    // that may be refused; with a -wal present its content may be newer than
    // the main file, so the probe then reads through it.
    sql::Db probe(path, hasWal(path) ? sql::Db::Mode::ReadOnly : sql::Db::Mode::Snapshot, shownAs);
    auto appId = probe.queryInt("PRAGMA application_id");
    auto version = probe.queryInt("PRAGMA user_version");
    auto tables = probe.queryInt("SELECT count(*) FROM sqlite_master");
    if (appId != schema::kApplicationId && !(appId == 0 && version == 0 && tables == 0)) {
        throw StoreError(StoreError::Kind::Foreign,
                         shownAs +
                             ": an SQLite database but not a Warpscope store (application_id " +
                             hex(appId) + ", " + std::to_string(tables) +
                             " schema objects); the file was not changed");
    }
    if (version < 0) {
        throw StoreError(StoreError::Kind::Damaged,
                         shownAs + ": a damaged Warpscope store (schema version " +
                             std::to_string(version) +
                             " is not a version any Warpscope writes); the file was not changed");
    }
    if (version > schema::kCurrentVersion) {
        throw StoreError(StoreError::Kind::Newer,
                         shownAs + ": written by a newer Warpscope (store schema version " +
                             std::to_string(version) + "; this build reads up to version " +
                             std::to_string(schema::kCurrentVersion) +
                             "); upgrade Warpscope to open it; the file was not changed");
    }
    // The first development build (2026-12-02, also schema version 1) kept
    // kernels, copies and API calls in tables of their own; every later one
    // packs them into event_chunks. No migration turns the one into the other.
    if (probe.queryInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = "
                       "'event_chunks'") == 0 &&
        probe.queryInt(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'kernels'") > 0)
        throw StoreError(StoreError::Kind::Damaged,
                         shownAs +
                             ": a store of Warpscope's first development build (kernels in a "
                             "table of their own, before event chunks), which this Warpscope "
                             "cannot upgrade; record the runs again; the file was not changed");
    if (!readOnly && !writable(path)) readOnly = true;
    if (readOnly && version < schema::kCurrentVersion)
        throw StoreError(StoreError::Kind::ReadOnly,
                         shownAs + ": the store needs an upgrade from schema version " +
                             std::to_string(version) + " but is read-only");
}

Store::Store(const std::string& path, Options options) {
    bool readOnly = options.readOnly;
    std::string openPath = path;
    std::error_code ec;
    if (!folderWritable(path) && hasWal(path) && !fs::exists(path + "-shm", ec)) {
        // SQLite reads a -wal through a -shm it must create beside it; where
        // it cannot, both files are read from a private copy (read-only).
        walCopyFolder_ = walCopy(path);
        openPath = walCopyFolder_ + "/" + fs::path(path).filename().string();
        readOnly = true;
    }
    checkBeforeWriting(openPath, path, readOnly);
    if (readOnly) {
        // Without write access to the folder SQLite cannot create the -shm it
        // needs to read a WAL store; with no -wal there is nothing newer than
        // the main file, so it is read as an immutable snapshot instead.
        auto mode = !folderWritable(path) && !hasWal(path) ? sql::Db::Mode::Snapshot
                                                           : sql::Db::Mode::ReadOnly;
        if (!walCopyFolder_.empty()) mode = sql::Db::Mode::ReadOnly;
        db_ = std::make_unique<sql::Db>(openPath, mode, path);
        sqlite3_busy_timeout(db_->handle(), options.busyTimeoutMs);
        return;
    }
    auto parent = fs::path(path).parent_path();
    if (!parent.empty()) fs::create_directories(parent, ec);
    db_ = std::make_unique<sql::Db>(path, sql::Db::Mode::ReadWriteCreate);
    sqlite3_busy_timeout(db_->handle(), options.busyTimeoutMs);
    db_->exec("PRAGMA journal_mode = WAL");
    db_->exec("PRAGMA synchronous = NORMAL");
    db_->exec("PRAGMA foreign_keys = ON");
    schema::migrate(*db_, static_cast<int>(db_->queryInt("PRAGMA user_version")));
    schema::ensureIndexes(*db_);
    recoverAbandonedRuns();
}

Store::~Store() {
    db_.reset();
    if (!walCopyFolder_.empty()) {
        std::error_code ec;
        fs::remove_all(walCopyFolder_, ec);
    }
}

void Store::requireWritable(std::string_view action) const {
    if (readOnly())
        throw StoreError(StoreError::Kind::ReadOnly,
                         path() + ": cannot " + std::string(action) + ": the store is read-only");
}

void Store::recoverAbandonedRuns() {
    const auto self = hostName();
    std::vector<std::pair<RunId, std::int64_t>> dead;
    {
        sql::Statement st(*db_,
                          "SELECT id, writer_pid, writer_start_ticks, host, "
                          "coalesce(heartbeat_at, started_at) FROM runs WHERE status = 'running'");
        while (st.step()) {
            ProcessIdentity writer{st.int64(1), st.int64(2), st.text(3)};
            // A run recorded on another machine cannot be checked from here.
            if (writer.host == self && !writer.isAlive())
                dead.emplace_back(st.int64(0), st.int64(4));
        }
    }
    if (dead.empty()) return;
    sql::Transaction tx(*db_);
    sql::Statement mark(*db_,
                        "UPDATE runs SET status = 'killed', ended_at = ?2, "
                        "log = log || ?3 WHERE id = ?1 AND status = 'running'");
    for (auto [id, lastSeen] : dead) {
        mark.bind(1, id);
        mark.bind(2, lastSeen);
        mark.bind(3, std::string_view("\n[warpscope] the recording process ended without "
                                      "finishing this run; marked killed when the store was "
                                      "next opened. Records written before then are kept.\n"));
        mark.exec();
        recovered_.push_back(id);
    }
    tx.commit();
}

std::int64_t Store::upsertDevice(const DeviceInfo& d) {
    sql::Statement find(*db_,
                        "SELECT id FROM devices WHERE uuid = ?1 AND name = ?2 AND "
                        "driver_version IS ?3");
    find.bind(1, d.uuid);
    find.bind(2, d.name);
    find.bind(3, d.driverVersion);
    if (find.step()) return find.int64(0);
    std::string columns, values;
    for (std::size_t i = 0; i < kDeviceFields.size(); ++i) {
        columns += std::string(i ? ", " : "") + kDeviceFields[i].column;
        values += (i ? ",?" : "?") + std::to_string(i + 1);
    }
    sql::Statement ins(*db_, "INSERT INTO devices (" + columns + ") VALUES (" + values + ")");
    int i = 1;
    for (const auto& f : kDeviceFields) {
        if (f.text) ins.bind(i, std::string_view(d.*f.text));
        if (f.int32) ins.bind(i, d.*f.int32);
        if (f.int64) ins.bind(i, d.*f.int64);
        ++i;
    }
    ins.exec();
    return db_->lastInsertId();
}

std::int64_t Store::upsertWorkload(const WorkloadInfo& w) {
    sql::Statement ins(*db_,
                       "INSERT INTO workloads (name, kind, config_text) VALUES (?1, ?2, ?3) "
                       "ON CONFLICT (name, kind, config_text) DO UPDATE SET name = excluded.name "
                       "RETURNING id");
    ins.bind(1, w.name);
    ins.bind(2, w.kind);
    ins.bind(3, w.configText);
    ins.step();
    auto id = ins.int64(0);
    ins.reset();
    return id;
}

RunId Store::beginRun(const NewRun& run) {
    requireWritable("start a run");
    sql::Transaction tx(*db_);
    std::optional<std::int64_t> workloadId, deviceId;
    if (run.workload) workloadId = upsertWorkload(*run.workload);
    if (run.device) deviceId = upsertDevice(*run.device);
    auto self = ProcessIdentity::current();
    // Never an id a removed run had: scripts that saved it must not find a
    // different run under it (rowid reuse would hand out max(id) + 1 again).
    std::optional<std::int64_t> nextId;
    if (db_->queryInt("SELECT count(*) FROM sqlite_master WHERE name = 'run_id_high_water'") > 0)
        nextId = db_->queryInt(
            "SELECT max(coalesce((SELECT max(id) FROM runs), 0), "
            "(SELECT id FROM run_id_high_water)) + 1");
    sql::Statement ins(*db_,
                       "INSERT INTO runs (label, workload_id, device_id, variant, tags, status, "
                       "started_at, command, host, writer_pid, writer_start_ticks, "
                       "warpscope_version, id) "
                       "VALUES (?1,?2,?3,?4,?5,'running',?6,?7,?8,?9,?10,?11,?12)");
    ins.bind(1, run.label);
    ins.bind(2, workloadId);
    ins.bind(3, deviceId);
    ins.bind(4, run.variant);
    ins.bind(5, run.tags);
    ins.bind(6, run.startedAtNs ? run.startedAtNs : unixNowNs());
    ins.bind(7, run.command);
    ins.bind(8, self.host);
    ins.bind(9, self.pid);
    ins.bind(10, self.startTicks);
    ins.bind(11, std::string_view(kWarpscopeVersion));
    ins.bind(12, nextId);  // NULL: SQLite's max(id) + 1
    ins.exec();
    auto id = db_->lastInsertId();
    tx.commit();
    return id;
}

void Store::finishRun(RunId id, RunStatus status, std::optional<int> exitCode,
                      std::optional<int> signal, std::int64_t endedAtNs) {
    requireWritable("finish a run");
    sql::Statement st(*db_,
                      "UPDATE runs SET status = ?2, exit_code = ?3, signal = ?4, ended_at = ?5 "
                      "WHERE id = ?1");
    st.bind(1, id);
    st.bind(2, std::string_view(toString(status)));
    st.bind(3, exitCode);
    st.bind(4, signal);
    st.bind(5, endedAtNs ? endedAtNs : unixNowNs());
    st.exec();
    if (db_->changes() == 0)
        throw StoreError(StoreError::Kind::NotFound, path() + ": no run " + std::to_string(id));
}

void Store::appendLog(RunId id, std::string_view text) {
    requireWritable("append to a run's log");
    sql::Statement st(*db_, "UPDATE runs SET log = log || ?2 WHERE id = ?1");
    st.bind(1, id);
    st.bind(2, text);
    st.exec();
}

void Store::addDroppedRecords(RunId id, std::int64_t count) {
    requireWritable("record dropped records");
    sql::Statement st(*db_, "UPDATE runs SET dropped_records = dropped_records + ?2 WHERE id = ?1");
    st.bind(1, id);
    st.bind(2, count);
    st.exec();
}

void Store::setProperty(RunId id, std::string_view key, std::string_view value) {
    requireWritable("set a run property");
    sql::Statement st(*db_,
                      "INSERT INTO run_properties (run_id, key, value) VALUES (?1, ?2, ?3) "
                      "ON CONFLICT (run_id, key) DO UPDATE SET value = excluded.value");
    st.bind(1, id);
    st.bind(2, key);
    st.bind(3, value);
    st.exec();
}

void Store::setDevice(RunId id, const DeviceInfo& device) {
    requireWritable("set a run's device");
    sql::Transaction tx(*db_);
    auto deviceId = upsertDevice(device);
    sql::Statement st(*db_, "UPDATE runs SET device_id = ?2 WHERE id = ?1");
    st.bind(1, id);
    st.bind(2, deviceId);
    st.exec();
    tx.commit();
}

void Store::setStartedAt(RunId id, std::int64_t startedAtNs) {
    requireWritable("set a run's start");
    sql::Statement st(*db_, "UPDATE runs SET started_at = ?2 WHERE id = ?1");
    st.bind(1, id);
    st.bind(2, startedAtNs);
    st.exec();
}

std::string normalizedTags(std::string_view tags) {
    std::vector<std::string> kept;
    while (!tags.empty()) {
        auto comma = tags.find(',');
        std::string_view tag = tags.substr(0, comma);
        tags = comma == std::string_view::npos ? std::string_view{} : tags.substr(comma + 1);
        while (!tag.empty() && std::isspace(static_cast<unsigned char>(tag.front())))
            tag.remove_prefix(1);
        while (!tag.empty() && std::isspace(static_cast<unsigned char>(tag.back())))
            tag.remove_suffix(1);
        if (!tag.empty() && std::find(kept.begin(), kept.end(), tag) == kept.end())
            kept.emplace_back(tag);
    }
    std::string joined;
    for (const auto& tag : kept)
        joined += (joined.empty() ? "" : ",") + tag;
    return joined;
}

namespace {

void updateRunText(sql::Db& db, const std::string& path, RunId id, const char* sqlText,
                   std::string_view value) {
    sql::Statement st(db, sqlText);
    st.bind(1, id);
    st.bind(2, value);
    st.exec();
    if (db.changes() == 0)
        throw StoreError(StoreError::Kind::NotFound, path + ": no run " + std::to_string(id));
}

}  // namespace

void Store::setLabel(RunId id, std::string_view label) {
    requireWritable("rename a run");
    updateRunText(*db_, path(), id, "UPDATE runs SET label = ?2 WHERE id = ?1", label);
}

void Store::setTags(RunId id, std::string_view tags) {
    requireWritable("tag a run");
    updateRunText(*db_, path(), id, "UPDATE runs SET tags = ?2 WHERE id = ?1",
                  normalizedTags(tags));
}

void Store::deleteRun(RunId id) {
    requireWritable("delete a run");
    sql::Transaction tx(*db_);
    sql::Statement st(*db_, "DELETE FROM runs WHERE id = ?1");
    st.bind(1, id);
    st.exec();
    if (db_->changes() == 0)
        throw StoreError(StoreError::Kind::NotFound, path() + ": no run " + std::to_string(id));
    // The highest id ever removed (docs/store-schema.md); made on the first
    // removal, so opening or reading a store never changes it.
    db_->exec(
        "CREATE TABLE IF NOT EXISTS run_id_high_water (single INTEGER PRIMARY KEY CHECK "
        "(single = 1), id INTEGER NOT NULL)");
    sql::Statement mark(*db_,
                        "INSERT INTO run_id_high_water VALUES (1, ?1) ON CONFLICT (single) DO "
                        "UPDATE SET id = max(id, excluded.id)");
    mark.bind(1, id);
    mark.exec();
    tx.commit();
}

sql::Db& storeDb(Store& store) {
    return store.db();
}

const std::string& Store::path() const {
    return db_->path();
}
bool Store::readOnly() const {
    return db_->readOnly();
}

void Store::setBusyTimeout(int ms) {
    sqlite3_busy_timeout(db_->handle(), ms);
}

struct Store::Transaction::Open {
    explicit Open(sql::Db& db) : tx(db) {}
    sql::Transaction tx;
};

Store::Transaction::Transaction(Store& store) : open_(std::make_unique<Open>(store.db())) {}
Store::Transaction::~Transaction() = default;
void Store::Transaction::commit() {
    open_->tx.commit();
}

}  // namespace ws
