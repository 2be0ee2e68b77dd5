// compact: rewrites older event chunks in the current, smaller format and
// gives freed pages back to the file system. Ctrl-C cancels; the batches
// already committed stay rewritten, and every run reads the same.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <iostream>

#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/open_store.h"
#include "store/compact.h"
#include "util/format.h"

namespace ws::cli {

namespace {

std::atomic<bool> interrupted{false};

void onSignal(int) {
    interrupted = true;
}

}  // namespace

int cmdCompact(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{}, {"db", "progress"}, 0, 0});
    std::string progressMode = args.valueOr("progress", "line");
    if (progressMode != "line" && progressMode != "none")
        throw UsageError("--progress must be line or none");
    auto store = openStore(args);
    struct sigaction sa {};
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    const bool tty = ::isatty(2);
    auto lastShown = std::chrono::steady_clock::now();
    auto result =
        compactStore(*store, codec::kWriteFormat, [&](std::int64_t done, std::int64_t total) {
            // About twice a second, and the last one: a line each on a pipe (the
            // GUI reads them), one rewritten line on a terminal.
            auto now = std::chrono::steady_clock::now();
            if (progressMode == "line" &&
                (now - lastShown > std::chrono::milliseconds(500) || done == total)) {
                lastShown = now;
                std::cerr << (tty ? "\r" : "") << "[warpscope] compacting: " << done << " / "
                          << total << " event chunks" << (tty && done != total ? "\033[K" : "\n")
                          << std::flush;
            }
            return !interrupted.load();
        });
    if (result.cancelled) {
        std::cerr << "\ncompact cancelled: " << result.chunksRewritten
                  << " event chunks were rewritten, the others are as they were; " << store->path()
                  << " reads the same\n";
        return 1;
    }
    std::cout << store->path() << ": rewrote " << result.chunksRewritten << " event chunks; "
              << formatBytes(result.bytesBefore) << " -> " << formatBytes(result.bytesAfter)
              << '\n';
    return 0;
}

}  // namespace ws::cli
