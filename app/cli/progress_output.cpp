#include "cli/progress_output.h"

#include <unistd.h>

#include <iostream>
#include <sstream>

#include "util/format.h"

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

namespace {

std::string count(std::int64_t n) {
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

}  // namespace

void printRecordProgress(const RecordProgress& p, ProgressMode mode) {
    if (mode == ProgressMode::None) return;
    if (mode == ProgressMode::Json) {
        progress::Message m{progress::Kind::Record};
        m.record = p;
        if (p.run) m.run = p.run;
        emitMessage(m);
        return;
    }
    std::ostringstream line;
    line << "[warpscope] " << formatDuration(p.elapsedNs) << "  kernels " << count(p.kernels)
         << "  memcpys " << count(p.memcpys) << " (" << formatBytes(p.memcpyBytes) << ")"
         << "  api " << count(p.apiCalls) << "  nvtx " << count(p.ranges);
    if (p.tokens) line << "  tokens " << count(p.tokens);
    if (p.dropped) line << "  DROPPED " << count(p.dropped);
    bool tty = ::isatty(2);
    if (tty)
        std::cerr << '\r' << line.str() << "\033[K" << (p.finished ? "\n" : "") << std::flush;
    else if (p.finished)
        std::cerr << line.str() << '\n';
}

}  // namespace ws::cli
