// Where one kernel's warps stall (record --pc-sampling) as an HTML fragment
// for the kernel details panel: a bar of stall reasons by share of samples,
// each reason with what the warp waits for, and the hottest source lines (or
// instructions, for code built without -lineinfo) with their SASS text, as
// Nsight Compute's Source view ranks them.
#pragma once

#include <QString>
#include <cstdint>
#include <string>

#include "analysis/pc_sample_summary.h"

namespace ws::ui {

// periodLog2: a sample every 2^periodLog2 cycles per SM; 0 when unknown.
// cost: what sampling cost the run (samplerCostText); "" leaves it out.
QString kernelStallsHtml(const KernelStalls& stalls, std::uint32_t periodLog2,
                         const std::string& cost = {});

}  // namespace ws::ui
