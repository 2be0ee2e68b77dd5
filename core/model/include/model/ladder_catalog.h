// The kernel ladders the built-in workload runs: each kernel's rungs
// (reference first, best last) and the shape keys it takes with their
// defaults. One table, read by the CUDA ladders (kernels/ladders) and by
// config validation, so `validate` without a GPU accepts exactly what runs.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ws {

struct LadderSpec {
    std::string kernel;                                       // "gemm_bf16"
    std::vector<std::string> rungs;                           // reference first
    std::string baseline;                                     // the library rung, if any
    std::vector<std::pair<std::string, std::int64_t>> shape;  // keys and defaults
};

const std::vector<LadderSpec>& ladderCatalog();
// nullptr for an unknown kernel.
const LadderSpec* findLadder(const std::string& kernel);

}  // namespace ws
