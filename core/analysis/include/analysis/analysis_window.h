// Which part of a run a kernel table, range table or comparison covers, and
// the words that say so beside it: the whole run (set-up and checks
// included), while its requests were served (first arrival to last token:
// what a benchmark measures), an NVTX range the user picks, or a span of
// time from the run's start.
#pragma once

#include <string>

#include "model/records.h"
#include "store/run_queries.h"

namespace ws {

class Store;

struct WindowChoice {
    enum class Kind { WholeRun, Requests, Range, Span };
    Kind kind = Kind::Requests;
    std::string range;  // Kind::Range: the NVTX range's name
    // Kind::Span: from and to, counted from the run's first record (RunAggregates::firstNs).
    std::int64_t fromNs = 0, toNs = 0;
    bool operator==(const WindowChoice&) const = default;
};

// "run", "requests", "range:NAME" or "FROM:TO" (times from the run's start
// with a unit, ns, us, ms or s; ms when none: "1.2s:1.5s", "1200:1500");
// std::invalid_argument naming what is wrong otherwise.
WindowChoice parseWindowChoice(const std::string& spec);
std::string toSpec(const WindowChoice& choice);

struct ResolvedWindow {
    WindowChoice choice;
    TimeWindow span;
    std::string label;  // "while requests were served (12.4 ms)"
};

// The span the choice stands for in this run. A run without requests
// resolves "requests" to the whole run and says so; a range the run does not
// have throws std::invalid_argument with the run and the range named, unless
// `fallBack`, which resolves it to the whole run with the reason in the label.
ResolvedWindow resolveWindow(Store& store, RunId run, const WindowChoice& choice,
                             bool fallBack = false);

}  // namespace ws
