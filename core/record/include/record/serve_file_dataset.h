// bench serve's datasets read from files: ShareGPT JSON (as vLLM reads it) and
// JSON Lines of {"prompt", "output_len"}. Each prompt is sent as text; its
// input length is what the server reports in `usage` (0 until then).
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "record/serve_load.h"

namespace ws {

// A file that cannot be read or holds something other than the format
// expects; the message names the file, the entry or line, and the field.
class DatasetError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct FileDataset {
    std::vector<ServePrompt> prompts;  // exactly `count`, the file's repeated when it holds fewer
    int usable = 0;                    // distinct prompts the file gave
    int skipped = 0;                   // ShareGPT entries with fewer than two turns
};

// ShareGPT: a JSON array of {"conversations": [{"from", "value"}, ...]}. Like
// vLLM: entries with fewer than two turns are skipped, the rest shuffled with
// `seed`; the prompt is conversations[0].value and the output length that of
// conversations[1].value, estimated without a tokenizer as one token per four
// bytes (at least 1), unless `outputLen` is given.
FileDataset readShareGptDataset(const std::string& path, int count, std::uint64_t seed,
                                std::optional<int> outputLen);

// JSON Lines: one object a line with a string "prompt" and an optional
// positive integer "output_len" (else `defaultOutputLen`); `outputLen`, when
// given, overrides both. Blank lines are skipped; taken in file order.
FileDataset readJsonlDataset(const std::string& path, int count, int defaultOutputLen,
                             std::optional<int> outputLen);

}  // namespace ws
