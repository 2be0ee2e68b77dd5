// The engines' own step annotations in their torch.profiler traces, read as
// Warpscope's engine.step ranges (docs/serving.md), so `steps`, `outliers`
// and the speed-of-light analyses work on an imported vLLM or SGLang trace:
//
//  - vLLM (Worker.annotate_profile, 0.14+):
//    execute_context_{Nc}({Qc})_generation_{Ng}({Qg}), and with
//    --profiler-config.detailed_trace_annotation (0.26+)
//    execute_{T}_context_{Nc}(sq{..}sk{..}sqsq{..}sqsk{..})_generation_{Ng}(…):
//    context requests (new and chunked prefills) and generation requests, the
//    tokens each schedules (sq), their KV lengths (sk) and Σq², Σq·k;
//  - SGLang (model_runner's step span): step[EXTEND bs=N toks=T],
//    step[DECODE bs=N], step[MIXED bs=N], with roofline annotations the
//    c=/g= counts and c_sq, c_sk, c_sqsq, c_sqsk (g_… for decodes).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ws {

struct EngineStepAnnotation {
    std::string engine;  // "vLLM", "SGLang"
    int running = 0;     // requests scheduled in the step
    int prefillSeqs = -1, prefillTokens = -1, decodeSeqs = -1, decodeTokens = -1;
    // From the detailed forms only: KV positions read (Σ context) and
    // (query, key) pairs scored, Σ (q·k − q(q−1)/2) over the requests.
    std::int64_t kvReadTokens = -1, attentionPairs = -1;
};

// The step an annotation's name describes, or nothing for any other name.
std::optional<EngineStepAnnotation> parseEngineStepAnnotation(std::string_view name);

// The engine.step range name for a step: "engine.step:<index>;running=…;…"
// with the fields the annotation gave.
std::string engineStepRangeName(const EngineStepAnnotation& step, std::int64_t index);

}  // namespace ws
