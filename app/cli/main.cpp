// warpscope-cli: record, inspect and export runs without Qt, so it works on a
// GPU server that has CUDA and nothing else.
#include <iostream>
#include <string>
#include <vector>

#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/progress_output.h"
#include "io/run_bundle.h"
#include "store/store_error.h"
#include "util/version.h"

namespace {

void printHelp(std::ostream& out) {
    out << "warpscope-cli " << ws::kWarpscopeVersion
        << " - record and inspect GPU inference runs\n\nusage: warpscope-cli COMMAND [ARGS]\n\n"
           "commands:\n";
    for (const auto& c : ws::cli::commands())
        out << "  " << c.usage << "\n      " << c.summary << '\n';
    out << "\nThe store defaults to ~/.local/share/warpscope/runs.wsdb; --db FILE picks another.\n"
           "Exit status: 0 success, 1 failure, 2 usage error.\n";
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        printHelp(std::cerr);
        return 2;
    }
    const std::string& name = args[0];
    if (name == "--help" || name == "-h" || name == "help") {
        printHelp(std::cout);
        return 0;
    }
    if (name == "--version") {
        // The bundle version is what `record --host` and `pull` compare.
        std::cout << "warpscope-cli " << ws::kWarpscopeVersion << " (run bundle version "
                  << ws::kRunBundleVersion << ")\n";
        return 0;
    }
    for (const auto& c : ws::cli::commands()) {
        if (name != c.name) continue;
        std::vector<std::string> rest(args.begin() + 1, args.end());
        for (const auto& a : rest) {
            if (a == "--help" || a == "-h") {
                std::cout << "usage: warpscope-cli " << c.usage << "\n" << c.summary << '\n';
                return 0;
            }
            if (a == "--") break;
        }
        // With --progress json the failure is a message too: the GUI shows
        // its text as the reason, without guessing which line it is.
        auto fail = [&](const std::string& text, int status) {
            if (ws::cli::wantsJsonProgress(rest))
                ws::cli::emitMessage({ws::progress::Kind::Error, text});
            else
                std::cerr << "warpscope-cli " << c.name << ": " << text << '\n';
            return status;
        };
        try {
            return c.run(rest);
        } catch (const ws::cli::UsageError& e) {
            // One line: what was wrong, and where the options are listed.
            return fail(
                std::string(e.what()) + " (warpscope-cli " + c.name + " --help lists its options)",
                2);
        } catch (const std::exception& e) {
            return fail(e.what(), 1);
        }
    }
    std::cerr << "warpscope-cli: unknown command '" << name << "' (see warpscope-cli --help)\n";
    return 2;
}
