// `--window run|requests|range:NAME|FROM:TO` of summary, compare and export:
// which part of a run their tables cover (analysis/analysis_window.h).
#pragma once

#include <stdexcept>

#include "analysis/analysis_window.h"
#include "cli/cli_args.h"

namespace ws::cli {

inline WindowChoice parseWindowArg(const Args& args, WindowChoice::Kind fallback) {
    auto spec = args.value("window");
    if (!spec) return {fallback, {}};
    try {
        return parseWindowChoice(*spec);
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--window: ") + e.what());
    }
}

}  // namespace ws::cli
