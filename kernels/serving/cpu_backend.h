// A backend without a GPU, for the HTTP layer's tests, the load client's
// tests and anyone without a GPU: tokens come from a deterministic rule, at a
// configurable pace.
//
// It keeps a real paged "KV cache": one slot per position in a pool of
// num_blocks x block_size, written and read through each sequence's block
// table. The next token is a function of every token in the sequence so far
// (read back through the table, as attention would) and, for temperature > 0,
// of the request's seed and the output index: so an output does not depend on
// what else is batched with it, survives preemption and recompute unchanged,
// and a block-table mix-up shows up as a different output.
//
// Token rule: the byte tokenizer's vocabulary, of which the candidates are
// the printable ASCII bytes 32-126 and EOS. Each candidate gets a logit in
// [0, 8) from a hash of (the sequence's tokens, the candidate); temperature 0
// takes the argmax (greedy), temperature T > 0 samples softmax(logit / T) with
// a generator seeded by (seed, output index).
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "serving/backend.h"

namespace ws::serving {

// Time one step takes: base + per scheduled sequence + per prefill token.
struct CpuPace {
    std::chrono::microseconds step{500};
    std::chrono::microseconds perSeq{20};
    std::chrono::microseconds perPrefillToken{1};
};

class CpuBackend : public Backend {
  public:
    explicit CpuBackend(CpuPace pace = {});

    std::string name() const override { return "cpu"; }
    int vocabSize() const override;
    TokenId eosToken() const override;
    void prepare(const EngineConfig& config) override;
    std::vector<TokenId> execute(const StepPlan& plan) override;

    // The rule alone, on a sequence's tokens: what execute() returns for a
    // sequence holding `tokens` (tests compare against it).
    static TokenId nextToken(const std::vector<TokenId>& tokens, double temperature,
                             std::uint64_t seed, int outputIndex);

  private:
    static TokenId pick(std::uint64_t history, double temperature, std::uint64_t seed,
                        int outputIndex);

    CpuPace pace_;
    int blockSize_ = 0;
    std::vector<TokenId> kv_;  // slot = block * block_size + position % block_size
};

}  // namespace ws::serving
