// Writes a run's tables as CSV or JSON, streaming row by row.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "model/records.h"

namespace ws {

class Store;

enum class RunTable {
    Kernels,
    Memcpys,
    Memsets,
    ApiCalls,
    Ranges,
    Requests,
    Tokens,
    Samples,
    Metrics
};

const std::vector<std::string>& runTableNames();
std::optional<RunTable> runTableFromString(const std::string& name);

// One table as CSV with a header row (RFC 4180 quoting).
void exportRunCsv(Store& store, RunId id, RunTable table, std::ostream& out);
// The whole run as one JSON object: metadata, device, workload, aggregates and
// every table as an array of objects.
void exportRunJson(Store& store, RunId id, std::ostream& out);
// The runs list as `warpscope-cli ls --json` prints it.
void writeRunListJson(const std::vector<RunInfo>& runs, std::ostream& out);

}  // namespace ws
