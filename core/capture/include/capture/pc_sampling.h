// Where kernels stall, for `warpscope-cli record --pc-sampling`: CUPTI's PC
// sampling in continuous mode, enabled in every context as it is created.
// Each SM samples one warp every 2^period cycles and notes its program
// counter and why it is not issuing; nothing is replayed or serialized.
// Samples are summed per instruction and stall reason while the program runs
// and sent at its end with each instruction's source line, where the cubin
// carries line information (nvcc -lineinfo). A killed program sends none.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "model/records.h"

namespace ws::capture {

struct PcSamplingSink {
    // The records of one instruction (one per stall reason seen there).
    std::function<void(const std::vector<PcSampleRecord>&)> instruction;
    std::function<void(const PcSamplingTotals&)> totals;
    std::function<void(const std::string&)> warn;
};

// Starts when WARPSCOPE_PC_SAMPLING is set (its value: the period's log2 in
// cycles, 5..31, or 0 for CUPTI's default). Returns false, with the reason
// through warn, when it cannot.
bool startPcSampling(PcSamplingSink sink);

// Collects what every context sampled, disables sampling and hands the
// records to the sink (at exit).
void finishPcSampling();

}  // namespace ws::capture
