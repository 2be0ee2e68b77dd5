#pragma once

#include <stdexcept>
#include <string>

namespace ws {

// Every store failure carries the file it concerns and why, so callers can
// print it as a one-line reason without adding context.
class StoreError : public std::runtime_error {
  public:
    enum class Kind {
        NotSqlite,  // the file is not an SQLite database
        Foreign,    // an SQLite database that is not a Warpscope store
        Newer,      // written by a newer Warpscope (schema version above ours)
        Damaged,    // a Warpscope store whose header or schema cannot be right
        ReadOnly,   // the file or its folder cannot be written
        Locked,     // another process holds a lock on it
        DiskFull,   // SQLITE_FULL while writing
        NotFound,   // a run or record that does not exist
        Io,         // cannot open / read the file
        Sql,        // any other SQLite failure
    };
    StoreError(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
    Kind kind() const { return kind_; }

  private:
    Kind kind_;
};

}  // namespace ws
