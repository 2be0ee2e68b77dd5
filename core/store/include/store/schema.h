#pragma once

#include <cstdint>

namespace ws::sql {
class Db;
}

namespace ws::schema {

// 'WSDB' — tells a Warpscope store from any other SQLite file.
constexpr std::int32_t kApplicationId = 0x57534442;
// The schema version this build writes; PRAGMA user_version holds it.
constexpr int kCurrentVersion = 10;

// Brings a store from `fromVersion` (0 = empty file) to kCurrentVersion, one
// migration step per version, all in one transaction.
void migrate(sql::Db& db, int fromVersion);

// Indexes that change no table and so need no version: a build without
// them reads and writes the store alike. Made when a store is opened for
// writing; a read-only store works without them, only slower.
void ensureIndexes(sql::Db& db);

}  // namespace ws::schema
