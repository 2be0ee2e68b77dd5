#include "cli/progress_output.h"

#include <iostream>

namespace ws::cli {

ProgressMode progressMode(const Args& args) {
    auto mode = args.valueOr("progress", "line");
    if (mode == "line") return ProgressMode::Line;
    if (mode == "json") return ProgressMode::Json;
    if (mode == "none") return ProgressMode::None;
    throw UsageError("--progress must be line, json or none; got '" + mode + "'");
}

bool wantsJsonProgress(const std::vector<std::string>& argv) {
    for (std::size_t i = 0; i < argv.size(); ++i) {
        if (argv[i] == "--") break;
        if (argv[i] == "--progress=json") return true;
        if (argv[i] == "--progress" && i + 1 < argv.size() && argv[i + 1] == "json") return true;
    }
    return false;
}

void emitMessage(const progress::Message& m) {
    std::cerr << progress::toJsonLine(m) << '\n' << std::flush;
}

void emitNote(ProgressMode mode, const std::string& text) {
    if (mode == ProgressMode::Json)
        emitMessage({progress::Kind::Note, text});
    else
        std::cerr << "[warpscope] " << text << '\n';
}

}  // namespace ws::cli
