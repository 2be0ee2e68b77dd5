// Kernel workloads: one ladder at one shape, every rung (or the one asked for)
// verified against the CPU reference, then timed with L2-defeating input
// rotation, under NVTX ranges that name the rung and its declared cost.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/workload_config.h"
#include "ladders/ladder.h"

namespace ws::workload {

struct RungResult {
    std::string rung;
    double medianMs = 0, minMs = 0;
    // Per launch when the timed launches are replayed from one CUDA graph; 0
    // when not measured (slow rungs) or not capturable.
    double graphMs = 0;
    kernels::KernelCost cost;
    kernels::ref::Agreement agreement;
    bool verified = false;
    double tflops() const { return cost.flops / (medianMs * 1e-3) / 1e12; }
    double gbs() const { return cost.bytes / (medianMs * 1e-3) / 1e9; }
    double graphGbs() const { return graphMs > 0 ? cost.bytes / (graphMs * 1e-3) / 1e9 : 0; }
};

struct LadderResult {
    std::string kernel;
    kernels::Shape shape;
    std::string baseline;
    std::vector<RungResult> rungs;
    const RungResult* find(const std::string& rung) const;
};

// Runs `rungs` (all when empty) of `kernel`; throws on a CUDA error or an
// unknown kernel, rung or shape key.
LadderResult runLadder(const std::string& kernel, const kernels::Shape& shape,
                       std::vector<std::string> rungs, int warmup, int iterations, bool annotate);

// `warpscope-workload run` for a kernel config; prints the table. Returns
// the exit code (1 when a rung fails verification).
int runKernelWorkload(const WorkloadConfig& config);

void printLadder(const LadderResult& r, double copyGBs);

}  // namespace ws::workload
