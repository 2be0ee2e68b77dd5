// import FILE: a vLLM result, another client's results (GuideLLM, SGLang,
// AIPerf: one run per benchmark), an Nsight Systems SQLite export, a Kineto
// trace (plain or .json.gz, streamed) or a run bundle becomes a run. Progress as bytes read; Ctrl-C
// stops it, and the store is left as it was.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>

#include "cli/bundle_commands.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/interrupt_flag.h"
#include "cli/open_store.h"
#include "cli/progress_output.h"
#include "io/run_bundle.h"
#include "io/trace_import.h"
#include "store/store.h"
#include "util/format.h"

namespace ws::cli {

namespace {

// Thrown from the progress callback, inside the importer's transaction,
// which then rolls every record back.
struct ImportInterrupted : std::runtime_error {
    ImportInterrupted() : std::runtime_error("interrupted") {}
};

}  // namespace

int cmdImport(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{}, {"db", "label", "progress"}, 1, 1});
    const ProgressMode reporting = progressMode(args);
    const auto& path = args.positional()[0];
    if (reporting == ProgressMode::Json) {
        // One message as it starts (the file's size); a streamed Kineto trace
        // then reports the bytes read every 8 MiB; the result when stored.
        progress::Message started{progress::Kind::Import};
        std::error_code ec;
        started.total = static_cast<std::int64_t>(std::filesystem::file_size(path, ec));
        emitMessage(started);
    }
    if (isRunBundle(path)) return importBundleCommand(path, args, reporting);
    auto file = readTraceFile(path);  // an unknown file is refused before the store is opened
    Store store(storePath(args));     // importing into a new store creates it
    std::atomic<bool>& interrupted = stopOnInterrupt();
    const bool tty = ::isatty(2);
    auto lastShown = std::chrono::steady_clock::now();
    std::int64_t lastSent = 0;
    ReadProgress bytesRead = [&](std::int64_t done, std::int64_t total) {
        if (interrupted) throw ImportInterrupted();
        if (reporting == ProgressMode::Json && (done - lastSent >= (8 << 20) || done == total)) {
            lastSent = done;
            progress::Message m{progress::Kind::Import};
            m.done = done;
            m.total = total;
            emitMessage(m);
        }
        // About twice a second: a line rewritten in place on a terminal, a
        // line each on a pipe.
        auto now = std::chrono::steady_clock::now();
        if (reporting == ProgressMode::Line &&
            (now - lastShown > std::chrono::milliseconds(500) || done == total)) {
            lastShown = now;
            std::cerr << (tty ? "\r" : "") << "[warpscope] importing: " << formatBytes(done)
                      << " of " << formatBytes(total);
            if (total > 0) std::cerr << " (" << done * 100 / total << " %)";
            std::cerr << (tty && done != total ? "\033[K" : "\n") << std::flush;
        }
    };
    ImportResult result;
    try {
        result = importTrace(store, file, args.valueOr("label", ""), bytesRead);
    } catch (const ImportInterrupted&) {
        std::string text = "import cancelled: nothing of " + path + " was imported; " +
                           store.path() + " is as it was";
        if (reporting == ProgressMode::Json)
            emitMessage({progress::Kind::Error, text});
        else
            std::cerr << (tty ? "\n" : "") << text << '\n';
        return 1;
    }
    std::string text = "imported " + result.format;
    if (result.runs.size() > 1) {
        text += " as runs";
        for (RunId r : result.runs)
            text += (r == result.runs.front() ? " " : ", ") + std::to_string(r);
        if (!result.sweepGroup.empty()) text += " (sweep group \"" + result.sweepGroup + "\")";
    } else {
        text += " as run " + std::to_string(result.run);
    }
    text += ": " + std::to_string(result.events) + " records";
    if (result.kernels > 0) text += ", " + std::to_string(result.kernels) + " kernels";
    if (result.requests > 0) text += ", " + std::to_string(result.requests) + " requests";
    if (reporting == ProgressMode::Json) {
        progress::Message done{progress::Kind::Done, text};
        done.run = result.run;
        emitMessage(done);
    }
    std::cout << text << '\n';
    return 0;
}

}  // namespace ws::cli
