// Thin RAII wrappers over the SQLite C API; every failure becomes a StoreError
// naming the database file. <sqlite3.h> stays in the .cpp: a reader of this
// header cannot call SQLite around the wrappers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "store/store_error.h"

struct sqlite3;
struct sqlite3_stmt;

namespace ws::sql {

class Db;

class Statement {
  public:
    Statement() = default;
    Statement(Db& db, std::string_view sql);
    Statement(Statement&& other) noexcept;
    Statement& operator=(Statement&& other) noexcept;
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    ~Statement();

    void bind(int index, std::int64_t value);
    void bind(int index, int value);
    void bind(int index, std::uint32_t value) { bind(index, static_cast<std::int64_t>(value)); }
    void bind(int index, std::uint64_t value) { bind(index, static_cast<std::int64_t>(value)); }
    void bind(int index, double value);
    void bind(int index, bool value) { bind(index, value ? 1 : 0); }
    void bind(int index, std::string_view value);
    void bindBlob(int index, std::string_view bytes);
    void bindNull(int index);
    template <typename T>
    void bind(int index, const std::optional<T>& value) {
        if (value)
            bind(index, *value);
        else
            bindNull(index);
    }

    // Returns true while a row is available.
    bool step();
    // Runs a statement that returns no rows, then resets it for reuse.
    void exec();
    void reset();
    // Resets for the next step without clearing bindings: for hot insert loops
    // that rebind every parameter anyway.
    void rewind();

    bool isNull(int col) const;
    bool isInteger(int col) const;
    std::int64_t int64(int col) const;
    int int32(int col) const;
    double real(int col) const;
    std::string text(int col) const;
    // Valid until the next step or reset.
    std::string_view blob(int col) const;
    std::optional<std::int64_t> optInt64(int col) const {
        return isNull(col) ? std::nullopt : std::optional(int64(col));
    }
    std::optional<double> optReal(int col) const {
        return isNull(col) ? std::nullopt : std::optional(real(col));
    }

  private:
    void check(int rc);
    Db* db_ = nullptr;
    sqlite3_stmt* stmt_ = nullptr;
};

class Db {
  public:
    // Snapshot: read-only without locks or -wal/-shm files (SQLite's
    // immutable=1), for probing a file before trusting it and for stores in
    // folders this user cannot write, where SQLite could not create them.
    enum class Mode { ReadOnly, Snapshot, ReadWrite, ReadWriteCreate };
    // `shownAs`: the name errors and path() give (a private copy's original).
    Db(const std::string& path, Mode mode, const std::string& shownAs = {});
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;
    ~Db();

    void exec(std::string_view sql);
    std::int64_t queryInt(std::string_view sql);
    std::int64_t lastInsertId() const;
    int changes() const;
    sqlite3* handle() const { return db_; }
    const std::string& path() const { return path_; }
    bool readOnly() const { return mode_ == Mode::ReadOnly || mode_ == Mode::Snapshot; }

    // Converts an SQLite result code into a StoreError with a specific message.
    [[noreturn]] void fail(int rc, std::string_view context) const;

  private:
    std::string path_;
    Mode mode_;
    sqlite3* db_ = nullptr;
};

// Begins on construction, rolls back unless commit() was called.
// BEGIN IMMEDIATE ... COMMIT, rolled back unless committed. Inside another
// transaction it is a savepoint of it, so a caller can make several steps
// (an import: run row, records, conventions) one atomic write.
class Transaction {
  public:
    explicit Transaction(Db& db);
    ~Transaction();
    void commit();

  private:
    Db& db_;
    bool nested_ = false;
    bool done_ = false;
};

}  // namespace ws::sql
