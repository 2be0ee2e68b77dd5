// A served run's engine steps against their speed-of-light floors (issue 47):
// each step's floor from what it must move and compute at the run's measured
// ceilings, SOL % by step kind, and where the serving time above the floors
// goes (kernels by class, launch gaps, host time inside and between steps,
// and how long decodes waited on prefill).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/engine_steps.h"
#include "analysis/kernel_classes.h"
#include "analysis/whatif.h"

namespace ws {

// What a step costs per unit of work, from the server's run properties
// (docs/serving.md, "Speed of light"): serve.step_weight_bytes,
// serve.kv_bytes_per_token, serve.matmul_flops_per_token,
// serve.attention_flops_per_pair, ceiling.copy_gbs and ceiling.bf16_tflops.
struct EngineStepCost {
    double weightBytes = 0;            // read once by every step
    double kvBytesPerToken = 0;        // all layers' K and V of one position
    double matmulFlopsPerToken = 0;    // the linear layers, LM head included
    double attentionFlopsPerPair = 0;  // one (query, key) pair, all layers and heads
    double copyGbs = 0;
    double tensorTflops = 0;
};
// Nothing when one of the six is missing or not a positive number.
std::optional<EngineStepCost> declaredEngineStepCost(
    const std::map<std::string, std::string>& properties);

// A step's floor in two parts that run one after the other: the linear
// layers (the weights once at the copy ceiling, or their FLOPs at the tensor
// peak, whichever is longer) and attention (the KV it reads and writes at the
// copy ceiling, or its FLOPs at the tensor peak). Nothing when the step's
// range does not name its attention work (kv_read_tokens, attention_pairs).
struct StepFloorNs {
    double matmul = 0, attention = 0;
    double total() const { return matmul + attention; }
};
std::optional<StepFloorNs> engineStepFloor(const EngineStep& step, const EngineStepCost& cost);

struct StepSolKind {
    std::string kind;  // decode, mixed, prefill, other, or "all"
    int steps = 0;
    double stepNs = 0, floorNs = 0;  // totals over the steps
    double solP50 = 0;               // per-step SOL %, median
    double solP1 = 0;                // per-step SOL %, the slowest 1 % of steps
    double solPercent() const { return stepNs > 0 ? 100 * floorNs / stepNs : 0; }
};

struct EngineStepSol {
    EngineStepCost cost;
    std::vector<StepSolKind> kinds;  // those present, in StepKind order, then "all"
    int stepsWithoutWork = 0;        // steps whose range names no attention work: left out

    // The serving window (first step's start to last step's end) and where
    // its time goes. The parts add up to the window where kernels do not
    // overlap (one stream); overlapping kernels count in each.
    double windowNs = 0;
    double floorMatmulNs = 0, floorAttentionNs = 0;
    std::map<KernelClass, double> kernelNs;  // GPU time inside the steps
    double launchGapNs = 0;                  // GPU idle between a step's first and last kernel
    double hostInStepsNs = 0;       // a step's time before its first kernel, after its last
    double hostBetweenStepsNs = 0;  // outside every step
    // Time the running decodes waited on prefill: a mixed step's time above
    // the median decode-only step of the same decode batch (the nearest batch
    // measured), and a prefill-only step's whole time while others were running.
    double prefillInterferenceNs = 0;
    double floorNs() const { return floorMatmulNs + floorAttentionNs; }
};

// The window's split as it reads, CLI and report alike: the floor, matmul and
// attention kernels above their floors, the other classes (largest first),
// launch gaps, host time inside and between steps.
struct SolPart {
    std::string what;
    double ns = 0;
};
std::vector<SolPart> windowParts(const EngineStepSol& sol);

// Nothing when no step names its attention work.
std::optional<EngineStepSol> engineStepSol(std::vector<EngineStep> steps, const WhatIfRun& run,
                                           const EngineStepCost& cost);

}  // namespace ws
