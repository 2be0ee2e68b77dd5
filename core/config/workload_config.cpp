#include "config/workload_config.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>

#include "config/toml_reader.h"
#include "model/ladder_catalog.h"
#include "toml_guard.h"

namespace ws {

namespace {

using config::TomlReader;
constexpr std::int64_t kMaxTokens = 1 << 20;
constexpr std::int64_t kMaxDim = 1 << 20;

template <typename T, typename U>
void assign(T& target, const std::optional<U>& value) {
    if (value) target = static_cast<T>(*value);
}

WorkloadContract readContract(TomlReader& r) {
    WorkloadContract c;
    assign(c.promptTokens, r.integer("prompt_tokens", 0, kMaxTokens, false));
    assign(c.outputTokens, r.integer("output_tokens", 0, kMaxTokens, false));
    assign(c.batch, r.integer("batch", 1, 65536, false));
    assign(c.requests, r.integer("requests", 0, 1 << 24, false));
    assign(c.warmupRequests, r.integer("warmup_requests", 0, 1 << 16, false));
    c.ttftTargetMs = r.number("ttft_target_ms", 1e-3, 1e7, false);
    c.tpotTargetMs = r.number("tpot_target_ms", 1e-3, 1e7, false);
    c.e2eTargetMs = r.number("e2e_target_ms", 1e-3, 1e9, false);
    c.memoryBudgetGiB = r.number("memory_budget_gib", 1e-3, 1e5, false);
    c.powerLimitW = r.number("power_limit_w", 1, 1e5, false);
    r.rejectUnknown();
    return c;
}

DecoderParams readDecoder(TomlReader& r) {
    DecoderParams d;
    assign(d.model, r.string("model", true));
    assign(d.hiddenSize, r.integer("hidden_size", 1, kMaxDim, true));
    assign(d.layers, r.integer("layers", 1, 1024, true));
    assign(d.heads, r.integer("heads", 1, 1024, true));
    assign(d.kvHeads, r.integer("kv_heads", 1, 1024, true));
    assign(d.headDim, r.integer("head_dim", 1, 4096, false));
    assign(d.intermediateSize, r.integer("intermediate_size", 1, kMaxDim, true));
    assign(d.vocabSize, r.integer("vocab_size", 1, 1 << 22, true));
    assign(d.ropeTheta, r.number("rope_theta", 1, 1e12, false));
    assign(d.rmsNormEps, r.number("rms_norm_eps", 1e-12, 1e-1, false));
    assign(d.maxPositions, r.integer("max_positions", 1, kMaxTokens, false));
    assign(d.tieEmbeddings, r.boolean("tie_embeddings"));
    assign(d.precision, r.string("precision", false, {"bf16", "int8-weight-only"}));
    assign(d.variant, r.string("variant", false, {"reference", "optimized", "cublas"}));
    assign(d.cudaGraphs, r.boolean("cuda_graphs"));
    assign(d.weights, r.string("weights", false));
    assign(d.seed, r.integer("seed", 0, std::numeric_limits<std::int64_t>::max(), false));
    assign(d.qualityTolerance, r.number("quality_tolerance", 0, 1e6, false));
    r.rejectUnknown();
    if (d.hiddenSize > 0 && d.heads > 0) {
        if (d.headDim == 0) {
            if (d.hiddenSize % d.heads != 0)
                r.error(r.raw().source(), "heads",
                        "hidden_size " + std::to_string(d.hiddenSize) +
                            " is not divisible by heads " + std::to_string(d.heads) +
                            "; give head_dim");
            else
                d.headDim = d.hiddenSize / d.heads;
        }
        if (d.kvHeads > 0 && d.heads % d.kvHeads != 0)
            r.error(r.raw().get("kv_heads")->source(), "kv_heads",
                    "heads " + std::to_string(d.heads) + " is not a multiple of kv_heads " +
                        std::to_string(d.kvHeads));
    }
    return d;
}

std::string listOf(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names)
        out += (out.empty() ? "" : ", ") + n;
    return out;
}

// Kernel, rung and shape keys from the ladder catalog, the table the CUDA
// ladders run from: a config that names anything else never starts.
KernelParams readKernel(TomlReader& r) {
    KernelParams k;
    assign(k.kernel, r.string("name", true));
    assign(k.rung, r.string("rung", false));
    assign(k.shape, r.integerTable("shape", 1, std::int64_t(1) << 40));
    assign(k.iterations, r.integer("iterations", 1, 1000000, false));
    assign(k.warmup, r.integer("warmup", 0, 1000000, false));
    r.rejectUnknown();
    if (k.kernel.empty()) return k;
    const LadderSpec* ladder = findLadder(k.kernel);
    if (!ladder) {
        std::vector<std::string> names;
        for (const auto& spec : ladderCatalog())
            names.push_back(spec.kernel);
        r.error(r.raw().get("name")->source(), "name",
                "unknown kernel '" + k.kernel + "' (one of " + listOf(names) + ")");
        return k;
    }
    if (!k.rung.empty() && k.rung != "all" &&
        std::find(ladder->rungs.begin(), ladder->rungs.end(), k.rung) == ladder->rungs.end())
        r.error(r.raw().get("rung")->source(), "rung",
                "'" + k.rung + "' is not a rung of " + k.kernel + " (all, " +
                    listOf(ladder->rungs) + ")");
    if (const auto* shape = r.raw().get_as<toml::table>("shape")) {
        std::vector<std::string> keys;
        for (const auto& [key, value] : ladder->shape)
            keys.push_back(key);
        for (const auto& [key, value] : *shape) {
            std::string name(key.str());
            if (std::find(keys.begin(), keys.end(), name) == keys.end())
                r.error(key.source(), "shape." + name,
                        "not a shape key of " + k.kernel + " (" + listOf(keys) + ")");
        }
    }
    return k;
}

CommandParams readCommand(TomlReader& r) {
    CommandParams c;
    assign(c.program, r.string("program", true));
    assign(c.args, r.stringArray("args"));
    assign(c.env, r.stringTable("env"));
    assign(c.workingDir, r.string("working_dir", false));
    r.rejectUnknown();
    if (c.program.empty() && r.has("program"))
        r.error(r.raw().get("program")->source(), "program", "must not be empty");
    return c;
}

}  // namespace

