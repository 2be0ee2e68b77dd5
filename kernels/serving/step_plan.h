// One engine step as the scheduler decided it: what each scheduled sequence
// computes (a prefill chunk or one decode token), where its KV lives (its
// block table), and whether the step samples its next token. A backend runs
// the plan and returns the sampled tokens; the step's statistics are what the
// GPU backend emits as the NVTX range `engine.step`.
#pragma once

#include <cstdint>
#include <vector>

#include "serving/block_manager.h"
#include "serving/types.h"

namespace ws::serving {

struct ScheduledSeq {
    SeqId seq = 0;
    int start = 0;                // first position computed this step
    std::vector<TokenId> tokens;  // the tokens at positions start, start + 1, ...
    bool prefill = false;         // part of a (re)prefill; else one decode token
    bool sample = false;          // the chunk reaches the sequence's end: sample the next token
    BlockTable blocks;            // covers positions [0, start + tokens.size())
    // Sampling of the token this step yields (when `sample`).
    double temperature = 0;
    std::uint64_t seed = 0;
    int outputIndex = 0;  // which output token it is (0: the first)

    int end() const { return start + static_cast<int>(tokens.size()); }
};

struct StepStats {
    std::int64_t step = 0;  // 0, 1, 2, ... per engine
    int running = 0;        // sequences holding KV blocks after scheduling
    int waiting = 0;        // queued (new or preempted), not scheduled
    int prefillSeqs = 0;    // scheduled sequences computing a prefill chunk
    int prefillTokens = 0;
    int decodeSeqs = 0;  // scheduled sequences decoding one token
    int decodeTokens = 0;
    int kvBlocksUsed = 0;  // after this step's allocations
    int kvBlocksTotal = 0;
    int preemptions = 0;  // sequences preempted (blocks freed, to recompute) this step
    std::int64_t preemptionsTotal = 0;
    // What the step's attention must touch, for its speed-of-light floor:
    // the KV positions it reads at least once (each scheduled sequence's
    // whole context, this step's own tokens included) and the (query, key)
    // pairs it scores (causal: a token at position p attends to p + 1 keys).
    std::int64_t kvReadTokens = 0;
    std::int64_t attentionPairs = 0;
};

struct StepPlan {
    std::vector<ScheduledSeq> seqs;  // running ones first (in admission order), then new ones
    StepStats stats;

    int numSampled() const {
        int n = 0;
        for (const auto& s : seqs)
            n += s.sample ? 1 : 0;
        return n;
    }
    bool empty() const { return seqs.empty(); }
};

}  // namespace ws::serving
