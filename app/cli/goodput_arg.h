// --goodput ttft:MS,tpot:MS,e2el:MS (milliseconds), as vLLM's option: shared by
// stats and bench serve.
#pragma once

#include <sstream>
#include <string>

#include "analysis/latency.h"
#include "cli/cli_args.h"

namespace ws::cli {

inline LatencyTargets parseGoodput(const std::string& text) {
    LatencyTargets t;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        auto colon = item.find(':');
        if (colon == std::string::npos)
            throw UsageError("--goodput: expected METRIC:MS, got '" + item + "'");
        auto name = item.substr(0, colon);
        double v = parseFiniteNumber("goodput " + name, item.substr(colon + 1));
        if (v <= 0) throw UsageError("--goodput: '" + item + "' needs a positive number of ms");
        if (name == "ttft")
            t.ttftMs = v;
        else if (name == "tpot")
            t.tpotMs = v;
        else if (name == "e2el")
            t.e2elMs = v;
        else
            throw UsageError("--goodput: unknown metric '" + name + "' (ttft, tpot or e2el)");
    }
    return t;
}

}  // namespace ws::cli
