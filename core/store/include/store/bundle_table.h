// The `bundle` table that stamps a run bundle (io/run_bundle.h): a store file
// holding one copied run, plus where it came from. Written and read here so
// that its SQL lives with the rest of the store's (docs/schema.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/records.h"

namespace ws {

class Store;

struct BundleStamp {
    int version = 0;  // run bundle version
    std::string warpscopeVersion;
    std::string sourceHost;
    std::string sourceStore;
    RunId sourceRun = 0;
    std::int64_t createdAtNs = 0;
};

// Adds the bundle table with `stamp` to `bundle` and folds the write-ahead
// log back into the file, so the bundle is one self-contained file.
void stampBundle(Store& bundle, const BundleStamp& stamp);

struct BundleFile {
    int schemaVersion = 0;             // the store schema of the file
    std::optional<BundleStamp> stamp;  // none: the table is there but empty
};

// Whether the file at `path` is a Warpscope store with a bundle table, read
// without writing or locking; a damaged table still counts (reading it says
// what is wrong). Throws StoreError where it is no Warpscope store.
bool hasBundleTable(const std::string& path);
// The bundle table of the Warpscope store at `path`, read the same way; none
// where the file is a Warpscope store without one. Throws StoreError where it
// is no Warpscope store or its bundle table cannot be read.
std::optional<BundleFile> readBundleFile(const std::string& path);

}  // namespace ws
