// Iteration-level (continuous) batching over a paged KV cache, as vLLM's
// scheduler does it. Each step:
//  1. running sequences, in admission order, get their next tokens: one
//     decode token, or the next prefill chunk, within the step's token budget
//     (max_num_batched_tokens). When the pool has no block for one, the most
//     recently admitted running sequence is preempted: its blocks are freed,
//     it goes back to the front of the queue and later recomputes its prompt
//     and output so far as a prefill (preemption by recompute);
//  2. when nobody was preempted, waiting sequences are admitted, oldest
//     first, while fewer than max_num_seqs run, the budget lasts and the pool
//     has their blocks; a prompt longer than the budget is split over steps
//     (chunked prefill).
// A sequence that finishes (EOS, max_tokens) leaves in update() and frees its
// blocks at once. Plain C++, single-threaded: the engine's loop owns it.
#pragma once

#include <deque>
#include <unordered_map>
#include <vector>

#include "serving/block_manager.h"
#include "serving/engine_config.h"
#include "serving/step_plan.h"
#include "serving/types.h"

namespace ws::serving {

struct Sequence {
    SeqId id = 0;
    std::vector<TokenId> tokens;  // the prompt, then the output so far
    int promptLen = 0;
    int numComputed = 0;  // leading positions whose KV is in the cache
    int prefillEnd = 0;   // positions computed as prefill since the last admission
    BlockTable blocks;
    SamplingParams sampling;
    std::uint64_t seed = 0;  // sampling.seed, or one drawn when the request had none
    bool running = false;
    int preemptions = 0;

    int outputLen() const { return static_cast<int>(tokens.size()) - promptLen; }
};

// What one step did to one sequence: the token it sampled, and whether it is done.
struct SeqUpdate {
    SeqId seq = 0;
    TokenId token = 0;
    bool finished = false;
    FinishReason reason = FinishReason::Length;
};

class Scheduler {
  public:
    Scheduler(const EngineConfig& config, TokenId eosToken);

    // Queues a request at the back. The caller checked it fits: a non-empty
    // prompt, prompt + max_tokens <= max_model_len.
    void add(SeqId id, std::vector<TokenId> prompt, const SamplingParams& sampling,
             std::uint64_t seed);
    // Removes a waiting or running sequence and frees its blocks; false when
    // it is not here (finished already).
    bool abort(SeqId id);

    StepPlan schedule();
    // Applies the backend's sampled tokens (one per plan entry with `sample`,
    // in plan order). Finished sequences leave and free their blocks.
    std::vector<SeqUpdate> update(const StepPlan& plan, const std::vector<TokenId>& sampled);

    int numWaiting() const { return static_cast<int>(waiting_.size()); }
    int numRunning() const { return static_cast<int>(running_.size()); }
    bool idle() const { return seqs_.empty(); }
    std::int64_t preemptionsTotal() const { return preemptionsTotal_; }
    const BlockManager& blocks() const { return blocks_; }
    const Sequence* find(SeqId id) const;
    const std::vector<SeqId>& running() const { return running_; }
    const std::deque<SeqId>& waiting() const { return waiting_; }

  private:
    void preempt(Sequence& s);
    ScheduledSeq entry(const Sequence& s, int count) const;
    void finish(Sequence& s);

    EngineConfig config_;
    TokenId eos_;
    BlockManager blocks_;
    std::unordered_map<SeqId, Sequence> seqs_;
    std::deque<SeqId> waiting_;   // front: next to admit
    std::vector<SeqId> running_;  // admission order
    std::int64_t step_ = 0;
    std::int64_t preemptionsTotal_ = 0;
};

}  // namespace ws::serving
