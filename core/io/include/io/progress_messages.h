// What `warpscope-cli record|import|compact --progress json` writes to
// stderr, one JSON object per line, and what the GUI reads back: both sides
// use this header, so neither counts prefixes by hand. Every message carries
// "warpscope": KIND. Any other line is the profiled program's own output.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "model/records.h"

namespace ws::progress {

enum class Kind {
    Record,   // live counters of a recording (RecordProgress)
    Import,   // an import started or advanced: bytes of the file, records stored
    Compact,  // event chunks rewritten of all to rewrite
    Note,     // a remark for the user that is not a failure
    Error,    // why the command failed; the last one is the reason to show
    Done,     // the command's result in one sentence, and the run it made
};
const char* toString(Kind kind);

struct Message {
    Message() = default;
    Message(Kind k, std::string t = {}) : kind(k), text(std::move(t)) {}

    Kind kind = Kind::Note;
    std::string text;             // Note, Error, Done
    RecordProgress record;        // Record
    std::int64_t done = 0;        // Import: bytes read; Compact: chunks rewritten
    std::int64_t total = 0;       // Import: bytes of the file; Compact: chunks in all
    std::optional<RunId> run;     // Done (and Import once the run exists)
    std::optional<int> exitCode;  // Done of a recording: the program's exit code
};

// One line of JSON, without the newline.
std::string toJsonLine(const Message& m);
// The message on `line`, or nullopt when the line is not one of ours (program
// output, a partial line). Never throws.
std::optional<Message> parseJsonLine(std::string_view line);

}  // namespace ws::progress
