// bench serve's parsed settings and its report, shared by the plain load
// (bench_command.cpp) and the load joined with a capture (bench_server.cpp:
// --server starts the server under capture, --attach joins a recording).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/latency.h"
#include "cli/cli_args.h"
#include "record/serve_load.h"

namespace ws::cli {

struct BenchServe {
    ServeLoadOptions options;
    LatencyTargets targets;
    std::optional<std::string> goodput;
    ServeRunInfo info;
    std::string storePath;
    std::optional<std::string> saveResult;
};

// Prints what the run stored (the count line, then what `stats` prints) and
// writes --save-result; returns the exit code the load alone gives.
int reportBenchRun(const BenchServe& bench, RunId run, const ServeLoadResult& result);

// --server -- CMD ARGS...: the server started under capture, one run.
int benchWithServer(const BenchServe& bench, const Args& args);
// --attach RUN: the client's requests and tokens added to a run that another
// `warpscope-cli record` is recording in the same store.
int benchAttach(const BenchServe& bench, RunId run);

}  // namespace ws::cli
