// A served run's engine steps by kind (docs/serving.md names the fields):
// decode-only steps, mixed steps (prefill chunks beside decodes) and
// prefill-only steps, each with its step times, batch, tokens and the kernels
// that ran inside it, so the kernel table can be read for one kind at a time.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/itl_outliers.h"
#include "analysis/kernel_summary.h"

namespace ws {

class Store;

enum class StepKind { Decode, Mixed, Prefill, Other };

// Other: a step that names no tokens (a server whose ranges carry no counts).
StepKind stepKind(const EngineStep& step);
const char* stepKindName(StepKind kind);  // "decode", "mixed", "prefill", "other"
std::optional<StepKind> parseStepKind(std::string_view name);

struct StepKindSummary {
    StepKind kind = StepKind::Other;
    DurationStats stepTime;  // count = steps of this kind
    double meanRunning = 0;
    std::int64_t prefillTokens = 0;
    std::int64_t decodeTokens = 0;
    double kernelNs = 0;              // kernels starting inside these steps
    double gpuBusyFraction = 0;       // union of those kernels over the steps' time
    std::vector<KernelStat> kernels;  // those kernels by name, largest first
};

// Why a run has no engine.step ranges, and what to do, in one sentence: a
// server recorded with `bench serve --server` on a machine without a CUDA
// driver (no capture, so no ranges), one recorded with a capture whose
// engine emits none, or a run that recorded no server at all.
std::string whyNoEngineSteps(Store& store, RunId run);

struct EngineStepSummary {
    std::size_t steps = 0;
    std::vector<StepKindSummary> kinds;  // decode, mixed, prefill, other; only those present
};

// The run's engine.step ranges as steps, in the store's order.
std::vector<EngineStep> engineStepsOf(Store& store, RunId run);

EngineStepSummary summarizeEngineSteps(std::vector<EngineStep> steps,
                                       const std::vector<KernelRecord>& kernels);
EngineStepSummary summarizeEngineSteps(Store& store, RunId run);
// The same for steps already read (engineStepsOf), the kernels streamed.
EngineStepSummary summarizeEngineSteps(Store& store, RunId run, std::vector<EngineStep> steps);

}  // namespace ws
