#include "config/workload_config.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <utility>

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
    assign(d.tensorParallel, r.integer("tensor_parallel", 1, 8, false));
    r.rejectUnknown();
    // Each rank holds whole heads, whole KV heads and an equal MLP slice.
    const std::pair<const char*, int> split[] = {
        {"heads", d.heads}, {"kv_heads", d.kvHeads}, {"intermediate_size", d.intermediateSize}};
    for (const auto& [name, value] : split)
        if (d.tensorParallel > 1 && value > 0 && value % d.tensorParallel != 0)
            r.error(r.raw().get("tensor_parallel")->source(), "tensor_parallel",
                    std::string(name) + " " + std::to_string(value) + " cannot be split over " +
                        std::to_string(d.tensorParallel) + " ranks");
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

const toml::source_region& whereOf(TomlReader& r, const char* key) {
    const toml::node* n = r.raw().get(key);
    return n ? n->source() : r.raw().source();
}

ServeParams readServe(TomlReader& r) {
    ServeParams p;
    assign(p.backend, r.string("backend", false, {"cpu", "gpu"}));
    assign(p.model, r.string("model", false));
    assign(p.host, r.string("host", false));
    assign(p.port, r.integer("port", 0, 65535, false));
    assign(p.maxNumSeqs, r.integer("max_num_seqs", 1, 65536, false));
    assign(p.maxNumBatchedTokens, r.integer("max_num_batched_tokens", 1, kMaxTokens, false));
    assign(p.blockSize, r.integer("block_size", 1, 256, false));
    if (auto n = r.integer("num_blocks", 1, 1 << 24, false)) p.numBlocks = static_cast<int>(*n);
    assign(p.kvMemoryFraction, r.number("kv_memory_fraction", 0.01, 1.0, false));
    assign(p.maxModelLen, r.integer("max_model_len", 2, kMaxTokens, false));
    assign(p.maxWaiting, r.integer("max_waiting", 0, 1 << 20, false));
    assign(p.chunkedPrefill, r.boolean("chunked_prefill"));
    assign(p.linear, r.string("linear", false, {"tuned", "decoder"}));
    assign(p.decodeSplits, r.string("decode_splits", false, {"wave", "fixed"}));
    assign(p.drainTimeoutS, r.number("drain_timeout_s", 0, 86400, false));
    assign(p.maxBodyBytes, r.integer("max_body_bytes", 1024, std::int64_t(1) << 32, false));
    assign(p.httpThreads, r.integer("http_threads", 0, 64, false));
    if (const auto* cpu = r.table("cpu", false)) {
        TomlReader c(*cpu, r.path("cpu"), r.file(), r.errors());
        assign(p.cpuStepUs, c.integer("step_us", 0, 10000000, false));
        assign(p.cpuSeqUs, c.integer("seq_us", 0, 10000000, false));
        assign(p.cpuPrefillTokenUs, c.integer("prefill_token_us", 0, 10000000, false));
        c.rejectUnknown();
    }
    r.rejectUnknown();
    if (p.host.empty()) r.error(whereOf(r, "host"), "host", "must not be empty");
    if ((p.blockSize & (p.blockSize - 1)) != 0)
        r.error(whereOf(r, "block_size"), "block_size",
                "must be a power of two (16 is the usual), got " + std::to_string(p.blockSize));
    if (p.maxNumBatchedTokens < p.maxNumSeqs)
        r.error(whereOf(r, "max_num_batched_tokens"), "max_num_batched_tokens",
                std::to_string(p.maxNumBatchedTokens) + " is less than max_num_seqs (" +
                    std::to_string(p.maxNumSeqs) +
                    "): every running sequence decodes one token per step");
    if (!p.chunkedPrefill && p.maxNumBatchedTokens < p.maxModelLen)
        r.error(whereOf(r, "max_num_batched_tokens"), "max_num_batched_tokens",
                "without chunked prefill a whole prompt is computed in one step: " +
                    std::to_string(p.maxNumBatchedTokens) + " is less than max_model_len (" +
                    std::to_string(p.maxModelLen) + ")");
    const long long pool =
        static_cast<long long>(p.numBlocks.value_or(p.backend == "cpu" ? 4096 : 0)) * p.blockSize;
    if (pool > 0 && pool < p.maxModelLen)
        r.error(whereOf(r, "num_blocks"), "num_blocks",
                "the KV pool (" + std::to_string(pool) +
                    " token positions) cannot hold one sequence of max_model_len (" +
                    std::to_string(p.maxModelLen) + ")");
    return p;
}

}  // namespace

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
    auto kind = top.string(
        "kind", true,
        std::span<const char* const>(kWorkloadKindNames.data(), kConfigurableWorkloadKinds));
    if (kind) cfg.kind = *workloadKindFromString(*kind);
    if (const auto* t = top.table("contract", false)) {
        TomlReader r(*t, "contract", sourcePath, result.errors);
        cfg.contract = readContract(r);
    }
    // Each kind has its own parameter table; the others must be absent, but a
    // serving workload may name the model it serves in a [decoder] table.
    const std::string sections[] = {"decoder", "kernel", "command", "serve"};
    for (const std::string& section : sections) {
        if (!kind) {
            top.table(section, false);
            continue;
        }
        const bool mine = *kind == section;
        const auto* t = top.table(section, mine);
        if (!t) continue;
        if (!mine && !(*kind == "serve" && section == "decoder")) {
            top.error(t->source(), section,
                      "a [" + section + "] table does not belong in a workload of kind \"" + *kind +
                          "\"");
            continue;
        }
        TomlReader r(*t, section, sourcePath, result.errors);
        if (section == "decoder") cfg.decoder = readDecoder(r);
        if (section == "kernel") cfg.kernel = readKernel(r);
        if (section == "command") cfg.command = readCommand(r);
        if (section == "serve") {
            bool explicitBackend = t->contains("backend");
            cfg.serve = readServe(r);
            if (!explicitBackend && root.contains("decoder")) cfg.serve->backend = "gpu";
            if (cfg.serve->model.empty()) cfg.serve->model = cfg.name;
            const toml::node* backend = t->get("backend");
            if (cfg.serve->backend == "gpu" && !root.contains("decoder"))
                r.error(backend ? backend->source() : t->source(), "backend",
                        "the gpu backend serves the model of a [decoder] table, and there is none");
            if (const auto* d = root.get_as<toml::table>("decoder");
                d && d->contains("max_positions")) {
                auto positions = d->get("max_positions")->value_exact<std::int64_t>();
                if (positions && cfg.serve->maxModelLen > *positions)
                    r.error(t->contains("max_model_len") ? t->get("max_model_len")->source()
                                                         : t->source(),
                            "max_model_len",
                            std::to_string(cfg.serve->maxModelLen) +
                                " is more than decoder.max_positions (" +
                                std::to_string(*positions) + ")");
            }
        }
    }
    top.rejectUnknown();
    if (cfg.kind == WorkloadKind::Serve && cfg.decoder && cfg.decoder->tensorParallel > 1)
        top.error(root.get_as<toml::table>("decoder")->get("tensor_parallel")->source(),
                  "decoder.tensor_parallel",
                  "the serving engine runs on one GPU: tensor_parallel applies to decoder "
                  "workloads");
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
    auto refused = [&](const std::string& why) {
        ConfigResult result;
        result.errors.push_back({path, 0, 0, "(file)", why});
        return result;
    };
    // A folder reads as an empty file (every field "missing"), a FIFO blocks.
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (std::filesystem::is_directory(status))
        return refused("is a folder, not a config file (its configs: " + path + "/*.toml)");
    if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
        return refused("is not a regular file (a pipe, socket or device)");
    std::ifstream in(path, std::ios::binary);
    if (!in) return refused("cannot read the file");
    std::ostringstream buf;
    buf << in.rdbuf();
    return parseWorkloadConfig(buf.str(), path);
}

}  // namespace ws
