// Sweep tables made up for chart tests: point i (from 1) serves
// tokensBase·i tok/s over 2 GPUs at TPOT 10·i / 12·i ms and TTFT 100·i /
// 150·i ms (p50 / p99).
#pragma once

#include <string>
#include <vector>

#include "analysis/sweep.h"

namespace ws::testing {

SweepTable sweep(const std::string& name, const std::string& parameter,
                 const std::vector<std::string>& values, double tokensBase);

}  // namespace ws::testing
