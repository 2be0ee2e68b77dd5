#include "io/run_bundle.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "store/bundle_table.h"
#include "store/run_copy.h"
#include "store/run_queries.h"
#include "store/schema.h"
#include "store/store.h"
#include "util/process_identity.h"
#include "util/version.h"

namespace ws {

namespace fs = std::filesystem;

namespace {

// A private copy of a bundle, removed with whatever SQLite made beside it.
class TempCopy {
  public:
    explicit TempCopy(const std::string& from, const std::string& name) {
        std::error_code ec;
        auto dir = fs::temp_directory_path(ec);
        if (ec) dir = "/tmp";
        path_ = (dir / "warpscope-bundle-XXXXXX").string();
        int fd = ::mkstemp(path_.data());
        if (fd < 0)
            throw BundleError(name + ": cannot make a temporary copy in " + dir.string() + ": " +
                              std::strerror(errno));
        ::close(fd);
        fs::copy_file(from, path_, fs::copy_options::overwrite_existing, ec);
        if (ec) {
            remove();
            throw BundleError(name + ": cannot copy it to " + path_ + ": " + ec.message());
        }
    }
    ~TempCopy() { remove(); }
    TempCopy(const TempCopy&) = delete;
    TempCopy& operator=(const TempCopy&) = delete;
    const std::string& path() const { return path_; }

  private:
    void remove() {
        for (const char* suffix : {"", "-wal", "-shm", "-journal"})
            ::unlink((path_ + suffix).c_str());
    }
    std::string path_;
};

}  // namespace

BundleInfo writeRunBundle(Store& store, RunId run, const std::string& path) {
    auto info = requireRun(store, run);
    if (info.status == RunStatus::Running)
        throw BundleError(store.path() + ": run " + std::to_string(run) + " (on " + info.host +
                          ") is still being recorded; bundle it when it has finished");
    BundleInfo stamp{kRunBundleVersion, schema::kCurrentVersion,
                     kWarpscopeVersion, hostName(),
                     store.path(),      run};
    {
        Store bundle(path);
        copyRun(store.path(), run, bundle);
        stampBundle(bundle, {stamp.version, stamp.warpscopeVersion, stamp.sourceHost,
                             stamp.sourceStore, stamp.sourceRun, unixNowNs()});
    }
    return stamp;
}

bool isRunBundle(const std::string& path) {
    try {
        // Only a regular file can be one; opening a FIFO to look would wait
        // for a writer for ever (the importers then refuse it by name).
        std::error_code ec;
        if (!std::filesystem::is_regular_file(path, ec)) return false;
        std::ifstream in(path, std::ios::binary);
        char header[16] = {};
        in.read(header, sizeof header);
        if (in.gcount() != 16 || std::memcmp(header, "SQLite format 3", 16) != 0) return false;
        return hasBundleTable(path);
    } catch (const std::exception&) {
        return false;
    }
}

BundleInfo readBundleInfo(const std::string& path, const std::string& name) {
    if (!isRunBundle(path))
        throw BundleError(name +
                          ": not a Warpscope run bundle (no SQLite store with a bundle table); "
                          "nothing was imported");
    std::optional<BundleFile> file;
    try {
        file = readBundleFile(path);
    } catch (const StoreError& e) {
        throw BundleError(name + ": a damaged run bundle (" + e.what() + "); nothing was imported");
    }
    if (!file || !file->stamp)
        throw BundleError(name +
                          ": a damaged run bundle (its bundle table is empty); nothing "
                          "was imported");
    BundleInfo info;
    info.schemaVersion = file->schemaVersion;
    info.version = file->stamp->version;
    info.warpscopeVersion = file->stamp->warpscopeVersion;
    info.sourceHost = file->stamp->sourceHost;
    info.sourceStore = file->stamp->sourceStore;
    info.sourceRun = file->stamp->sourceRun;
    if (info.version > kRunBundleVersion || info.schemaVersion > schema::kCurrentVersion)
        throw BundleError(name + ": written by a newer Warpscope (" + info.warpscopeVersion +
                          ": run bundle version " + std::to_string(info.version) +
                          ", store schema " + std::to_string(info.schemaVersion) +
                          "); this Warpscope (" + kWarpscopeVersion +
                          ") reads run bundle version " + std::to_string(kRunBundleVersion) +
                          ", store schema " + std::to_string(schema::kCurrentVersion) +
                          "; upgrade Warpscope here; nothing was imported");
    if (info.version < 1 || info.schemaVersion < 1)
        throw BundleError(name + ": a damaged run bundle (version " + std::to_string(info.version) +
                          ", store schema " + std::to_string(info.schemaVersion) +
                          "); nothing was imported");
    return info;
}

ImportedBundle importRunBundle(
    Store& to, const std::string& path, const std::string& name,
    const std::vector<std::pair<std::string, std::string>>& addProperties) {
    ImportedBundle out;
    out.info = readBundleInfo(path, name);
    to.requireWritable("import a run bundle");
    // Opened as a store in a copy: an older bundle is migrated there, and the
    // given file stays as it was.
    TempCopy copy(path, name);
    RunId run = 0;
    try {
        Store bundle(copy.path());
        auto runs = listRuns(bundle);
        if (runs.size() != 1)
            throw BundleError(name + ": a damaged run bundle (it holds " +
                              std::to_string(runs.size()) +
                              " runs, not one); nothing was imported");
        run = runs.front().id;
    } catch (const StoreError& e) {
        throw BundleError(name + ": a damaged run bundle: " + e.what() + "; nothing was imported");
    }
    try {
        out.run = copyRun(copy.path(), run, to, addProperties);
    } catch (const std::exception& e) {
        throw BundleError(name + ": " + e.what() + "; nothing was imported");
    }
    return out;
}

}  // namespace ws
