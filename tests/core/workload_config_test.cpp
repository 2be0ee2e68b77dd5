#include <gtest/gtest.h>

#include <filesystem>

#include "config/workload_config.h"
#include "model/ladder_catalog.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

const char* kDecoder = R"(name = "tiny"
kind = "decoder"

[contract]
prompt_tokens = 128
output_tokens = 32
batch = 4
ttft_target_ms = 50
tpot_target_ms = 10.5
memory_budget_gib = 8
power_limit_w = 700

[decoder]
model = "Tiny"
hidden_size = 256
layers = 2
heads = 8
kv_heads = 2
intermediate_size = 512
vocab_size = 1000
variant = "reference"
cuda_graphs = true
)";

ConfigError onlyError(const std::string& text) {
    auto r = parseWorkloadConfig(text, "w.toml");
    EXPECT_FALSE(r.ok());
    if (r.errors.size() != 1u)
        for (const auto& e : r.errors)
            ADD_FAILURE() << "unexpected error: " << e.toString();
    return r.errors.empty() ? ConfigError{} : r.errors[0];
}

TEST(WorkloadConfig, ParsesDecoderWithContract) {
    auto r = parseWorkloadConfig(kDecoder, "tiny.toml");
    ASSERT_TRUE(r.ok()) << r.errors[0].toString();
    const auto& c = *r.config;
    EXPECT_EQ(c.name, "tiny");
    EXPECT_EQ(c.kind, WorkloadKind::Decoder);
    EXPECT_EQ(c.contract.promptTokens, 128);
    EXPECT_EQ(c.contract.batch, 4);
    EXPECT_EQ(c.contract.warmupRequests, 1);  // warm by default
    EXPECT_DOUBLE_EQ(*c.contract.tpotTargetMs, 10.5);
    EXPECT_DOUBLE_EQ(*c.contract.ttftTargetMs, 50.0);
    ASSERT_TRUE(c.decoder);
    EXPECT_EQ(c.decoder->headDim, 32);  // hidden / heads
    EXPECT_EQ(c.decoder->variant, "reference");
    EXPECT_TRUE(c.decoder->cudaGraphs);
    EXPECT_EQ(c.decoder->precision, "bf16");
    EXPECT_EQ(c.text, kDecoder);
}

TEST(WorkloadConfig, ParsesCommand) {
    auto r = parseWorkloadConfig(R"(name = "torch"
kind = "command"
[command]
program = "python3"
args = ["gen.py", "--tokens", "32"]
env = { CUDA_VISIBLE_DEVICES = "0" }
)",
                                 "c.toml");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.config->command->args.size(), 3u);
    EXPECT_EQ(r.config->command->env.at("CUDA_VISIBLE_DEVICES"), "0");
}

TEST(WorkloadConfig, ParsesKernelShape) {
    auto r = parseWorkloadConfig(R"(name = "gemm"
kind = "kernel"
[kernel]
name = "gemm_bf16"
rung = "wgmma"
shape = { m = 4096, n = 4096, k = 4096 }
)",
                                 "k.toml");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.config->kernel->shape.at("k"), 4096);
}

// What `validate` accepts is what the ladders run (model/ladder_catalog.h):
// a rung or shape key of another kernel is refused with the valid choices.
TEST(WorkloadConfig, KernelRungsAndShapeKeysComeFromTheLadderCatalog) {
    auto kernel = [](const std::string& body) {
        return "name = \"k\"\nkind = \"kernel\"\n[kernel]\n" + body;
    };
    auto rung = onlyError(kernel("name = \"gemv_bf16\"\nrung = \"wgmma\"\n"));
    EXPECT_EQ(rung.field, "kernel.rung");
    EXPECT_EQ(rung.line, 5);
    EXPECT_NE(rung.message.find("'wgmma' is not a rung of gemv_bf16 (all, naive, vectorized"),
              std::string::npos)
        << rung.message;
    auto key = onlyError(kernel("name = \"gemm_bf16\"\nshape = { m = 64, batch = 2 }\n"));
    EXPECT_EQ(key.field, "kernel.shape.batch");
    EXPECT_NE(key.message.find("not a shape key of gemm_bf16 (m, n, k)"), std::string::npos)
        << key.message;
    auto name = onlyError(kernel("name = \"gemm_fp8\"\n"));
    EXPECT_EQ(name.field, "kernel.name");
    EXPECT_NE(name.message.find("unknown kernel 'gemm_fp8' (one of gemm_bf16,"), std::string::npos);
    for (const auto& spec : ladderCatalog()) {
        std::string shape;
        for (const auto& [k, v] : spec.shape)
            shape += (shape.empty() ? "" : ", ") + k + " = " + std::to_string(v);
        for (const auto& r : spec.rungs) {
            auto ok = parseWorkloadConfig(kernel("name = \"" + spec.kernel + "\"\nrung = \"" + r +
                                                 "\"\nshape = { " + shape + " }\n"),
                                          "k.toml");
            EXPECT_TRUE(ok.ok()) << spec.kernel << " " << r;
        }
    }
}

