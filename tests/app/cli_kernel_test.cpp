// `record --pc-sampling` and `kernel RUN NAME`: the options are checked before
// anything runs; a run holding PC samples reads back as Nsight Compute's
// Source view reads them (stall reasons, hot lines, hot instructions) in text
// and JSON; a kernel is found by its short name or part of its signature.
#include <nlohmann/json.hpp>

#include "cli_fixture.h"
#include "model/pc_sampling.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "store/store_writer.h"

namespace ws {
namespace {

constexpr const char* kLong = "smsp__pcsamp_warps_issue_stalled_long_scoreboard";
constexpr const char* kSelected = "smsp__pcsamp_warps_issue_stalled_selected";
constexpr const char* kAttention = "_ZN2ws7kernels15attentionDecodeEPKfPfi";
constexpr const char* kFill = "_ZN2ws7kernels4fillEPfi";

void writeSampledRun(const std::string& db) {
    Store store(db);
    RunId run = store.beginRun({});
    StoreWriter w(store, run);
    for (int i = 0; i < 4; ++i) {
        KernelRecord k;
        k.name = i % 2 ? kFill : kAttention;
        k.startNs = 1'000'000 + i * 100'000;
        k.endNs = k.startNs + (i % 2 ? 5'000 : 80'000);
        k.correlationId = static_cast<std::uint32_t>(i + 1);
        w.add(k);
    }
    w.add(PcSampleRecord{kAttention, 0x1a0, kLong, 700, "/src/kernels/attention.cu", 118,
                         "LDG.E.128 R8, desc[UR6][R2.64]"});
    w.add(PcSampleRecord{kAttention, 0x1b0, kSelected, 300, "/src/kernels/attention.cu", 121, ""});
    w.flush();
    store.setProperty(run, pc_sampling::kSamples, "1000");
    store.setProperty(run, pc_sampling::kPeriod, "10");
    store.setProperty(run, pc_sampling::kHostMs, "12.5");
    store.finishRun(run, RunStatus::Ok);
}

TEST(CliKernel, BadPcSamplingChoicesAreRefusedBeforeAnythingRuns) {
    testing::TempDir dir;
    const auto db = dir.file("runs.wsdb");
    for (const auto& args :
         std::vector<std::vector<std::string>>{{"--pc-sampling-period", "10"},
                                               {"--pc-sampling", "--pc-sampling-period", "4"},
                                               {"--pc-sampling", "--pc-sampling-period", "32"},
                                               {"--pc-sampling", "--metrics", "dram"},
                                               {"--pc-sampling", "--gpu-metrics"}}) {
        std::vector<std::string> argv = {"record", "--db", db};
        argv.insert(argv.end(), args.begin(), args.end());
        argv.insert(argv.end(), {"--", "/bin/true"});
        auto r = cli(argv);
        EXPECT_EQ(r.exitCode, 2) << args.back() << ": " << r.err;
        EXPECT_NE(r.err.find("pc-sampling"), std::string::npos) << r.err;
    }
    auto bench = cli({"bench", "serve", "--pc-sampling", "--db", db});
    EXPECT_EQ(bench.exitCode, 2);
    EXPECT_NE(bench.err.find("--pc-sampling applies to --server"), std::string::npos) << bench.err;
    Store store(db);
    EXPECT_TRUE(listRuns(store).empty());
}

TEST(CliKernel, APcSampledRunSaysWhereTheKernelStalls) {
    testing::TempDir dir;
    const auto db = dir.file("runs.wsdb");
    writeSampledRun(db);
    auto text = cli({"kernel", "1", "attentionDecode", "--db", db});
    ASSERT_EQ(text.exitCode, 0) << text.err;
    for (const char* want :
         {"2 launches", "1000 PC samples (100.0% of the run's) at 2 instructions",
          "one per SM every 2^10 cycles", "70.0%", "Long Scoreboard",
          "waits on a global or local memory", "attention.cu:118", "0x1a0", "hottest source lines",
          "SASS", "LDG.E.128 R8, desc[UR6][R2.64]",
          "sampling cost: the sampler's own time 12.5 ms, "})
        EXPECT_NE(text.out.find(want), std::string::npos) << want << "\n" << text.out;
    auto json = cli({"kernel", "1", "attentionDecode", "--db", db, "--json"});
    ASSERT_EQ(json.exitCode, 0) << json.err;
    auto j = nlohmann::json::parse(json.out);
    EXPECT_EQ(j["mangled"], kAttention);
    EXPECT_EQ(j["launches"], 2);
    EXPECT_EQ(j["pc_sampling"]["samples"], 1000);
    EXPECT_EQ(j["pc_sampling"]["stall_reasons"][0]["title"], "Long Scoreboard");
    EXPECT_DOUBLE_EQ(j["pc_sampling"]["stall_reasons"][0]["share"].get<double>(), 0.7);
    EXPECT_EQ(j["pc_sampling"]["hot_lines"][0]["line"], 118);
    EXPECT_EQ(j["pc_sampling"]["hot_instructions"][1]["pc_offset"], 0x1b0);
    EXPECT_EQ(j["pc_sampling"]["hot_instructions"][0]["sass"], "LDG.E.128 R8, desc[UR6][R2.64]");
    auto shown = cli({"show", "1", "--db", db});
    EXPECT_NE(shown.out.find("1000 in its kernels (`kernel 1 NAME`"), std::string::npos)
        << shown.out;
    EXPECT_NE(shown.out.find("the sampler's own time 12.5 ms, "), std::string::npos) << shown.out;
}

TEST(CliKernel, AKernelWithoutSamplesOrAnUnknownNameIsSaidSo) {
    testing::TempDir dir;
    const auto db = dir.file("runs.wsdb");
    writeSampledRun(db);
    auto fill = cli({"kernel", "1", "fill", "--db", db});
    ASSERT_EQ(fill.exitCode, 0) << fill.err;
    EXPECT_NE(fill.out.find("no PC samples landed in this kernel (too short"), std::string::npos)
        << fill.out;
    auto json = cli({"kernel", "1", kFill, "--db", db, "--json"});
    ASSERT_EQ(json.exitCode, 0) << json.err;
    EXPECT_TRUE(nlohmann::json::parse(json.out)["pc_sampling"].is_null());
    {
        Store store(db);  // CUPTI stopped sampling when its buffer filled
        store.setProperty(1, pc_sampling::kBufferFull, "yes");
    }
    auto late = cli({"kernel", "1", "fill", "--db", db});
    EXPECT_NE(late.out.find("hardware buffer filled during the run"), std::string::npos)
        << late.out;
    auto unknown = cli({"kernel", "1", "gemm", "--db", db});
    EXPECT_EQ(unknown.exitCode, 2);
    EXPECT_NE(unknown.err.find("run 1 has no kernel named 'gemm'"), std::string::npos)
        << unknown.err;
    // "ws::kernels::" is in both signatures: the user is shown both.
    auto ambiguous = cli({"kernel", "1", "ws::kernels::", "--db", db});
    EXPECT_EQ(ambiguous.exitCode, 2);
    EXPECT_NE(ambiguous.err.find("names 2 kernels"), std::string::npos) << ambiguous.err;
}

TEST(CliKernel, WithoutADriverThePcSampledProgramRunsAndTheRunSaysWhatWasAsked) {
    testing::TempDir dir;
    const auto db = dir.file("runs.wsdb");
    auto r = cli({"record", "--db", db, "--pc-sampling", "--pc-sampling-period", "12", "--progress",
                  "none", "--", "/bin/true"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    Store store(db);
    EXPECT_EQ(runProperties(store, 1)[pc_sampling::kCaptureProperty], "2^12 cycles");
}

// A run recorded on an H100 (scripts/gpu/pc-sampling-check.sh): the split-KV
// MMA decode attention, 20 launches with PC sampling, kept as a run bundle.
// What CUPTI 13.0 reported reads back with every reason named and explained,
// shares that add up, and lines in the kernel's own source file.
TEST(CliKernel, ARecordedDecodeAttentionRunReadsBackAsRecorded) {
    testing::TempDir dir;
    const auto db = dir.file("runs.wsdb");
    auto imported = cli({"import", testing::dataFile("pc-sampling-attention.bundle"), "--db", db});
    ASSERT_EQ(imported.exitCode, 0) << imported.err;
    auto json = cli({"kernel", "1", "decodeSplitMma", "--db", db, "--json", "--top", "5"});
    ASSERT_EQ(json.exitCode, 0) << json.err;
    auto j = nlohmann::json::parse(json.out)["pc_sampling"];
    ASSERT_TRUE(j.is_object()) << json.out;
    EXPECT_GT(j["samples"].get<std::int64_t>(), 10000);
    double sum = 0;
    for (const auto& r : j["stall_reasons"]) {
        sum += r["share"].get<double>();
        const auto about = pc_sampling::describeStallReason(r["reason"].get<std::string>());
        EXPECT_FALSE(about.hint.empty()) << r["reason"] << ": CUPTI named a reason we do not";
        EXPECT_FALSE(about.notIssued);
    }
    EXPECT_NEAR(sum, 1.0, 1e-9);
    ASSERT_FALSE(j["hot_lines"].empty());
    for (const auto& l : j["hot_lines"])
        EXPECT_GT(l["line"].get<int>(), 0);
    EXPECT_NE(j["hot_lines"][0]["file"].get<std::string>().find("attention"), std::string::npos)
        << j["hot_lines"][0];
    // As recorded: warps wait mostly at line 115, the barrier on which a
    // chunk of keys and values arrives from global memory.
    EXPECT_EQ(j["stall_reasons"][0]["title"], "Long Scoreboard");
    EXPECT_NEAR(j["stall_reasons"][0]["share"].get<double>(), 0.605, 0.001);
    EXPECT_EQ(j["hot_lines"][0]["line"], 115);
    auto text = cli({"kernel", "1", "decodeSplitMma", "--db", db});
    EXPECT_NE(text.out.find("hottest source lines"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace ws
