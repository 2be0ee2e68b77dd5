// compact: rewrites older event chunks in the current, smaller format and
// gives freed pages back to the file system. Ctrl-C cancels; the batches
// already committed stay rewritten, and every run reads the same.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <iostream>

#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/interrupt_flag.h"
#include "cli/open_store.h"
#include "cli/progress_output.h"
#include "store/compact.h"
#include "util/format.h"

namespace ws::cli {

int cmdCompact(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{}, {"db", "progress"}, 0, 0});
    const ProgressMode reporting = progressMode(args);
    auto store = openStore(args);
    std::atomic<bool>& interrupted = stopOnInterrupt();
    const bool tty = ::isatty(2);
    auto lastShown = std::chrono::steady_clock::now();
    auto result =
        compactStore(*store, codec::kWriteFormat, [&](std::int64_t done, std::int64_t total) {
            // About twice a second, and the last one: a line each on a pipe (the
            // GUI reads them), one rewritten line on a terminal.
            auto now = std::chrono::steady_clock::now();
            bool due = now - lastShown > std::chrono::milliseconds(500) || done == total;
            if (due && reporting == ProgressMode::Json) {
                lastShown = now;
                progress::Message m{progress::Kind::Compact};
                m.done = done;
                m.total = total;
                emitMessage(m);
            } else if (due && reporting == ProgressMode::Line) {
                lastShown = now;
                std::cerr << (tty ? "\r" : "") << "[warpscope] compacting: " << done << " / "
                          << total << " event chunks" << (tty && done != total ? "\033[K" : "\n")
                          << std::flush;
            }
            return !interrupted.load();
        });
    if (result.cancelled) {
        std::string text = "compact cancelled: " + std::to_string(result.chunksRewritten) +
                           " event chunks were rewritten, the others are as they were; " +
                           store->path() + " reads the same";
        if (reporting == ProgressMode::Json)
            emitMessage({progress::Kind::Error, text});
        else
            std::cerr << '\n' << text << '\n';
        return 1;
    }
    std::string text = store->path() + ": rewrote " + std::to_string(result.chunksRewritten) +
                       " event chunks; " + formatBytes(result.bytesBefore) + " -> " +
                       formatBytes(result.bytesAfter);
    if (!result.vacuumSkipped.empty())
        text += " (free pages not returned to the file system: " + result.vacuumSkipped +
                "; run compact again when it has finished)";
    if (reporting == ProgressMode::Json) emitMessage({progress::Kind::Done, text});
    std::cout << text << '\n';
    return 0;
}

}  // namespace ws::cli
