// How a long command reports while it works (--progress line|json|none):
// lines for people on a terminal, or the JSON messages of
// io/progress_messages.h for the GUI and scripts.
#pragma once

#include <string>
#include <vector>

#include "cli/cli_args.h"
#include "io/progress_messages.h"

namespace ws::cli {

enum class ProgressMode { Line, Json, None };

// --progress, default line; a UsageError for anything else.
ProgressMode progressMode(const Args& args);
// Whether the command line asks for JSON messages, read before parsing, so
// that even a usage error reaches the GUI as an error message.
bool wantsJsonProgress(const std::vector<std::string>& argv);
// One message as a JSON line on stderr.
void emitMessage(const progress::Message& m);
// A recording's counters: a JSON record message (with the run), or a line
// rewritten in place on a terminal (printed once, at the end, elsewhere).
void printRecordProgress(const RecordProgress& p, ProgressMode mode);
// A remark for the user: a JSON note, or a "[warpscope] " line on stderr.
void emitNote(ProgressMode mode, const std::string& text);

}  // namespace ws::cli
