// Decode steps told from the tokens (the interval between two tokens of a
// request), each set against its speed-of-light floor, and where the time
// above it goes: kernels by class, launch gaps inside the step (the GPU idle
// between its first and last kernel), and host time (before the step's first
// kernel and after its last). For runs that mark tokens but have no engine
// steps: the built-in decoder, a PyTorch generate() loop.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/kernel_classes.h"
#include "analysis/whatif.h"

namespace ws {

// What one decode step must move at least, and how fast it can: the floor is
// bytes / bandwidth (decode is memory-bound; FLOPs are far below the roof).
struct StepFloor {
    double bytes = 0;
    double bandwidthGbs = 0;
    double ns() const { return bandwidthGbs > 0 ? bytes / bandwidthGbs : 0; }
};

// From the run's properties (docs/token-conventions.md): decoder.decode_step_bytes
// and ceiling.copy_gbs; nothing when either is missing.
std::optional<StepFloor> declaredStepFloor(const std::map<std::string, std::string>& properties);

// What one prompt round must do at least: its linear layers' FLOPs at the
// tensor peak, or the weights read once at the copy bandwidth, whichever is
// longer (prefill is compute-bound at a few hundred tokens; attention's
// FLOPs, a few % of the total at 512 tokens, are left out).
struct PrefillFloor {
    double flops = 0, tflops = 0;
    double weightBytes = 0, bandwidthGbs = 0;
    double ns() const {
        return std::max(tflops > 0 ? flops / (tflops * 1e3) : 0,
                        bandwidthGbs > 0 ? weightBytes / bandwidthGbs : 0);
    }
};

// From decoder.prefill_flops (one round of `batch` prompts) and
// ceiling.bf16_tflops; model.weight_bytes and ceiling.copy_gbs where
// declared. Nothing without the first two.
std::optional<PrefillFloor> declaredPrefillFloor(
    const std::map<std::string, std::string>& properties);

struct TokenStepReport {
    int steps = 0;
    double meanNs = 0, p50Ns = 0, p99Ns = 0;  // step durations
    std::optional<StepFloor> floor;
    // Per step, mean over the steps: kernel time by class, GPU idle between
    // the step's first and last kernel, and time outside both.
    std::map<KernelClass, double> kernelNs;
    double launchGapNs = 0;
    double hostNs = 0;
    double solPercent(double stepNs) const {
        return floor && stepNs > 0 ? 100 * floor->ns() / stepNs : 0;
    }
    // Prefill: each request's arrival to its first token (a batch's prompts
    // are one round, each with the round's time) against the round's floor.
    int prefills = 0;
    double ttftMeanNs = 0;
    std::optional<PrefillFloor> prefillFloor;
    double prefillSolPercent() const {
        return prefillFloor && ttftMeanNs > 0 ? 100 * prefillFloor->ns() / ttftMeanNs : 0;
    }
};

// A step's span on the timeline, and where its time went: GPU time by kernel
// class (the ops starting inside it, clipped to it; an op running past the
// step's end counts in the next step for the part inside that one), launch
// gaps (the GPU idle between the step's first and last op) and host time
// (before its first op and after its last).
struct StepSpan {
    std::int64_t beginNs = 0, endNs = 0;
};
struct StepTimeParts {
    std::map<KernelClass, double> kernelNs;
    double launchGapNs = 0;
    double hostNs = 0;
};
// `steps` sorted by begin and not overlapping; one StepTimeParts per step.
std::vector<StepTimeParts> stepTimeParts(const WhatIfRun& run, const std::vector<StepSpan>& steps);

// Steps: intervals between consecutive tokens of each request; one that
// overlaps a step already taken by more than half (another request's token of
// the same batched step) is not counted again.
TokenStepReport tokenSteps(const WhatIfRun& run, std::optional<StepFloor> floor,
                           std::optional<PrefillFloor> prefillFloor = std::nullopt);

}  // namespace ws
