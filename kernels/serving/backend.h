// What runs an engine step. The engine, scheduler and HTTP front are the same
// for every backend; a backend owns the KV cache's memory (the block tables
// say where each position lives) and the model. CpuBackend produces tokens by
// a deterministic rule on the CPU; the GPU backend (the built-in decoder with
// paged attention) plugs in here too.
#pragma once

#include <string>
#include <vector>

#include "serving/engine_config.h"
#include "serving/step_plan.h"
#include "serving/types.h"

namespace ws::serving {

class Backend {
  public:
    virtual ~Backend() = default;

    virtual std::string name() const = 0;
    virtual int vocabSize() const = 0;
    virtual TokenId eosToken() const = 0;
    // Called once on the engine's thread before the first step: load weights,
    // allocate the KV pool for `config.numBlocks` blocks, warm up. The server
    // answers 503 until it returns; an exception fails the engine.
    virtual void prepare(const EngineConfig& config) = 0;
    // Runs one step: stores the KV of every scheduled token at the positions
    // its block table gives, and returns the next token of each entry with
    // `sample`, in plan order.
    virtual std::vector<TokenId> execute(const StepPlan& plan) = 0;
    // What prepare chose that a user should see (one line each); read once
    // the engine is ready.
    virtual std::vector<std::string> preparedNotes() const { return {}; }
};

}  // namespace ws::serving
