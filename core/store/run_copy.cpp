#include "store/run_copy.h"
#include "store_db.h"

#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "chunk_recode.h"
#include "copied_values.h"
#include "store/store.h"

namespace ws {

namespace {

// Column names of `table` in schema `schemaName` (main or src), in order.
std::vector<std::string> columnsOf(sql::Db& db, const std::string& schemaName,
                                   const std::string& table) {
    std::vector<std::string> cols;
    sql::Statement st(db, "SELECT name FROM pragma_table_info(?1, ?2)");
    st.bind(1, std::string_view(table));
    st.bind(2, std::string_view(schemaName));
    while (st.step())
        cols.push_back(st.text(0));
    return cols;
}

std::string joined(const std::vector<std::string>& cols, const std::string& prefix = "") {
    std::string out;
    for (const auto& c : cols)
        out += (out.empty() ? "" : ", ") + prefix + '"' + c + '"';
    return out;
}

// Tables that hang off a run and hold no string ids: every table with a
// run_id column except the two that refer to `strings`. Found from the
// schema, so a table added later is copied without anyone remembering to.
std::vector<std::string> plainRunTables(sql::Db& db) {
    std::vector<std::string> tables;
    sql::Statement st(db,
                      "SELECT m.name FROM sqlite_master m WHERE m.type = 'table' AND EXISTS "
                      "(SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'run_id') "
                      "ORDER BY m.name");
    while (st.step()) {
        auto name = st.text(0);
        if (name != "event_chunks" && name != "kernel_metrics") tables.push_back(name);
    }
    return tables;
}

// Strings of the source by id, read on demand; interned in the target.
class StringMap {
  public:
    explicit StringMap(sql::Db& db)
        : lookup_(db, "SELECT value FROM src.strings WHERE id = ?1"),
          insert_(db, "INSERT OR IGNORE INTO main.strings (value) VALUES (?1)"),
          select_(db, "SELECT id FROM main.strings WHERE value = ?1") {}

    const std::string& value(std::int64_t id) {
        if (auto it = values_.find(id); it != values_.end()) return it->second;
        lookup_.bind(1, id);
        if (!lookup_.step())
            throw std::runtime_error("an event chunk refers to string " + std::to_string(id) +
                                     ", which the source store does not hold");
        auto text = lookup_.text(0);
        lookup_.reset();
        return values_.emplace(id, std::move(text)).first->second;
    }
    std::int64_t intern(std::string_view text) {
        std::string key(text);
        if (auto it = ids_.find(key); it != ids_.end()) return it->second;
        insert_.bind(1, text);
        insert_.exec();
        select_.bind(1, text);
        select_.step();
        auto id = select_.int64(0);
        select_.reset();
        ids_.emplace(std::move(key), id);
        return id;
    }

  private:
    sql::Statement lookup_, insert_, select_;
    std::unordered_map<std::int64_t, std::string> values_;
    std::unordered_map<std::string, std::int64_t> ids_;
};

// ATTACH for the length of the copy; DETACH whatever unwound it.
class Attached {
  public:
    Attached(sql::Db& db, const std::string& path) : db_(db) {
        sql::Statement st(db, "ATTACH DATABASE ?1 AS src");
        st.bind(1, std::string_view(path));
        st.exec();
    }
    ~Attached() {
        try {
            db_.exec("DETACH DATABASE src");
        } catch (...) {
        }
    }
    Attached(const Attached&) = delete;
    Attached& operator=(const Attached&) = delete;

