// The subcommands of warpscope-workload, the built-in workload runner that
// warpscope-cli record launches with the capture library injected.
#pragma once

#include <string>

#include "config/workload_config.h"

namespace ws::workload {

int benchCommand(bool quick);
int runDecoderWorkload(const WorkloadConfig& config);

}  // namespace ws::workload
