// The serving engine's limits: how many sequences run at once, how many
// tokens one step computes, the KV pool, the context length and the queue.
#pragma once

namespace ws::serving {

struct EngineConfig {
    int maxNumSeqs = 64;             // sequences in one step (running)
    int maxNumBatchedTokens = 2048;  // tokens computed in one step: prefill chunks + decodes
    int blockSize = 16;              // token positions per KV block
    int numBlocks = 4096;            // KV blocks in the pool
    int maxModelLen = 4096;          // prompt + output tokens of one sequence
    int maxWaiting = 1024;           // requests admitted to the queue, not yet running
    bool chunkedPrefill = true;      // split a prompt over steps when the budget is short

    // Throws std::invalid_argument naming the field when the limits cannot
    // work together (a sequence that never fits the pool, a step budget
    // smaller than one token per running sequence, ...).
    void validate() const;
};

}  // namespace ws::serving
