// The values of a run copied from another store file (a run bundle, a pulled
// run) meet the rules every other way in meets: times and spans within
// model/value_limits.h, counters not negative, text valid UTF-8. The copy is
// SQL from the attached file (run_copy.cpp), which no bound parameter or
// importer check sees, so these run on it.
#pragma once

#include <cstdint>
#include <string>

#include "model/records.h"
#include "store/sqlite_db.h"

namespace ws {

// Throws StoreError (Damaged) naming the row and field of the first value of
// run `from` in the attached `src` that is out of range.
void checkCopiedNumbers(sql::Db& db, RunId from);

// Rewrites, through a bound parameter (which repairs it), every TEXT value of
// main.`table` in the rows `where` selects (with ?1 = `key`) that is not
// valid UTF-8.
void repairText(sql::Db& db, const std::string& table, const std::string& where, std::int64_t key);

}  // namespace ws