const char* toString(WorkloadKind kind) {
    switch (kind) {
        case WorkloadKind::Decoder:
            return "decoder";
        case WorkloadKind::Kernel:
            return "kernel";
        case WorkloadKind::Command:
            return "command";
    }
    return "command";
}

std::string ConfigError::toString() const {
    std::ostringstream out;
    out << file << ':' << line << ':' << column << ": " << field << ": " << message;
    return out.str();
}

ConfigResult parseWorkloadConfig(const std::string& text, const std::string& sourcePath) {
    ConfigResult result;
    std::string safe;
    if (auto error = config::makeSafeForTheTomlLibrary(text, sourcePath, safe)) {
        result.errors.push_back(*error);
        return result;
    }
    toml::table root;
    try {
        root = toml::parse(safe, sourcePath);
    } catch (const toml::parse_error& e) {
        const auto& where = e.source().begin;
        result.errors.push_back({sourcePath, static_cast<int>(where.line),
                                 static_cast<int>(where.column), "(syntax)",
                                 std::string(e.description())});
        return result;
    }
    WorkloadConfig cfg;
    cfg.sourcePath = sourcePath;
    cfg.text = text;
    TomlReader top(root, "", sourcePath, result.errors);
    assign(cfg.name, top.string("name", true));
    assign(cfg.description, top.string("description", false));
    auto kind = top.string("kind", true, {"decoder", "kernel", "command"});
    if (kind)
        cfg.kind = *kind == "decoder"  ? WorkloadKind::Decoder
                   : *kind == "kernel" ? WorkloadKind::Kernel
                                       : WorkloadKind::Command;
    if (const auto* t = top.table("contract", false)) {
        TomlReader r(*t, "contract", sourcePath, result.errors);
        cfg.contract = readContract(r);
    }
    // Each kind has its own parameter table; the others must be absent.
    const char* sections[] = {"decoder", "kernel", "command"};
    for (const char* section : sections) {
        if (!kind) {
            top.table(section, false);
            continue;
        }
        bool mine = *kind == section;
        const auto* t = top.table(section, mine);
        if (!t) continue;
        if (!mine) {
            top.error(t->source(), section,
                      std::string("a [") + section +
                          "] table does not belong in a workload of "
                          "kind \"" +
                          *kind + "\"");
            continue;
        }
        TomlReader r(*t, section, sourcePath, result.errors);
        if (cfg.kind == WorkloadKind::Decoder) cfg.decoder = readDecoder(r);
        if (cfg.kind == WorkloadKind::Kernel) cfg.kernel = readKernel(r);
        if (cfg.kind == WorkloadKind::Command) cfg.command = readCommand(r);
    }
    top.rejectUnknown();
    if (cfg.kind == WorkloadKind::Decoder && kind) {
        if (cfg.contract.promptTokens == 0)
            top.error(root.source(), "contract.prompt_tokens",
                      "a decoder workload needs prompt_tokens >= 1");
        if (cfg.contract.outputTokens == 0)
            top.error(root.source(), "contract.output_tokens",
                      "a decoder workload needs output_tokens >= 1");
    }
    if (result.errors.empty()) result.config = std::move(cfg);
    return result;
}

ConfigResult loadWorkloadConfig(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        ConfigResult result;
        result.errors.push_back({path, 0, 0, "(file)", "cannot read the file"});
        return result;
    }
    std::ostringstream buf;
    buf << in.rdbuf();
    return parseWorkloadConfig(buf.str(), path);
}

}  // namespace ws
