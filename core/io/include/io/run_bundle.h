// A run bundle: one run with everything it recorded, as a file that travels
// (over ssh from a GPU server, by mail, on a stick) and is imported into
// another store as a new run. It is a Warpscope store holding that one run
// and only the strings it uses, plus a `bundle` table stamping the bundle
// version and where the run came from (docs/schema.md).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "model/records.h"

namespace ws {

class Store;

// Raised when the layout of a bundle changes in a way an older reader cannot
// take; `warpscope-cli --version` prints it, so two hosts can be compared.
constexpr int kRunBundleVersion = 1;

// Not a bundle, a newer one, or a damaged one; the message names the file.
class BundleError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct BundleInfo {
    int version = 0;        // bundle version
    int schemaVersion = 0;  // store schema version of the file
    std::string warpscopeVersion;
    std::string sourceHost;   // the machine it was bundled on
    std::string sourceStore;  // the store file it came from there
    RunId sourceRun = 0;      // the run's id there
};

// Writes run `run` of `store` as a bundle at `path`, which must not exist or
// be empty (a fresh temporary file). Refuses a run still being recorded.
BundleInfo writeRunBundle(Store& store, RunId run, const std::string& path);

// Whether `path` looks like a bundle (a Warpscope store with a bundle
// table), read without writing; false for anything else, never throws.
bool isRunBundle(const std::string& path);

// The bundle's stamp. `name` is how the user knows the file (a path, or
// "the bundle from gpu-box"). Throws BundleError when it is not a bundle or
// was written by a newer Warpscope; the file is never written.
BundleInfo readBundleInfo(const std::string& path, const std::string& name);

struct ImportedBundle {
    RunId run = 0;
    BundleInfo info;
};

// Imports the bundle at `path` into `to` as a new run, with `addProperties`
// set on it, in one transaction: on any failure nothing of it is in `to`.
// The file itself is not changed (an older bundle is migrated in a copy).
ImportedBundle importRunBundle(
    Store& to, const std::string& path, const std::string& name,
    const std::vector<std::pair<std::string, std::string>>& addProperties = {});

}  // namespace ws
