#include "store/sqlite_db.h"

#include <sqlite3.h>

#include <cctype>
#include <cstdio>
#include <utility>
#include <vector>

#include "util/text.h"

namespace ws::sql {

namespace {
StoreError::Kind kindOf(int rc) {
    switch (rc & 0xff) {
        case SQLITE_NOTADB:
            return StoreError::Kind::NotSqlite;
        case SQLITE_READONLY:
            return StoreError::Kind::ReadOnly;
        case SQLITE_BUSY:
        case SQLITE_LOCKED:
            return StoreError::Kind::Locked;
        case SQLITE_FULL:
            return StoreError::Kind::DiskFull;
        case SQLITE_CANTOPEN:
        case SQLITE_IOERR:
        case SQLITE_PERM:
            return StoreError::Kind::Io;
        default:
            return StoreError::Kind::Sql;
    }
}

std::string explain(int rc) {
    switch (rc & 0xff) {
        case SQLITE_NOTADB:
            return "not an SQLite database";
        case SQLITE_READONLY:
            return "the store is read-only (file or folder not writable)";
        case SQLITE_BUSY:
        case SQLITE_LOCKED:
            return "the store is locked by another process";
        case SQLITE_FULL:
            return "disk full (or the store's size limit reached); the write was rolled back";
        case SQLITE_CANTOPEN:
            return "cannot open the file";
        case SQLITE_PERM:
            return "permission denied";
        default:
            return sqlite3_errstr(rc);
    }
}

// SQLite's URI form of a file path: the characters URIs give a meaning escaped.
std::string immutableUri(const std::string& path) {
    std::string uri = "file:";
    for (unsigned char c : path) {
        if (c == '%' || c == '?' || c == '#' || c < 32 || c >= 127) {
            char buf[4];
            std::snprintf(buf, sizeof buf, "%%%02X", c);
            uri += buf;
        } else {
            uri += static_cast<char>(c);
        }
    }
    return uri + "?immutable=1";
}
// What a statement was doing, as a user reads it ("adding a row to
// workloads", "upgrading the store's layout"), never the SQL itself: store
// errors reach users through every command and importer.
std::string whatItDid(std::string_view sql) {
    auto words = [&] {
        std::vector<std::string> out;
        std::string word;
        for (char c : sql.substr(0, 400)) {
            if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
                word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            } else if (!word.empty()) {
                out.push_back(std::move(word));
                word.clear();
            }
        }
        if (!word.empty()) out.push_back(word);
        return out;
    }();
    auto after = [&](const char* keyword) -> std::string {
        for (std::size_t i = 0; i + 1 < words.size(); ++i)
            if (words[i] == keyword) {
                std::size_t t = i + 1;
                while (t < words.size() &&
                       (words[t] == "or" || words[t] == "ignore" || words[t] == "replace" ||
                        words[t] == "into" || words[t] == "main" || words[t] == "src"))
                    ++t;
                if (t < words.size()) return words[t];
            }
        return "the store";
    };
    if (words.empty()) return "running a statement";
    const std::string& verb = words.front();
    if (verb == "insert" || verb == "replace") return "adding a row to " + after("into");
    if (verb == "update") return "updating " + after("update");
    if (verb == "delete") return "deleting from " + after("from");
    if (verb == "select" || verb == "with") return "reading " + after("from");
    if (verb == "alter" || verb == "create" || verb == "drop")
        return "upgrading the store's layout (" + after(verb == "alter" ? "table" : verb.c_str()) +
               ")";
    if (verb == "begin" || verb == "commit" || verb == "rollback" || verb == "savepoint" ||
        verb == "release")
        return "ending a transaction";
    if (verb == "pragma") return "reading the store's settings";
    if (verb == "attach" || verb == "detach") return "opening another store beside it";
    return "running a statement";
}

}  // namespace

Db::Db(const std::string& path, Mode mode, const std::string& shownAs)
    : path_(shownAs.empty() ? path : shownAs), mode_(mode) {
    int flags = SQLITE_OPEN_NOMUTEX;
    std::string target = path;
    if (mode == Mode::ReadOnly) {
        flags |= SQLITE_OPEN_READONLY;
    } else if (mode == Mode::Snapshot) {
        flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
        target = immutableUri(path);
    } else {
        flags |= SQLITE_OPEN_READWRITE;
    }
    if (mode == Mode::ReadWriteCreate) flags |= SQLITE_OPEN_CREATE;
    int rc = sqlite3_open_v2(target.c_str(), &db_, flags, nullptr);
    if (rc != SQLITE_OK) {
        sqlite3_close(db_);
        db_ = nullptr;
        throw StoreError(kindOf(rc), path_ + ": " + explain(rc));
    }
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_timeout(db_, 2000);
}

