// The tables Nsight Systems users read beside the kernel summary (nsys stats'
// nvtx_sum, cuda_api_sum, cuda_gpu_mem_time_sum), a row per item and run,
// and the per-kernel diff of each run against the first (the baseline).
#pragma once

#include <vector>

#include "analysis/run_analysis.h"
#include "viewmodels/summary_table_model.h"

namespace ws::ui {

SummaryTable rangeTable(const std::vector<RunAnalysis>& runs);
SummaryTable apiTable(const std::vector<RunAnalysis>& runs);
SummaryTable memcpyTable(const std::vector<RunAnalysis>& runs);
// Every kernel of each later run against the first run: launches, total and
// per-launch time in both, the change with its 95% interval and verdict
// (the figures of `compare` and the comparison chart).
SummaryTable kernelDiffTable(const std::vector<RunAnalysis>& runs);

}  // namespace ws::ui
