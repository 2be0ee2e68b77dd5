// Runs made up for layout tests, written through the real store writer: each
// with timed requests and tokens, six kernels (two with cuBLAS-length names)
// on an H200, decoder phases and a declared kernel rung for the roofline.
#pragma once

#include <string>
#include <vector>

#include "model/records.h"

namespace ws::testing {

// Writes `count` runs into the store at `path` (created if missing); their
// labels are long and alike, as variants of one model are.
std::vector<RunId> writeSyntheticRuns(const std::string& path, int count);

}  // namespace ws::testing