Db::~Db() {
    sqlite3_close_v2(db_);
}

void Db::fail(int rc, std::string_view context) const {
    std::string detail = explain(rc);
    if ((rc & 0xff) != SQLITE_FULL && (rc & 0xff) != SQLITE_BUSY && db_ != nullptr) {
        const char* msg = sqlite3_errmsg(db_);
        if (msg && detail != msg) detail += std::string(" (") + msg + ")";
    }
    throw StoreError(kindOf(rc), path_ + ": while " + std::string(context) + ": " + detail);
}

void Db::exec(std::string_view sql) {
    std::string text(sql);
    int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) fail(rc, whatItDid(text));
}

std::int64_t Db::queryInt(std::string_view sql) {
    Statement st(*this, sql);
    return st.step() ? st.int64(0) : 0;
}

Statement::Statement(Db& db, std::string_view sql) : db_(&db) {
    int rc = sqlite3_prepare_v3(db.handle(), sql.data(), static_cast<int>(sql.size()),
                                SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
    if (rc != SQLITE_OK) db.fail(rc, whatItDid(sql));
}

Statement::Statement(Statement&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), stmt_(std::exchange(other.stmt_, nullptr)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
    if (this != &other) {
        sqlite3_finalize(stmt_);
        db_ = std::exchange(other.db_, nullptr);
        stmt_ = std::exchange(other.stmt_, nullptr);
    }
    return *this;
}

Statement::~Statement() {
    sqlite3_finalize(stmt_);
}

void Statement::check(int rc) {
    if (rc != SQLITE_OK) db_->fail(rc, "binding a value");
}

void Statement::bind(int index, std::int64_t value) {
    check(sqlite3_bind_int64(stmt_, index, value));
}
void Statement::bind(int index, int value) {
    check(sqlite3_bind_int(stmt_, index, value));
}
void Statement::bind(int index, double value) {
    check(sqlite3_bind_double(stmt_, index, value));
}
void Statement::bindNull(int index) {
    check(sqlite3_bind_null(stmt_, index));
}
void Statement::rewind() {
    sqlite3_reset(stmt_);
}
bool Statement::isNull(int col) const {
    return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
}
bool Statement::isInteger(int col) const {
    return sqlite3_column_type(stmt_, col) == SQLITE_INTEGER;
}
std::int64_t Statement::int64(int col) const {
    return sqlite3_column_int64(stmt_, col);
}
int Statement::int32(int col) const {
    return sqlite3_column_int(stmt_, col);
}
double Statement::real(int col) const {
    return sqlite3_column_double(stmt_, col);
}
std::int64_t Db::lastInsertId() const {
    return sqlite3_last_insert_rowid(db_);
}
int Db::changes() const {
    return sqlite3_changes(db_);
}

void Statement::bind(int index, std::string_view value) {
    // Every text reaching a store is valid UTF-8, whatever file or stream it
    // came from: a single bad byte once broke `ls --json` for the whole store.
    if (!isValidUtf8(value)) {
        std::string valid = toValidUtf8(value);
        check(sqlite3_bind_text(stmt_, index, valid.data(), static_cast<int>(valid.size()),
                                SQLITE_TRANSIENT));
        return;
    }
    check(sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                            SQLITE_TRANSIENT));
}

void Statement::bindBlob(int index, std::string_view bytes) {
    check(sqlite3_bind_blob(stmt_, index, bytes.data(), static_cast<int>(bytes.size()),
                            SQLITE_TRANSIENT));
}

std::string_view Statement::blob(int col) const {
    const auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_, col));
    return p ? std::string_view(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)))
             : std::string_view();
}

bool Statement::step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    sqlite3_reset(stmt_);
    const char* sql = sqlite3_sql(stmt_);
    db_->fail(rc, whatItDid(sql ? sql : ""));
}

void Statement::exec() {
    step();
    reset();
}

void Statement::reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
}

std::string Statement::text(int col) const {
    const auto* p = sqlite3_column_text(stmt_, col);
    return p ? std::string(reinterpret_cast<const char*>(p),
                           static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)))
             : std::string();
}

Transaction::Transaction(Db& db) : db_(db), nested_(sqlite3_get_autocommit(db.handle()) == 0) {
    db_.exec(nested_ ? "SAVEPOINT nested" : "BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
    if (done_) return;
    sqlite3_exec(db_.handle(), nested_ ? "ROLLBACK TO nested; RELEASE nested" : "ROLLBACK", nullptr,
                 nullptr, nullptr);
}

void Transaction::commit() {
    db_.exec(nested_ ? "RELEASE nested" : "COMMIT");
    done_ = true;
}

}  // namespace ws::sql
