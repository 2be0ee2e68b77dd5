// Workload configs: what to run and the contract a run is judged against.
// Parsed from TOML; every error names file:line:column and the field.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/decoder_params.h"

namespace ws {

enum class WorkloadKind { Decoder, Kernel, Command };
const char* toString(WorkloadKind kind);

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

struct WorkloadConfig {
    std::string name;
    WorkloadKind kind = WorkloadKind::Command;
    std::string description;
    WorkloadContract contract;
    std::optional<DecoderParams> decoder;
    std::optional<KernelParams> kernel;
    std::optional<CommandParams> command;
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
