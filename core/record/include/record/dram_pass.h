// A counter set that takes several kernel-replay passes counts the replay's
// own memory traffic in its DRAM bytes: CUPTI saves the memory a kernel may
// write before the first pass and restores it before each further one, and
// the dirty lines that leaves in L2 are written back while the kernel is
// measured (+23-25 MB written per launch on the H200, against Nsight
// Compute's 0.02-0.3 MB). DRAM bytes alone take one pass, with no save or
// restore. So `record --metrics roofline` records the program a second time
// with the one-pass DRAM set, as Nsight Compute's application replay does,
// and the first run's kernels take those bytes, matched launch by launch.
#pragma once

#include <cstdint>
#include <string>

#include "model/records.h"

namespace ws {

class Store;

struct DramMerge {
    std::int64_t kernels = 0;  // kernels whose DRAM bytes were replaced
    std::string problem;       // why nothing was replaced; empty when it was
    bool merged() const { return problem.empty(); }
};

// The kernels with DRAM read and write counts in `run` (of `target`) and in
// `passRun` (of `pass`), each in launch order, must be the same kernels in
// the same order (names compared): then every one of `run`'s takes the
// pass's bytes, in one transaction. Otherwise nothing changes and `problem`
// says where the two runs part.
DramMerge mergeDramBytes(Store& target, RunId run, Store& pass, RunId passRun);

}  // namespace ws
