// bench serve's parsed settings and its report, shared by the plain load
// (bench_command.cpp) and the load joined with a capture (bench_server.cpp:
// --server starts the server under capture, --attach joins a recording).
#pragma once

#include <signal.h>

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <utility>
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
    std::optional<std::string> saveResult;  // --save-result's file (vLLM's name unless given)
    // vLLM's file name for a model named later (bench serve --server without
    // --model: the server says which once it answers); empty otherwise.
    std::function<std::string(const std::string& modelId)> resultPathFor;
    bool appendResult = false;  // --append-result: appended as a line
    std::string modelId;        // --model (the result's model_id)
    std::string label;          // --label, else the backend as given
    std::vector<std::pair<std::string, std::string>> metadata;  // --metadata KEY=VALUE...
    std::optional<std::string> percentileMetrics;  // --percentile-metrics ttft,tpot,itl,e2el
    std::optional<std::string> metricPercentiles;  // --metric-percentiles 50,99
    // --num-prompts N1,N2,... with --sweep: the requests of each point, in
    // order (options.numPrompts holds the largest, for the dataset).
    std::vector<int> pointPrompts;
};

// While it lives, SIGINT and SIGTERM set flag() (a load given it as its stop
// keeps what was measured); the previous handlers are back when it ends.
class StopOnSignals {
  public:
    StopOnSignals();
    ~StopOnSignals();
    StopOnSignals(const StopOnSignals&) = delete;
    StopOnSignals& operator=(const StopOnSignals&) = delete;
    const std::atomic<bool>& flag() const;

  private:
    struct sigaction oldInt_ {
    }, oldTerm_{};
};

// --sweep PARAM=V1,V2,...: the parameter and its values, checked.
struct SweepSpec {
    std::string parameter;  // max-concurrency | request-rate
    std::vector<std::string> values;
    int gpus = 1;
};
SweepSpec parseSweep(const std::string& text, const Args& args);
// Each value as its own run, one sweep group (analysis/sweep.h); prints a line
// per point and the sweep's table. Ctrl-C ends the sweep keeping the points run.
// With --server (`server` set), each point starts the server under capture
// anew: a run holds one server's capture.
int benchSweep(BenchServe& bench, const SweepSpec& sweep, const Args* server = nullptr);

// --save-result: vLLM's result JSON of a stored run at `path`.
void saveVllmResult(const BenchServe& bench, RunId run, const ServeLoadResult& result,
                    const std::string& path);
// --save-result FILE of one sweep point: FILE with "-PARAMETER-VALUE" before
// its extension (result.json -> result-max-concurrency-4.json).
std::string sweepResultPath(const std::string& path, const std::string& parameter,
                            const std::string& value);

// Prints what the run stored (the count line, then what `stats` prints) and
// writes --save-result; returns the exit code the load alone gives.
int reportBenchRun(const BenchServe& bench, RunId run, const ServeLoadResult& result);

// --server -- CMD ARGS...: the server started under capture, one run. With
// `point` (a sweep's), what the run measured is handed back there instead of
// printed, and --save-result is taken as the point's own file.
struct ServedPoint {
    RunId run = 0;
    ServeLoadResult load;
    bool interrupted = false;  // SIGINT/SIGTERM while the point ran
};
int benchWithServer(const BenchServe& bench, const Args& args, ServedPoint* point = nullptr);
// --attach RUN: the client's requests and tokens added to a run that another
// `warpscope-cli record` is recording in the same store.
int benchAttach(const BenchServe& bench, RunId run);

}  // namespace ws::cli
