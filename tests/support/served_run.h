// A served run as `bench serve --server` stores it, small enough to check by
// hand: one request's 20 tokens, each delivered 50 µs after its engine step
// ends; decode steps of 1 ms running 4 requests (4 decode tokens, 0.8 ms of
// kernels from 0.1 ms in) and, as step 10, a 9 ms mixed step that prefilled
// 512 prompt tokens beside 3 decodes (0.8 ms of kernels too). So 19 ITLs: 18
// of 1 ms and one of 9 ms (8.95 ms of prefill, then 50 µs of the next step's
// launch). Each step names its attention work (contexts of 100 positions).
// With declareStepCosts the run also declares what a step costs
// (docs/serving.md, "Speed of light"): weights 4e5 bytes, 100 KV bytes a
// position, 1000 FLOPs a token and a pair, at 1 GB/s and 1 TFLOP/s; so a
// decode step's floor is 0.4 ms + 40.4 µs, the mixed step's 0.4 ms + 132.7 µs.
#pragma once

#include <string>

#include "model/records.h"

namespace ws::testing {

inline constexpr int kServedPrefillStep = 10;

RunId writeServedRun(const std::string& storePath, bool declareStepCosts = false);

}  // namespace ws::testing