TEST(WorkloadConfig, UnknownKeyNamesLineColumnAndField) {
    auto e =
        onlyError("name = \"x\"\nkind = \"command\"\n[command]\nprogram = \"a\"\n  progam = 1\n");
    EXPECT_EQ(e.line, 5);
    EXPECT_EQ(e.column, 3);
    EXPECT_EQ(e.field, "command.progam");
    EXPECT_EQ(e.message, "unknown field");
    EXPECT_EQ(e.toString(), "w.toml:5:3: command.progam: unknown field");
}

TEST(WorkloadConfig, OutOfRangeValueIsRejected) {
    std::string text = kDecoder;
    text.replace(text.find("batch = 4"), 9, "batch = 0");
    auto e = onlyError(text);
    EXPECT_EQ(e.field, "contract.batch");
    EXPECT_EQ(e.line, 7);
    EXPECT_NE(e.message.find("out of range"), std::string::npos);
}

TEST(WorkloadConfig, WarmupRequestsAreReadAndRangeChecked) {
    std::string text = kDecoder;
    text.replace(text.find("batch = 4"), 9, "batch = 4\nwarmup_requests = 0");
    auto r = parseWorkloadConfig(text, "tiny.toml");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.config->contract.warmupRequests, 0);
    text.replace(text.find("warmup_requests = 0"), 19, "warmup_requests = -1");
    EXPECT_EQ(onlyError(text).field, "contract.warmup_requests");
}

TEST(WorkloadConfig, InputsThatCrashedTheTomlLibraryAreSyntaxErrors) {
    // toml++ 3.3.0 asserted (debug builds abort) or reached
    // __builtin_unreachable on these; found by tests/fuzz.
    for (const char* text :
         {"[+", "o=1979-05-27T:", "e=[}", "\xce\xa4", "a = 1 \xc2\xa0", "o=7\"\xce\xb9",
          "s = \"\"\"\\\xef\xbb\xa3", "s = \"\"\"\\\n\xc2\xa7\"\"\""}) {
        auto e = onlyError(text);
        EXPECT_EQ(e.field, "(syntax)") << text;
        EXPECT_GE(e.line, 1) << text;
    }
    EXPECT_NE(onlyError("\xce\xa4").message.find("beyond ASCII"), std::string::npos);
}

TEST(WorkloadConfig, UnicodeInStringsAndCommentsIsKept) {
    // Characters the TOML library cannot test safely reach it as \u escapes:
    // the values are unchanged.
    std::string text = kDecoder;
    text.replace(
        text.find("name = \"tiny\""), 13,
        "# tiny µ-model, 2048³\nname = \"tiny ³ ✓\"\ndescription = \"\"\"Ωmega\n\"µs\"\"\"\"");
    auto r = parseWorkloadConfig(text, "tiny.toml");
    ASSERT_TRUE(r.ok()) << r.errors[0].toString();
    EXPECT_EQ(r.config->name, "tiny ³ ✓");
    EXPECT_EQ(r.config->description, "Ωmega\n\"µs\"");
    EXPECT_EQ(r.config->text, text);  // stored as written
    // A literal string has no escapes: there it is refused, with the way out.
    auto e = onlyError("name = 'µs'");
    EXPECT_NE(e.message.find("U+00B5"), std::string::npos) << e.message;
    EXPECT_NE(e.message.find("\\u00B5"), std::string::npos) << e.message;
}

TEST(WorkloadConfig, WrongTypeIsRejected) {
    std::string text = kDecoder;
    text.replace(text.find("layers = 2"), 10, "layers = \"two\"");
    auto e = onlyError(text);
    EXPECT_EQ(e.field, "decoder.layers");
    EXPECT_NE(e.message.find("expected an integer, got a string"), std::string::npos);
}

// A float where an integer belongs, even one past int64's range, is a type
// error (toml++ would convert it, undefined past the range: found by fuzzing).
TEST(WorkloadConfig, AFloatForAnIntegerIsRejected) {
    for (const char* value : {"layers = 2.0", "layers = 99999999999e9"}) {
        std::string text = kDecoder;
        text.replace(text.find("layers = 2"), 10, value);
        auto e = onlyError(text);
        EXPECT_EQ(e.field, "decoder.layers") << value;
        EXPECT_NE(e.message.find("expected an integer, got a float"), std::string::npos)
            << e.message;
    }
}

