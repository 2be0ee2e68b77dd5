// What every importer shares: errors that name the file and the field, and a
// run that appears in the store whole or not at all.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/records.h"

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

// Ties the runs of one imported file into a sweep group (the sweep.*
// properties bench serve --sweep writes), the points in the file's order:
// `parameter` is max-concurrency or request-rate, `values` one per run ("4",
// "inf"). Returns the group's name, made unique in the store from `name`.
std::string markImportedSweep(Store& store, const std::vector<RunId>& runs, const std::string& name,
                              const std::string& parameter, const std::vector<std::string>& values);

}  // namespace ws

namespace ws {

// Sets RangeRecord::depth of push/pop ranges from how they nest on each
// thread (traces from other tools keep no depth). Sorts `ranges` by thread and
// start time.
void assignNestingDepth(std::vector<RangeRecord>& ranges);

}  // namespace ws