  private:
    sql::Db& db_;
};

std::optional<std::int64_t> copyWorkload(sql::Db& db, RunId from) {
    sql::Statement st(db,
                      "INSERT INTO main.workloads (name, kind, config_text) "
                      "SELECT w.name, w.kind, w.config_text FROM src.runs r "
                      "JOIN src.workloads w ON w.id = r.workload_id WHERE r.id = ?1 "
                      "ON CONFLICT (name, kind, config_text) DO UPDATE SET name = excluded.name "
                      "RETURNING id");
    st.bind(1, from);
    if (!st.step()) return std::nullopt;
    auto id = st.int64(0);
    st.reset();
    return id;
}

// A device row equal in (uuid, name, driver version) is the same GPU as
// Store::upsertDevice sees it; else the source's row is copied whole.
std::optional<std::int64_t> copyDevice(sql::Db& db, RunId from) {
    sql::Statement find(db,
                        "SELECT m.id FROM src.runs r JOIN src.devices d ON d.id = r.device_id "
                        "JOIN main.devices m ON m.uuid = d.uuid AND m.name = d.name AND "
                        "m.driver_version IS d.driver_version WHERE r.id = ?1");
    find.bind(1, from);
    if (find.step()) return find.int64(0);
    auto cols = columnsOf(db, "main", "devices");
    std::erase(cols, std::string("id"));
    sql::Statement ins(db, "INSERT INTO main.devices (" + joined(cols) + ") SELECT " +
                               joined(cols, "d.") +
                               " FROM src.runs r JOIN src.devices d ON d.id = r.device_id "
                               "WHERE r.id = ?1");
    ins.bind(1, from);
    ins.exec();
    if (db.changes() == 0) return std::nullopt;
    return db.lastInsertId();
}

void copyRunRow(sql::Db& db, RunId from, RunId to, std::optional<std::int64_t> workload,
                std::optional<std::int64_t> device) {
    auto cols = columnsOf(db, "main", "runs");
    std::erase_if(cols, [](const std::string& c) {
        return c == "id" || c == "workload_id" || c == "device_id";
    });
    sql::Statement st(db, "UPDATE main.runs SET (" + joined(cols) + ") = (SELECT " + joined(cols) +
                              " FROM src.runs WHERE id = ?1), workload_id = ?3, "
                              "device_id = ?4 WHERE id = ?2");
    st.bind(1, from);
    st.bind(2, to);
    st.bind(3, workload);
    st.bind(4, device);
    st.exec();
}

void copyPlainTable(sql::Db& db, const std::string& table, RunId from, RunId to) {
    auto cols = columnsOf(db, "main", table);
    std::string values;
    for (const auto& c : cols)
        values += (values.empty() ? "" : ", ") + (c == "run_id" ? "?2" : '"' + c + '"');
    sql::Statement st(db, "INSERT INTO main.\"" + table + "\" (" + joined(cols) + ") SELECT " +
                              values + " FROM src.\"" + table +
                              "\" WHERE run_id = ?1 ORDER BY rowid");
    st.bind(1, from);
    st.bind(2, to);
    st.exec();
}

// Row by row, metric names interned through `strings`: a name is stored as
// every bound text is (valid UTF-8), and the same name is one string.
void copyKernelMetrics(sql::Db& db, RunId from, RunId to, StringMap& strings) {
    sql::Statement select(db,
                          "SELECT correlation_id, metric_id, value FROM src.kernel_metrics "
                          "WHERE run_id = ?1 ORDER BY rowid");
    sql::Statement insert(db,
                          "INSERT INTO main.kernel_metrics (run_id, correlation_id, metric_id, "
                          "value) VALUES (?1, ?2, ?3, ?4)");
    select.bind(1, from);
    while (select.step()) {
        insert.bind(1, to);
        insert.bind(2, select.int64(0));
        insert.bind(3, strings.intern(strings.value(select.int64(1))));
        insert.bind(4, select.real(2));
        insert.exec();
    }
}

void copyEventChunks(sql::Db& db, RunId from, RunId to, StringMap& strings) {
    sql::Statement select(db,
                          "SELECT kind, group_id, lane_id, first_start_ns, max_end_ns, count, "
                          "busy_ns, bytes, data, format FROM src.event_chunks WHERE run_id = ?1 "
                          "ORDER BY rowid");
    sql::Statement insert(db,
                          "INSERT INTO main.event_chunks (run_id, kind, group_id, lane_id, "
                          "first_start_ns, max_end_ns, count, busy_ns, bytes, data, format) "
                          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
    select.bind(1, from);
    while (select.step()) {
        auto format = static_cast<codec::Format>(select.int32(9));
        codec::Lane lane{static_cast<std::uint32_t>(select.int64(1)),
                         static_cast<std::uint32_t>(select.int64(2))};
        auto blob = recodeChunk(
            static_cast<codec::ChunkKind>(select.int32(0)), select.blob(8), select.int64(5), lane,
            format, format,
            [&](std::int64_t id) -> const std::string& { return strings.value(id); },
            [&](std::string_view s) { return strings.intern(s); });
        insert.bind(1, to);
        for (int c = 0; c < 8; ++c)  // kind .. bytes as they are
            insert.bind(c + 2, select.int64(c));
        insert.bindBlob(10, blob);
        insert.bind(11, select.int32(9));
        insert.exec();
    }
}

}  // namespace

RunId copyRun(const std::string& fromPath, RunId run, Store& to,
              const std::vector<std::pair<std::string, std::string>>& addProperties) {
    to.requireWritable("copy a run into it");
    auto& db = storeDb(to);
    Attached src(db, fromPath);
    {
        sql::Statement st(db, "SELECT status FROM src.runs WHERE id = ?1");
        st.bind(1, run);
        if (!st.step())
            throw StoreError(StoreError::Kind::NotFound,
                             fromPath + ": no run " + std::to_string(run));
        if (st.text(0) == "running")
            throw StoreError(StoreError::Kind::Locked,
                             fromPath + ": run " + std::to_string(run) +
                                 " is still being recorded; copy it when it has finished");
    }
    // The values no bound parameter checks (the copy is SQL between files).
    checkCopiedNumbers(db, run);
    sql::Transaction tx(db);
    auto workload = copyWorkload(db, run);
    auto device = copyDevice(db, run);
    RunId id = to.beginRun(NewRun{});
    copyRunRow(db, run, id, workload, device);
    const auto tables = plainRunTables(db);
    for (const auto& table : tables)
        copyPlainTable(db, table, run, id);
    StringMap strings(db);
    copyKernelMetrics(db, run, id, strings);
    copyEventChunks(db, run, id, strings);
    // Text copied as it was, repaired where it is not valid UTF-8.
    repairText(db, "runs", "id = ?1", id);
    for (const auto& table : tables)
        repairText(db, table, "run_id = ?1", id);
    if (workload) repairText(db, "workloads", "id = ?1", *workload);
    if (device) repairText(db, "devices", "id = ?1", *device);
    for (const auto& [key, value] : addProperties)
        to.setProperty(id, key, value);
    tx.commit();
    return id;
}

}  // namespace ws
