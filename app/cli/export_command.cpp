// export RUN: the whole run as JSON, one table as CSV, a Chrome trace for
// Perfetto UI / chrome://tracing or a Perfetto protobuf trace, restricted to a window of time or an
// NVTX range when asked (no viewer opens a run of 100 M events whole); gzip- compressed when the
// file name ends in .gz. Written beside the target and renamed, so a failure never leaves half a
// file.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "analysis/analysis_window.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/open_store.h"
#include "cli/window_arg.h"
#include "io/chrome_trace.h"
#include "io/gzip_ostream.h"
#include "io/perfetto_trace.h"
#include "io/run_export.h"
#include "store/run_queries.h"
#include "store/store.h"

namespace ws::cli {

int cmdExport(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{}, {"db", "format", "o", "table", "window", "range"}, 1, 1});
    auto id = parseRunId(args.positional()[0]);
    auto format = args.value("format");
    if (!format) throw UsageError("--format is required (csv, json, chrome-trace or perfetto)");
    const bool trace = *format == "chrome-trace" || *format == "perfetto";
    if (*format != "csv" && *format != "json" && !trace)
        throw UsageError("--format must be csv, json, chrome-trace or perfetto, not '" + *format +
                         "'");
    auto output = args.value("o");
    if (!output) throw UsageError("-o FILE is required");
    std::optional<RunTable> table = RunTable::Kernels;
    if (auto t = args.value("table")) {
        if (*format != "csv") throw UsageError("--table applies to --format csv only");
        table = runTableFromString(*t);
        if (!table) {
            std::string names;
            for (const auto& n : runTableNames())
                names += (names.empty() ? "" : ", ") + n;
            throw UsageError("--table must be one of: " + names);
        }
    }
    if ((args.value("window") || args.value("range")) && !trace)
        throw UsageError("--window and --range apply to --format chrome-trace or perfetto only");
    if (args.value("window") && args.value("range"))
        throw UsageError("--range NAME is --window range:NAME: give one of them");
    std::optional<WindowChoice> choice;
    if (auto range = args.value("range"))
        choice = WindowChoice{WindowChoice::Kind::Range, *range};
    else if (args.value("window"))
        choice = parseWindowArg(args, WindowChoice::Kind::WholeRun);
    auto store = openStore(args);
    requireRun(*store, id);
    TimeWindow window;
    if (choice) {
        try {
            window = resolveWindow(*store, id, *choice).span;
        } catch (const std::invalid_argument& e) {
            throw std::runtime_error(e.what());
        }
    }
    const bool gzip = output->ends_with(".gz");
    auto write = [&](std::ostream& sink) {
        std::optional<GzipOStream> compressed;
        if (gzip) compressed.emplace(sink);
        std::ostream& out = gzip ? *compressed : sink;
        if (*format == "json")
            exportRunJson(*store, id, out);
        else if (*format == "chrome-trace")
            exportChromeTrace(*store, id, out, window);
        else if (*format == "perfetto")
            exportPerfettoTrace(*store, id, out, window);
        else
            exportRunCsv(*store, id, *table, out);
        if (compressed) compressed->finish();
        out.flush();
        if (!out) sink.setstate(std::ios::badbit);
    };
    if (*output == "-") {
        write(std::cout);
        if (!std::cout) throw std::runtime_error("standard output: write failed");
        return 0;
    }
    // A device or FIFO is written into as a shell's `>` would (-o /dev/null
    // to time an export), never replaced by a file (as root, -o /dev/full
    // once was); a symbolic link is followed to the file it names.
    namespace fs = std::filesystem;
    fs::path target = *output;
    std::error_code ec;
    if (fs::is_symlink(target, ec)) target = fs::weakly_canonical(target, ec);
    auto status = fs::status(target, ec);
    if (fs::is_character_file(status) || fs::is_fifo(status)) {
        std::ofstream device(target, std::ios::binary);
        if (!device) throw std::runtime_error(*output + ": cannot open: " + std::strerror(errno));
        write(device);
        if (!device) throw std::runtime_error(*output + ": write failed");
        return 0;
    }
    if (fs::exists(status) && !fs::is_regular_file(status))
        throw std::runtime_error(*output +
                                 ": not a regular file or a device; use -o - to write to "
                                 "standard output");
    // Written beside the target first (a fresh name, never an existing file),
    // so a failure never leaves half a file.
    std::string partial = target.string() + ".XXXXXX";
    int fd = ::mkstemp(partial.data());
    if (fd < 0)
        throw std::runtime_error(*output + ": cannot write beside it: " + std::strerror(errno));
    ::fchmod(fd, 0644);
    ::close(fd);
    try {
        std::ofstream out(partial, std::ios::binary | std::ios::trunc);
        write(out);
        if (!out) throw std::runtime_error(*output + ": write failed (disk full?)");
    } catch (...) {
        ::unlink(partial.c_str());
        throw;
    }
    if (std::rename(partial.c_str(), target.c_str()) != 0) {
        ::unlink(partial.c_str());
        throw std::runtime_error(*output + ": cannot replace the file");
    }
    return 0;
}

}  // namespace ws::cli