TEST(WorkloadConfig, BadEnumListsChoices) {
    std::string text = kDecoder;
    text.replace(text.find("\"reference\""), 11, "\"fastest\"");
    auto e = onlyError(text);
    EXPECT_EQ(e.field, "decoder.variant");
    EXPECT_NE(e.message.find("reference, optimized, cublas"), std::string::npos);
}

TEST(WorkloadConfig, MissingRequiredFieldAndSection) {
    auto r = parseWorkloadConfig("kind = \"command\"\n", "m.toml");
    ASSERT_EQ(r.errors.size(), 2u);
    EXPECT_EQ(r.errors[0].field, "name");
    EXPECT_EQ(r.errors[1].field, "command");
}

TEST(WorkloadConfig, SectionOfOtherKindIsRejected) {
    auto e = onlyError(
        "name = \"x\"\nkind = \"command\"\n[command]\nprogram = \"a\"\n[kernel]\n"
        "name = \"gemm_bf16\"\n");
    EXPECT_EQ(e.field, "kernel");
    EXPECT_EQ(e.line, 5);
}

TEST(WorkloadConfig, GqaHeadsMustDivide) {
    std::string text = kDecoder;
    text.replace(text.find("kv_heads = 2"), 12, "kv_heads = 3");
    auto e = onlyError(text);
    EXPECT_EQ(e.field, "decoder.kv_heads");
}

TEST(WorkloadConfig, TensorParallelMustSplitHeadsKvHeadsAndMlp) {
    std::string two = kDecoder;
    two.replace(two.find("cuda_graphs = true"), 18, "cuda_graphs = true\ntensor_parallel = 2");
    auto ok = parseWorkloadConfig(two, "tp.toml");
    ASSERT_TRUE(ok.ok()) << ok.errors[0].toString();
    EXPECT_EQ(ok.config->decoder->tensorParallel, 2);
    EXPECT_EQ(parseWorkloadConfig(kDecoder, "d.toml").config->decoder->tensorParallel, 1);

    std::string four = kDecoder;  // 8 heads, 2 KV heads: 4 ranks cannot share 2 KV heads
    four.replace(four.find("cuda_graphs = true"), 18, "cuda_graphs = true\ntensor_parallel = 4");
    auto e = onlyError(four);
    EXPECT_EQ(e.field, "decoder.tensor_parallel");
    EXPECT_NE(e.message.find("kv_heads 2 cannot be split over 4 ranks"), std::string::npos)
        << e.message;

    std::string many = kDecoder;
    many.replace(many.find("cuda_graphs = true"), 18, "cuda_graphs = true\ntensor_parallel = 16");
    EXPECT_EQ(onlyError(many).field, "decoder.tensor_parallel");

    std::string served = two;  // the serving engine is one GPU's
    served.replace(served.find("kind = \"decoder\""), 16, "kind = \"serve\"");
    served += "[serve]\nmax_num_seqs = 8\n";
    auto s = onlyError(served);
    EXPECT_EQ(s.field, "decoder.tensor_parallel");
    EXPECT_NE(s.message.find("serving engine runs on one GPU"), std::string::npos) << s.message;
}

TEST(WorkloadConfig, SyntaxErrorHasPosition) {
    auto e = onlyError("name = \"x\"\nkind = \n");
    EXPECT_EQ(e.line, 2);
    EXPECT_EQ(e.field, "(syntax)");
}

const char* kServe = R"(name = "cpu-server"
kind = "serve"

[serve]
backend = "cpu"
port = 0
max_num_seqs = 32
max_num_batched_tokens = 512
block_size = 16
num_blocks = 1024
max_model_len = 8192
max_waiting = 100
drain_timeout_s = 2.5

[serve.cpu]
step_us = 100
seq_us = 2
prefill_token_us = 0
)";

std::string serveWith(const std::string& lines) {
    return "name = \"s\"\nkind = \"serve\"\n[serve]\n" + lines;
}

