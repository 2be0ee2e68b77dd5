// A sweep group's table as `warpscope-cli sweep GROUP` and `bench serve
// --sweep` print it, and as JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "analysis/sweep.h"

namespace ws::cli {

void printSweepTable(std::ostream& out, const SweepTable& table);
nlohmann::ordered_json sweepTableJson(const SweepTable& table);

}  // namespace ws::cli
