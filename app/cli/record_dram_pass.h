// `record --metrics roofline`: the second recording that gives the run DRAM
// bytes counted in one replay pass (record/dram_pass.h says why).
#pragma once

#include <functional>
#include <string>

#include "cli/progress_output.h"
#include "record/recorder.h"

namespace ws::cli {

// Whether a counter set takes several replay passes and counts DRAM bytes:
// "roofline", or a list naming a DRAM byte count beside other counters.
bool needsDramPass(const std::string& metricSpec);

// Records `request`'s program again into a scratch store with the one-pass
// DRAM set and gives run `run` its DRAM bytes, when both recordings launched
// the same kernels. Says where the run's DRAM bytes come from in the run's
// property capture.dram_source, its log and a note. `setActive` learns the
// recorder a cancel must reach while the pass runs.
void recordDramPass(RecordRequest request, RunId run, ProgressMode mode,
                    const std::function<void(Recorder*)>& setActive);

}  // namespace ws::cli
