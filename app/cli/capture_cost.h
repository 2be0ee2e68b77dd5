// record's capture-cost estimate for a finished run: the calibration of what
// tracing adds per launch (analysis/capture_cost.h), run here or read from a
// cache per GPU, driver, Warpscope version and capture options, so only the
// first recording of its kind on a machine pays for it (about 10 s: bare
// launches and launches after state-reading calls, 3 rounds each).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "record/recorder.h"

namespace ws::cli {

// For a run that launched kernels: calibrates or reads the cache, stores the
// capture.* cost properties with the run and returns the statement for the
// user. Nothing when the run had no kernels or no device, or the calibration
// could not run (no warpscope-workload, no GPU); that is said on stderr.
// `programNs`: the program's own wall time, start to exit (the recorder's
// elapsed time; the run's stored duration also holds the storing after it).
std::optional<std::string> storeCaptureCost(const RecordRequest& like, RunId run,
                                            std::int64_t kernels, std::int64_t programNs);

}  // namespace ws::cli
