// The serving engine's vocabulary: token and sequence ids, how a request is
// sampled, and why it ended. Plain C++, shared by the scheduler, the
// backends (CPU now, the GPU decoder later) and the HTTP front.
#pragma once

#include <cstdint>
#include <optional>

namespace ws::serving {

using TokenId = std::int32_t;
using SeqId = std::int64_t;

struct SamplingParams {
    int maxTokens = 16;        // output tokens, the final EOS included
    bool ignoreEos = false;    // keep generating after EOS (benchmarks' fixed lengths)
    double temperature = 1.0;  // 0: greedy (argmax), deterministic
    // Seeds the sampler of this request alone: the same seed gives the same
    // output whatever else is batched with it. The engine draws one when absent.
    std::optional<std::uint64_t> seed;
};

enum class FinishReason {
    Stop,    // EOS sampled (and not ignored)
    Length,  // max_tokens (or the model's context) reached
    Abort,   // the client went away, or the server shut down before the end
};

const char* toString(FinishReason reason);

}  // namespace ws::serving
