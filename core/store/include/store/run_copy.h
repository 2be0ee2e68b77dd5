// Copies one run, everything it recorded, from one store file into another:
// a run bundle is written and read with it (io/run_bundle.h).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "model/records.h"

namespace ws {

class Store;

// Copies run `run` of the store file at `fromPath` into `to` as a new run:
// new run id, the workload and device found or added, strings interned anew
// (event chunks re-encoded against `to`'s string ids, in their own format),
// every other table with a run_id column copied row for row. One
// transaction: on any failure `to` is left as it was. Refuses a run still
// being recorded. Both stores must be at the same schema version (open the
// source as a Store first, which migrates it). `addProperties` are set on the
// new run in the same transaction. Returns the new run's id.
RunId copyRun(const std::string& fromPath, RunId run, Store& to,
              const std::vector<std::pair<std::string, std::string>>& addProperties = {});

}  // namespace ws
