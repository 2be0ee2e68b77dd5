// What every importer shares: errors that name the file and the field, and a
// run that appears in the store whole or not at all.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "model/records.h"
#include "store/store.h"

namespace ws {

class Store;
class StoreWriter;
struct NewRun;

struct ImportResult {
    RunId run = 0;              // the first (or only) run made
    std::string format;         // e.g. "vLLM benchmark result"
    std::int64_t requests = 0;  // requests with token times (0 for traces without tokens)
    std::int64_t kernels = 0;
    std::int64_t events = 0;  // every record written
    std::vector<RunId> runs;  // every run, for a file of several (a sweep's points)
    std::string sweepGroup;   // their sweep group, when there are several
};

// Throws std::runtime_error "<path>: <field>: <why>; nothing was imported".
[[noreturn]] void importError(const std::string& path, const std::string& field,
                              const std::string& why);

// Begins the run, lets `fill` add its records, applies the NVTX conventions
// (ws.property, ws.quality, ws.request, ws.token) to the ranges it wrote, and
// finishes the run as ok at `endedAtNs` (0: the end of its last record). Any
// exception deletes the run and propagates. Returns the run and the number of
// records written.
struct ImportedRun {
    RunId run = 0;
    std::int64_t records = 0;
    std::int64_t requests = 0;
    std::int64_t tokens = 0;
};
ImportedRun storeImportedRun(Store& store, const NewRun& run,
                             const std::function<void(RunId, StoreWriter&)>& fill,
                             std::int64_t endedAtNs = 0);

// A run a benchmark client's file describes, read and checked whole before
// the store is touched.
struct PreparedRun {
    NewRun run;
    std::vector<RequestRecord> requests;
    std::vector<TokenRecord> tokens;
    std::vector<std::pair<std::string, std::string>> properties;
    std::string log;
    std::int64_t endedAtNs = 0;
    std::string sweepValue;  // this run's point when the file is a sweep ("4", "inf")
};

// Stores the runs in one transaction (all or none) and, with `sweepParameter`
// (max-concurrency or request-rate) and more than one run, ties them into a
// sweep group named after `sweepName`, as bench serve --sweep does (the
// sweep.* properties), the points ordered by their value.
ImportResult storePreparedRuns(Store& store, const std::string& format,
                               const std::vector<PreparedRun>& runs,
                               const std::string& sweepName = "",
                               const std::string& sweepParameter = "");

}  // namespace ws

namespace ws {

// Sets RangeRecord::depth of push/pop ranges from how they nest on each
// thread (traces from other tools keep no depth). Sorts `ranges` by thread and
// start time.
void assignNestingDepth(std::vector<RangeRecord>& ranges);

}  // namespace ws
