// Workload configs: what to run and the contract a run is judged against.
// Parsed from TOML; every error names file:line:column and the field.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/closed_lists.h"
#include "model/decoder_params.h"

namespace ws {

struct WorkloadContract {
    int promptTokens = 0;
    int outputTokens = 0;
    int batch = 1;     // concurrent requests
    int requests = 0;  // total requests; 0 = batch
    // Untimed requests run first (first-call initialisation, lazy module
    // loading, graph capture), so TTFT measures a warm engine as users see it.
    int warmupRequests = 1;
    std::optional<double> ttftTargetMs;
    std::optional<double> tpotTargetMs;
    std::optional<double> e2eTargetMs;
    std::optional<double> memoryBudgetGiB;
    std::optional<double> powerLimitW;
};

struct KernelParams {
    std::string kernel;  // e.g. "gemm_bf16"
    std::string rung;    // e.g. "wgmma"
    std::map<std::string, std::int64_t> shape;
    int iterations = 100;
    int warmup = 10;
};

struct CommandParams {
    std::string program;
    std::vector<std::string> args;
    std::map<std::string, std::string> env;
    std::string workingDir;
};

// A serving workload (kind = "serve"): warpscope-workload serve runs an
// OpenAI-compatible server with continuous batching over a paged KV cache.
struct ServeParams {
    std::string backend = "cpu";  // "cpu" (deterministic tokens) or "gpu" (the [decoder] model)
    std::string model;            // the served model's name; default: the workload's name
    std::string host = "127.0.0.1";
    int port = 8000;
    int maxNumSeqs = 64;             // running sequences per step
    int maxNumBatchedTokens = 2048;  // tokens per step (prefill chunks + decodes)
    int blockSize = 16;              // token positions per KV block
    std::optional<int> numBlocks;    // the KV pool; default: 4096 (cpu), kv_memory_fraction (gpu)
    double kvMemoryFraction = 0.9;   // gpu: share of free device memory for the KV pool
    int maxModelLen = 4096;          // prompt + output tokens per sequence
    int maxWaiting = 1024;           // queued requests; one more gets 429 (vLLM bench's 1000 fit)
    bool chunkedPrefill = true;
    // gpu: "tuned" times the decoder's rung against cuBLAS for each matrix at
    // each decode batch bucket at start and runs the faster; "decoder" keeps
    // the [decoder] variant's choice at every batch.
    std::string linear = "tuned";
    // gpu: how decode attention splits each sequence's keys: "wave" sizes the
    // splits to fill one wave of the GPU at each batch; "fixed" takes 128 keys
    // a split at any batch (the batch-invariant plan, attention alone).
    std::string decodeSplits = "wave";
    double drainTimeoutS = 30;  // SIGINT/SIGTERM: how long running requests may finish
    std::int64_t maxBodyBytes = 4 << 20;
    int httpThreads = 0;  // threads of the HTTP event loop; 0: two
    // The CPU backend's pace: one step takes step + seq x sequences + prefill
    // token x prefill tokens microseconds ([serve.cpu]).
    int cpuStepUs = 500;
    int cpuSeqUs = 20;
    int cpuPrefillTokenUs = 1;
};

struct WorkloadConfig {
    std::string name;
    WorkloadKind kind = WorkloadKind::Command;
    std::string description;
    WorkloadContract contract;
    std::optional<DecoderParams> decoder;
    std::optional<KernelParams> kernel;
    std::optional<CommandParams> command;
    std::optional<ServeParams> serve;  // kind serve; its model is `decoder` (gpu backend)
    std::string sourcePath;
    std::string text;  // the file as read, stored with each run
};

struct ConfigError {
    std::string file;
    int line = 0;
    int column = 0;
    std::string field;  // dotted path, e.g. "contract.batch"
    std::string message;
    std::string toString() const;  // "file:line:column: field: message"
};

struct ConfigResult {
    std::optional<WorkloadConfig> config;
    std::vector<ConfigError> errors;
    bool ok() const { return config.has_value() && errors.empty(); }
};

ConfigResult parseWorkloadConfig(const std::string& text, const std::string& sourcePath);
ConfigResult loadWorkloadConfig(const std::string& path);

}  // namespace ws
