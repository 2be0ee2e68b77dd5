// bundle and the bundle half of import: one run as a file that travels
// (io/run_bundle.h); `pull` and `record --host` stream one over ssh.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/bundle_commands.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/open_store.h"
#include "io/run_bundle.h"
#include "store/store.h"

namespace ws::cli {

namespace fs = std::filesystem;

namespace {

// A fresh file for the bundle (SQLite writes it in place), removed unless kept.
class PartialFile {
  public:
    explicit PartialFile(std::string pattern) : path_(std::move(pattern)) {
        int fd = ::mkstemp(path_.data());
        if (fd < 0) {
            auto dir = fs::path(path_).parent_path().string();
            throw std::runtime_error(dir + ": cannot write a file there: " + std::strerror(errno));
        }
        ::fchmod(fd, 0644);
        ::close(fd);
    }
    ~PartialFile() {
        if (!kept_)
            for (const char* suffix : {"", "-wal", "-shm", "-journal"})
                ::unlink((path_ + suffix).c_str());
    }
    PartialFile(const PartialFile&) = delete;
    PartialFile& operator=(const PartialFile&) = delete;
    const std::string& path() const { return path_; }
    void keep() { kept_ = true; }

  private:
    std::string path_;
    bool kept_ = false;
};

std::string tempPattern() {
    std::error_code ec;
    auto dir = fs::temp_directory_path(ec);
    return ((ec ? fs::path("/tmp") : dir) / "warpscope-bundle-XXXXXX").string();
}

}  // namespace

int cmdBundle(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{}, {"db", "o"}, 1, 1});
    auto id = parseRunId(args.positional()[0]);
    const std::string output = args.valueOr("o", "-");
    if (output == "-" && ::isatty(1))
        throw UsageError("standard output is a terminal: give -o FILE, or pipe it");
    auto store = openStore(args);
    if (output == "-") {
        PartialFile file(tempPattern());
        writeRunBundle(*store, id, file.path());
        std::ifstream in(file.path(), std::ios::binary);
        std::cout << in.rdbuf();
        std::cout.flush();
        if (!std::cout) throw std::runtime_error("standard output: write failed");
        return 0;
    }
    // Written beside the target under a fresh name and renamed: a failure
    // never leaves half a bundle, and a device or FIFO is never replaced.
    fs::path target = output;
    std::error_code ec;
    auto status = fs::status(target, ec);
    if (fs::exists(status) && !fs::is_regular_file(status))
        throw std::runtime_error(output +
                                 ": not a regular file; use -o - to write to standard output");
    PartialFile file(target.string() + ".XXXXXX");
    auto stamp = writeRunBundle(*store, id, file.path());
    if (std::rename(file.path().c_str(), target.c_str()) != 0)
        throw std::runtime_error(output + ": cannot replace the file: " + std::strerror(errno));
    file.keep();
    std::cerr << "run " << id << " written to " << output << " (run bundle version "
              << stamp.version << ")\n";
    return 0;
}

ImportedBundle importBundleFile(const std::string& path, const std::string& storeFile,
                                const std::vector<std::pair<std::string, std::string>>& properties,
                                const std::string& name) {
    // Read before the store is opened: a file that is not a bundle, or a
    // newer one, never creates or touches a store.
    readBundleInfo(path, name);
    Store store(storeFile);
    return importRunBundle(store, path, name, properties);
}

int importBundleCommand(const std::string& path, const Args& args, ProgressMode reporting) {
    if (args.value("label"))
        throw UsageError("--label does not apply to a run bundle: the run keeps its own label");
    auto imported = importBundleFile(path, storePath(args), {}, path);
    std::string text = "imported run " + std::to_string(imported.info.sourceRun) + " of " +
                       imported.info.sourceHost + " (run bundle version " +
                       std::to_string(imported.info.version) + ") as run " +
                       std::to_string(imported.run);
    if (reporting == ProgressMode::Json) {
        progress::Message done{progress::Kind::Done, text};
        done.run = imported.run;
        emitMessage(done);
    }
    std::cout << text << '\n';
    return 0;
}

}  // namespace ws::cli