TEST(WorkloadConfig, ParsesServe) {
    auto r = parseWorkloadConfig(kServe, "serve.toml");
    ASSERT_TRUE(r.ok()) << r.errors[0].toString();
    const auto& c = *r.config;
    EXPECT_EQ(c.kind, WorkloadKind::Serve);
    EXPECT_STREQ(toString(c.kind), "serve");
    ASSERT_TRUE(c.serve);
    EXPECT_EQ(c.serve->backend, "cpu");
    EXPECT_EQ(c.serve->model, "cpu-server");  // the workload's name by default
    EXPECT_EQ(c.serve->port, 0);
    EXPECT_EQ(c.serve->maxNumSeqs, 32);
    EXPECT_EQ(c.serve->maxNumBatchedTokens, 512);
    EXPECT_EQ(c.serve->numBlocks, 1024);
    EXPECT_EQ(c.serve->maxModelLen, 8192);
    EXPECT_EQ(c.serve->maxWaiting, 100);
    EXPECT_DOUBLE_EQ(c.serve->drainTimeoutS, 2.5);
    EXPECT_EQ(c.serve->cpuStepUs, 100);
    EXPECT_EQ(c.serve->cpuSeqUs, 2);
    EXPECT_EQ(c.serve->cpuPrefillTokenUs, 0);
    EXPECT_TRUE(c.serve->chunkedPrefill);

    auto defaults = parseWorkloadConfig(serveWith(""), "d.toml");
    ASSERT_TRUE(defaults.ok()) << defaults.errors[0].toString();
    EXPECT_EQ(defaults.config->serve->blockSize, 16);
    EXPECT_EQ(defaults.config->serve->backend, "cpu");
    EXPECT_EQ(defaults.config->serve->decodeSplits, "wave");
    auto fixed = parseWorkloadConfig(serveWith("decode_splits = \"fixed\"\n"), "f.toml");
    ASSERT_TRUE(fixed.ok()) << fixed.errors[0].toString();
    EXPECT_EQ(fixed.config->serve->decodeSplits, "fixed");
    EXPECT_FALSE(defaults.config->serve->numBlocks);
}

TEST(WorkloadConfig, ServeWithADecoderDefaultsToTheGpuBackend) {
    std::string text = kDecoder;
    text.replace(text.find("kind = \"decoder\""), 16, "kind = \"serve\"");
    text += "[serve]\nmax_num_seqs = 8\n";
    auto r = parseWorkloadConfig(text, "g.toml");
    ASSERT_TRUE(r.ok()) << r.errors[0].toString();
    EXPECT_EQ(r.config->serve->backend, "gpu");
    ASSERT_TRUE(r.config->decoder);
    EXPECT_EQ(r.config->decoder->hiddenSize, 256);
}

TEST(WorkloadConfig, BadServeTablesNameLineAndField) {
    struct Case {
        std::string lines;
        const char* field;
        int line;
        const char* says;
    };
    const Case cases[] = {
        {"max_num_seqs = 0\n", "serve.max_num_seqs", 4, "out of range"},
        {"backend = \"tpu\"\n", "serve.backend", 4, "cpu, gpu"},
        {"linear = \"fast\"\n", "serve.linear", 4, "tuned, decoder"},
        {"decode_splits = \"many\"\n", "serve.decode_splits", 4, "wave, fixed"},
        {"backend = \"gpu\"\n", "serve.backend", 4, "[decoder]"},
        {"block_size = 12\n", "serve.block_size", 4, "power of two"},
        {"max_num_seqs = 64\nmax_num_batched_tokens = 32\n", "serve.max_num_batched_tokens", 5,
         "max_num_seqs"},
        {"num_blocks = 4\nmax_model_len = 4096\n", "serve.num_blocks", 4, "cannot hold"},
        {"chunked_prefill = false\nmax_num_batched_tokens = 512\n", "serve.max_num_batched_tokens",
         5, "chunked prefill"},
        {"kv_memory_fraction = 1.5\n", "serve.kv_memory_fraction", 4, "out of range"},
        {"port = 70000\n", "serve.port", 4, "out of range"},
        {"max_model_len = \"long\"\n", "serve.max_model_len", 4, "integer"},
        {"max_num_seq = 4\n", "serve.max_num_seq", 4, "unknown field"},
        {"[serve.cpu]\nstep_ms = 1\n", "serve.cpu.step_ms", 5, "unknown field"},
        {"[serve.cpu]\nstep_us = -1\n", "serve.cpu.step_us", 5, "out of range"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.lines);
        auto e = onlyError(serveWith(c.lines));
        EXPECT_EQ(e.field, c.field);
        EXPECT_EQ(e.line, c.line);
        EXPECT_EQ(e.file, "w.toml");
        EXPECT_NE(e.message.find(c.says), std::string::npos) << e.message;
    }
    auto missing = onlyError("name = \"s\"\nkind = \"serve\"\n");
    EXPECT_EQ(missing.field, "serve");
    auto other = onlyError(serveWith("") + "[kernel]\nname = \"gemm_bf16\"\n");
    EXPECT_EQ(other.field, "kernel");
}

TEST(WorkloadConfig, MissingFileIsReported) {
    auto r = loadWorkloadConfig("/nonexistent/w.toml");
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0].message, "cannot read the file");
}

TEST(WorkloadConfig, EveryBundledPresetIsValid) {
    int count = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(WARPSCOPE_SOURCE_DIR "/resources/workloads")) {
        if (entry.path().extension() != ".toml") continue;
        auto r = loadWorkloadConfig(entry.path().string());
        EXPECT_TRUE(r.ok()) << (r.errors.empty() ? "" : r.errors[0].toString());
        ++count;
    }
    EXPECT_GE(count, 7);
}

}  // namespace
}  // namespace ws
