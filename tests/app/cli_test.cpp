// warpscope-cli as a user runs it: exit codes, output and error messages.
#include <gtest/gtest.h>

#include <zlib.h>
#include <map>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <regex>
#include <sstream>

#include "app/cli_fixture.h"
#include "io/progress_messages.h"
#include "model/process_keys.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "support/distributed_run.h"
#include "support/served_run.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

using testing::ProcessResult;
using testing::TempDir;

using CliTest = CliFixture;

TEST_F(CliTest, VersionAndHelp) {
    auto v = cli({"--version"});
    EXPECT_EQ(v.exitCode, 0);
    EXPECT_EQ(v.out.rfind("warpscope-cli ", 0), 0u);
    auto h = cli({"--help"});
    EXPECT_EQ(h.exitCode, 0);
    for (const char* c : {"ls", "show", "rm", "export", "validate"})
        EXPECT_NE(h.out.find(std::string("  ") + c + " "), std::string::npos) << c;
    EXPECT_EQ(cli({"show", "--help"}).exitCode, 0);
}

TEST_F(CliTest, UsageErrorsExitTwo) {
    EXPECT_EQ(cli({}).exitCode, 2);
    EXPECT_EQ(cli({"frobnicate"}).exitCode, 2);
    auto r = cli({"ls", "--db", db, "--colour"});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("unknown option --colour"), std::string::npos);
    // One line, never the usage dumped: what was wrong, the nearest option.
    auto near = cli({"summary", "1", "--db", db, "--jsn"});
    EXPECT_EQ(near.exitCode, 2);
    EXPECT_EQ(std::count(near.err.begin(), near.err.end(), '\n'), 1) << near.err;
    EXPECT_NE(near.err.find("did you mean --json?"), std::string::npos) << near.err;
    EXPECT_EQ(cli({"show", "--db", db}).exitCode, 2);
    EXPECT_EQ(cli({"show", "abc", "--db", db}).exitCode, 2);
    EXPECT_EQ(cli({"export", "1", "--db", db, "--format", "xml", "-o", dir.file("x")}).exitCode, 2);
    for (const char* bad : {"-5", "fast", "", "99999999"}) {
        auto rec = cli({"record", "--db", db, "--sample-ms", bad, "--", "/bin/true"});
        EXPECT_EQ(rec.exitCode, 2) << bad;
        EXPECT_NE(rec.err.find("--sample-ms must be"), std::string::npos) << rec.err;
    }
}

TEST_F(CliTest, LsListsRuns) {
    auto r = cli({"ls", "--db", db});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("llama-3.2-1b optimized"), std::string::npos);
    EXPECT_NE(r.out.find("killed"), std::string::npos);
    EXPECT_NE(r.out.find("NVIDIA H200"), std::string::npos);
}

TEST_F(CliTest, LsJsonHasTheDocumentedKeys) {
    auto r = cli({"ls", "--json", "--db", db});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto list = nlohmann::json::parse(r.out);
    ASSERT_EQ(list.size(), 4u);
    for (const auto& run : list)
        for (const char* key :
             {"id", "label", "status", "workload", "device", "started_at", "duration_ns"})
            EXPECT_TRUE(run.contains(key)) << key;
    EXPECT_EQ(list[0]["status"], "ok");
    EXPECT_EQ(list[0]["duration_ns"], 2'500'000'000LL);
    EXPECT_EQ(list[1]["status"], "failed");
    EXPECT_EQ(list[0]["workload"], "llama-3.2-1b-bf16");
}

TEST_F(CliTest, LsOnCommittedFixture) {
    // A copy: opening a store may migrate it, and the committed file must not change.
    auto copy = dir.file("fixture.wsdb");
    std::filesystem::copy_file(testing::dataFile("fixture.wsdb"), copy);
    auto r = cli({"ls", "--db", copy});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("gemm wgmma 4096"), std::string::npos);
}

TEST_F(CliTest, RefusesNonSqliteAndForeignFilesWithOneLineReason) {
    auto notes = dir.file("notes.txt");
    testing::writeFile(notes, "hello");
    auto r = cli({"ls", "--db", notes});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("not an SQLite file"), std::string::npos);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
    EXPECT_EQ(testing::readFile(notes), "hello");
    auto missing = cli({"ls", "--db", dir.file("missing.wsdb")});
    EXPECT_EQ(missing.exitCode, 1);
    EXPECT_NE(missing.err.find("no such store"), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(dir.file("missing.wsdb")));
    // Analysis commands on a mistyped --db neither create it nor pretend it is empty.
    for (const char* cmd : {"stats", "summary"}) {
        auto r2 = cli({cmd, "1", "--db", dir.file("typo.wsdb")});
        EXPECT_EQ(r2.exitCode, 1) << cmd;
        EXPECT_NE(r2.err.find("no such store"), std::string::npos) << cmd;
    }
    EXPECT_FALSE(std::filesystem::exists(dir.file("typo.wsdb")));
}

TEST_F(CliTest, ShowPrintsDeviceAndCounts) {
    auto r = cli({"show", std::to_string(runs.decoderOk), "--db", db});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("NVIDIA H200, cc 9.0, 132 SMs"), std::string::npos);
    EXPECT_NE(r.out.find("240 ("), std::string::npos);  // kernels
    auto missing = cli({"show", "99", "--db", db});
    EXPECT_EQ(missing.exitCode, 1);
    EXPECT_NE(missing.err.find("no run with id 99"), std::string::npos);
}

TEST_F(CliTest, RmDeletesRun) {
    EXPECT_EQ(cli({"rm", std::to_string(runs.kernelFailed), "--db", db}).exitCode, 0);
    auto list = nlohmann::json::parse(cli({"ls", "--json", "--db", db}).out);
    EXPECT_EQ(list.size(), 3u);
    EXPECT_EQ(cli({"rm", std::to_string(runs.kernelFailed), "--db", db}).exitCode, 1);
}

TEST_F(CliTest, LabelAndTagEditARun) {
    const auto id = std::to_string(runs.decoderOk);
    auto r = cli({"label", id, "before fusing", "--db", db});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.out, "run " + id + " is now labelled before fusing\n");
    EXPECT_EQ(cli({"label", id, "  ", "--db", db}).exitCode, 2);  // usage: empty label
    // After --, a label may start with '-' (the GUI passes labels this way).
    r = cli({"label", id, "--db", db, "--", "-O3 build"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.out, "run " + id + " is now labelled -O3 build\n");
    r = cli({"label", id, "before fusing", "--db", db});
    EXPECT_EQ(cli({"label", "99", "x", "--db", db}).exitCode, 1);

    EXPECT_EQ(cli({"tag", id, "h200, nightly", "--db", db}).exitCode, 0);
    r = cli({"tag", id, "--add", "baseline,h200", "--remove", "nightly", "--db", db});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.out, "run " + id + " tags: h200,baseline\n");
    EXPECT_EQ(cli({"tag", id, "--db", db}).out, "h200,baseline\n");
    auto list = nlohmann::json::parse(cli({"ls", "--json", "--db", db}).out);
    bool found = false;
    for (const auto& run : list)
        if (run["id"] == runs.decoderOk) {
            found = true;
            EXPECT_EQ(run["label"], "before fusing");
            EXPECT_EQ(run["tags"], "h200,baseline");
        }
    EXPECT_TRUE(found);
    EXPECT_EQ(cli({"tag", id, "", "--db", db}).out, "run " + id + " has no tags\n");
}

TEST_F(CliTest, ExportJsonHoldsEveryTable) {
    auto out = dir.file("run.json");
    auto r =
        cli({"export", std::to_string(runs.decoderOk), "--db", db, "--format", "json", "-o", out});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto j = nlohmann::json::parse(testing::readFile(out));
    EXPECT_EQ(j["kernels"].size(), 240u);
    EXPECT_EQ(j["memcpys"].size(), 6u);
    EXPECT_EQ(j["tokens"].size(), 10u);
    EXPECT_EQ(j["samples"].size(), 10u);
    EXPECT_EQ(j["device_info"]["compute_capability"], "9.0");
    EXPECT_EQ(j["kernels"][0]["block_x"], 256);
    EXPECT_TRUE(j["metrics"].is_array());  // hardware counters: none in the fixture
}

TEST_F(CliTest, ExportCsvOneTable) {
    auto out = dir.file("memcpys.csv");
    auto r = cli({"export", std::to_string(runs.decoderOk), "--db", db, "--format", "csv",
                  "--table", "memcpys", "-o", out});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto text = testing::readFile(out);
    EXPECT_EQ(
        text.substr(0, text.find('\n')),
        "start_ns,end_ns,duration_ns,device_id,context_id,stream_id,process_id,correlation_id,kind,"
        "src_kind,dst_kind,bytes,graph_id");
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 7);
    auto kernels = dir.file("k.csv");
    ASSERT_EQ(cli({"export", std::to_string(runs.kernelFailed), "--db", db, "--format", "csv", "-o",
                   kernels})
                  .exitCode,
              0);
    // Names with commas are quoted; the demangled name stands beside each one.
    const std::string csv = testing::readFile(kernels);
    EXPECT_NE(csv.find("\"gemm_bf16_wgmma_tma<128, 256, 64>\""), std::string::npos);
    EXPECT_NE(csv.find(",name,demangled,grid_x,"), std::string::npos) << csv.substr(0, 300);
    // Each kernel names the process that launched it (its stream's).
    EXPECT_NE(csv.find("stream_id,process_id,correlation_id"), std::string::npos);
    const std::string row = csv.substr(csv.find('\n') + 1, csv.find('"') - csv.find('\n') - 1);
    auto cell = [&](int index) {
        std::size_t at = 0;
        for (int i = 0; i < index; ++i)
            at = row.find(',', at) + 1;
        return std::stoul(row.substr(at, row.find(',', at) - at));
    };
    EXPECT_EQ(cell(6), 0u);  // the fixture says nothing of its streams' processes
    {
        Store store(db);
        StoreWriter w(store, runs.kernelFailed);
        w.add(GpuStreamRecord{static_cast<std::uint32_t>(cell(3)),
                              static_cast<std::uint32_t>(cell(5)), 4343, 7});
        w.flush();
    }
    ASSERT_EQ(cli({"export", std::to_string(runs.kernelFailed), "--db", db, "--format", "csv", "-o",
                   kernels})
                  .exitCode,
              0);
    const std::string withProcess = testing::readFile(kernels);
    EXPECT_NE(withProcess.find("," + std::to_string(cell(5)) + ",4343,"), std::string::npos)
        << withProcess.substr(0, 400);
}

TEST_F(CliTest, ValidateReportsFileLineColumnField) {
    auto good = dir.file("good.toml");
    testing::writeFile(good, "name = \"x\"\nkind = \"command\"\n[command]\nprogram = \"true\"\n");
    auto ok = cli({"validate", good});
    EXPECT_EQ(ok.exitCode, 0);
    EXPECT_NE(ok.out.find("ok (x, command)"), std::string::npos);
    auto bad = dir.file("bad.toml");
    testing::writeFile(bad,
                       "name = \"x\"\nkind = \"command\"\n[command]\nprogram = \"true\"\n"
                       "timeout = 5\n");
    auto r = cli({"validate", bad});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_EQ(r.err, bad + ":5:1: command.timeout: unknown field\n");
}

// A folder stands for its configs (it once read as an empty file: "name:
// required field is missing").
TEST_F(CliTest, ValidateTakesAFolderAsItsConfigs) {
    auto all = cli({"validate", WARPSCOPE_SOURCE_DIR "/resources/workloads"});
    EXPECT_EQ(all.exitCode, 0) << all.err;
    EXPECT_NE(all.out.find("serve-cpu.toml: ok (serve-cpu, serve)"), std::string::npos) << all.out;
    auto empty = cli({"validate", dir.path().string()});
    EXPECT_EQ(empty.exitCode, 1);
    EXPECT_NE(empty.err.find("is a folder, not a config file"), std::string::npos) << empty.err;
    EXPECT_EQ(empty.err.find("missing"), std::string::npos) << empty.err;
}

TEST_F(CliTest, ValidateKnowsServeConfigs) {
    auto ok = cli({"validate", WARPSCOPE_SOURCE_DIR "/resources/workloads/serve-cpu.toml"});
    EXPECT_EQ(ok.exitCode, 0) << ok.err;
    EXPECT_NE(ok.out.find("ok (serve-cpu, serve)"), std::string::npos);
    auto bad = dir.file("serve.toml");
    testing::writeFile(bad,
                       "name = \"s\"\nkind = \"serve\"\n[serve]\nmax_num_seqs = 64\n"
                       "max_num_batched_tokens = 16\n");
    auto r = cli({"validate", bad});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_EQ(
        r.err.rfind(bad + ":5:26: serve.max_num_batched_tokens: 16 is less than max_num_seqs", 0),
        0u)
        << r.err;
}

}  // namespace
}  // namespace ws

namespace ws {
namespace {

TEST_F(CliTest, OccupancyJsonHasDocumentedKeys) {
    auto r = cli({"occupancy", "--cc", "9.0", "--threads", "256", "--regs", "128", "--smem",
                  "16384", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["active_blocks_per_sm"], 2);
    EXPECT_EQ(j["active_warps_per_sm"], 16);
    EXPECT_DOUBLE_EQ(j["occupancy"].get<double>(), 0.25);
    EXPECT_EQ(j["limiter"], "registers");
    // Machine-readable in JSON ("shared_memory"), words for people.
    auto smem =
        cli({"occupancy", "--cc", "9.0", "--threads", "128", "--regs", "32", "--smem", "100000"});
    EXPECT_NE(smem.out.find("limited by shared memory\n"), std::string::npos) << smem.out;
    EXPECT_EQ(nlohmann::json::parse(cli({"occupancy", "--cc", "9.0", "--threads", "128", "--regs",
                                         "32", "--smem", "100000", "--json"})
                                        .out)["limiter"],
              "shared_memory");
    // Waves and the tail effect with a grid and SM count: 264 blocks a wave
    // on 132 SMs, 600 blocks are 2 full waves and one 27 % full.
    auto waves =
        nlohmann::json::parse(cli({"occupancy", "--cc", "9.0", "--threads", "256", "--regs", "128",
                                   "--grid", "600", "--sms", "132", "--json"})
                                  .out);
    EXPECT_EQ(waves["blocks_per_wave"], 264);
    EXPECT_EQ(waves["full_waves"], 2);
    EXPECT_EQ(waves["tail_wave_blocks"], 72);
    EXPECT_NEAR(waves["waves_per_sm"].get<double>(), 600.0 / 264, 1e-12);
    EXPECT_NEAR(waves["tail_duration_share"].get<double>(), 1.0 / 3, 1e-12);
    EXPECT_EQ(cli({"occupancy", "--cc", "9.0", "--threads", "256", "--regs", "32", "--grid", "600"})
                  .exitCode,
              2);  // --grid without --sms
    EXPECT_EQ(cli({"occupancy", "--cc", "10.0", "--threads", "256", "--regs", "32"}).exitCode, 0);
    EXPECT_EQ(cli({"occupancy", "--cc", "6.1", "--threads", "256", "--regs", "32"}).exitCode, 2);
    EXPECT_EQ(cli({"occupancy", "--cc", "9.0", "--threads", "abc", "--regs", "32"}).exitCode, 2);
}

TEST_F(CliTest, StatsJsonUsesVllmNames) {
    auto r = cli({"stats", std::to_string(runs.decoderOk), "--db", db, "--json", "--percentiles",
                  "50,90,99"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    // Fixture: TTFT 0.2 ms and 0.22 ms, tokens 0.16 ms apart, 5 per request.
    EXPECT_EQ(j["completed"], 2);
    EXPECT_NEAR(j["mean_ttft_ms"].get<double>(), 0.21, 1e-9);
    EXPECT_NEAR(j["p50_ttft_ms"].get<double>(), 0.21, 1e-9);
    EXPECT_NEAR(j["mean_itl_ms"].get<double>(), 0.16, 1e-9);
    EXPECT_NEAR(j["mean_tpot_ms"].get<double>(), 0.16, 1e-9);
    for (const char* key : {"median_ttft_ms", "std_ttft_ms", "p90_ttft_ms", "p99_ttft_ms",
                            "mean_e2el_ms", "p99_itl_ms", "request_throughput", "output_throughput",
                            "total_token_throughput", "request_goodput"})
        EXPECT_TRUE(j.contains(key)) << key;
    auto text = cli({"stats", std::to_string(runs.decoderOk), "--db", db});
    EXPECT_EQ(text.exitCode, 0);
    EXPECT_NE(text.out.find("ttft"), std::string::npos);
    auto none = cli({"stats", std::to_string(runs.commandKilled), "--db", db});
    EXPECT_EQ(none.exitCode, 0);
    EXPECT_NE(none.out.find("no requests with tokens"), std::string::npos);
    EXPECT_EQ(cli({"stats", "1", "--db", db, "--percentiles", "x"}).exitCode, 2);
}

// A served run with a prefill step between decode steps (support/served_run.h):
// the ITL that spans it is the outlier, and its time is the prefill step's.
TEST_F(CliTest, OutliersNameWhatTheSlowestItlsWaitedFor) {
    RunId served = testing::writeServedRun(db);
    auto r = cli({"outliers", std::to_string(served), "--db", db, "--json", "--top", "3"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["itl_count"], 19);
    EXPECT_EQ(j["engine_steps"], 20);
    EXPECT_EQ(j["outlier_count"], 1);
    ASSERT_EQ(j["outliers"].size(), 1u);
    const auto& o = j["outliers"][0];
    EXPECT_EQ(o["token_index"], 10);
    EXPECT_NEAR(o["itl_ms"].get<double>(), 9.0, 1e-9);
    EXPECT_EQ(o["prefill_tokens"], 512);
    // [end of step 9 + 50 µs, end of step 10 + 50 µs): 8.95 ms of the prefill
    // step, then 50 µs of the next step before its kernel starts.
    EXPECT_NEAR(o["split"]["prefill_share"].get<double>(), 8.95 / 9, 1e-9);
    EXPECT_NEAR(o["split"]["launch_gap_ms"].get<double>(), 0.05, 1e-9);
    EXPECT_NEAR(j["all"]["kernel_ms"].get<double>(), 18 * 0.8, 1e-9);
    auto text = cli({"outliers", std::to_string(served), "--db", db});
    ASSERT_EQ(text.exitCode, 0) << text.err;
    EXPECT_NE(text.out.find("99 % / 0 % / 1 % / 0 %"), std::string::npos) << text.out;
    auto clientOnly = cli({"outliers", std::to_string(runs.decoderOk), "--db", db});
    EXPECT_EQ(clientOnly.exitCode, 0);
    EXPECT_NE(clientOnly.out.find("no engine.step ranges"), std::string::npos) << clientOnly.out;
    auto missing = cli({"outliers", "999", "--db", db});
    EXPECT_EQ(missing.exitCode, 1);
    EXPECT_NE(missing.err.find("no run with id 999"), std::string::npos) << missing.err;
}

// Two ranks on one GPU (each a process, RANK from its environment): the
// text and JSON name who arrives last and by how much.
TEST_F(CliTest, CollectivesNameTheLateRank) {
    RunId run = 0;
    {
        Store store(db);
        run = testing::writeTwoRankRun(store);  // rank 0 (pid 900) 300 µs late, 16 times
    }
    auto r = cli({"collectives", std::to_string(run), "--db", db, "--json", "--top", "3"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["instances"], 16);
    ASSERT_EQ(j["ranks"].size(), 2u);
    EXPECT_EQ(j["ranks"][0]["pid"], 900);
    EXPECT_EQ(j["ranks"][0]["last_arrivals"], 16);
    EXPECT_EQ(j["ranks"][1]["wait_ns"], 16 * 300'000);
    EXPECT_EQ(j["collectives"][0]["skew_p99_ns"], 300'000);
    EXPECT_EQ(j["most_skewed"].size(), 3u);
    auto text = cli({"collectives", std::to_string(run), "--db", db});
    ASSERT_EQ(text.exitCode, 0) << text.err;
    EXPECT_NE(text.out.find("rank 0 arrives last in 100 % of AllReduce (16), 300 µs behind"),
              std::string::npos)
        << text.out;
    auto none = cli({"collectives", "1", "--db", db});
    EXPECT_EQ(none.exitCode, 0) << none.err;
    EXPECT_NE(none.out.find("no NCCL kernels in the run"), std::string::npos) << none.out;
}

// The same served run by step kind: 19 decode-only steps and one mixed step,
// each with its kernels; --kind shows one kind's kernel table.
TEST_F(CliTest, StepsSplitTheServersStepsAndKernelsByKind) {
    RunId served = testing::writeServedRun(db);
    auto r = cli({"steps", std::to_string(served), "--db", db, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["engine_steps"], 20);
    ASSERT_EQ(j["kinds"].size(), 2u);
    const auto& decode = j["kinds"][0];
    EXPECT_EQ(decode["kind"], "decode");
    EXPECT_EQ(decode["steps"], 19);
    EXPECT_EQ(decode["decode_tokens"], 19 * 4);
    EXPECT_NEAR(decode["kernel_ns"].get<double>(), 19 * 800'000.0, 1e-6);
    EXPECT_NEAR(decode["gpu_busy_fraction"].get<double>(), 0.8, 1e-9);
    const auto& mixed = j["kinds"][1];
    EXPECT_EQ(mixed["kind"], "mixed");
    EXPECT_EQ(mixed["steps"], 1);
    EXPECT_EQ(mixed["prefill_tokens"], 512);
    EXPECT_NEAR(mixed["step_mean_ns"].get<double>(), 9e6, 1e-6);
    EXPECT_NEAR(mixed["gpu_busy_fraction"].get<double>(), 0.8 / 9, 1e-9);
    EXPECT_EQ(mixed["kernels"][0]["name"], "decode");
    EXPECT_FALSE(j.contains("speed_of_light"));  // the server declares no step costs
    auto text = cli({"steps", std::to_string(served), "--db", db, "--kind", "mixed"});
    ASSERT_EQ(text.exitCode, 0) << text.err;
    EXPECT_NE(text.out.find("no speed-of-light floor: the server does not declare"),
              std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("Kernels in mixed steps"), std::string::npos) << text.out;
    EXPECT_EQ(text.out.find("Kernels in decode steps"), std::string::npos) << text.out;
    auto bad = cli({"steps", std::to_string(served), "--db", db, "--kind", "warmup"});
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.err.find("--kind must be decode, mixed, prefill or other, not 'warmup'"),
              std::string::npos)
        << bad.err;
    // A decoder run has tokens but no engine steps: its decode steps are told
    // from the tokens instead, each against its floor when the run declares one.
    auto tokens = cli({"steps", std::to_string(runs.decoderOk), "--db", db});
    EXPECT_NE(tokens.out.find("no engine.step ranges; "), std::string::npos) << tokens.out;
    EXPECT_NE(tokens.out.find("decode steps told from its tokens"), std::string::npos)
        << tokens.out;
    EXPECT_NE(tokens.out.find("launch gaps (GPU idle between"), std::string::npos) << tokens.out;
    // Prefill: TTFTs of 200 and 220 µs; the fixture declares no prefill FLOPs.
    EXPECT_NE(tokens.out.find("prefill: 2 prompts, TTFT 0.210 ms mean; no floor (the run does "
                              "not declare decoder.prefill_flops"),
              std::string::npos)
        << tokens.out;
    auto tokensJson = cli({"steps", std::to_string(runs.decoderOk), "--db", db, "--json"});
    ASSERT_EQ(tokensJson.exitCode, 0) << tokensJson.err;
    const auto tj = nlohmann::json::parse(tokensJson.out);
    EXPECT_GT(tj["token_steps"].get<int>(), 0) << tokensJson.out;
    EXPECT_DOUBLE_EQ(tj["ttft_mean_ns"].get<double>(), 210'000);
}

// A server that declares its step costs: each step against its floor
// (served_run.h works the figures out), and where the window goes.
TEST_F(CliTest, StepsSetAServersStepsAgainstTheirSpeedOfLight) {
    RunId served = testing::writeServedRun(db, true);
    auto r = cli({"steps", std::to_string(served), "--db", db, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto sol = nlohmann::json::parse(r.out)["speed_of_light"];
    ASSERT_EQ(sol["kinds"].size(), 3u) << sol.dump();
    EXPECT_EQ(sol["kinds"][0]["kind"], "decode");
    EXPECT_NEAR(sol["kinds"][0]["sol_percent"].get<double>(), 44.04, 1e-9);
    EXPECT_EQ(sol["kinds"][1]["kind"], "mixed");
    EXPECT_NEAR(sol["kinds"][1]["floor_total_ns"].get<double>(), 532'700, 1e-6);
    EXPECT_EQ(sol["kinds"][2]["kind"], "all");
    EXPECT_NEAR(sol["kinds"][2]["sol_percent"].get<double>(), 100 * 8'900'300 / 28e6, 1e-9);
    EXPECT_NEAR(sol["window_ns"].get<double>(), 28e6, 1e-6);
    EXPECT_NEAR(sol["prefill_interference_ns"].get<double>(), 8e6, 1e-6);
    auto text = cli({"steps", std::to_string(served), "--db", db});
    ASSERT_EQ(text.exitCode, 0) << text.err;
    EXPECT_NE(text.out.find("Speed of light: each step's floor"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("decodes waited 8.000 ms on prefill"), std::string::npos) << text.out;
}

TEST_F(CliTest, ImportVllmResultAndRefuseForeignFile) {
    auto r =
        cli({"import", testing::dataFile("vllm_result.json"), "--db", db, "--label", "served"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("40 requests"), std::string::npos);
    auto list = nlohmann::json::parse(cli({"ls", "--json", "--db", db}).out);
    EXPECT_EQ(list.back()["label"], "served");
    auto foreign = dir.file("trace.json");
    testing::writeFile(foreign, "{\"traceEvents\": []}");
    auto bad = cli({"import", foreign, "--db", db});
    EXPECT_EQ(bad.exitCode, 1);
    EXPECT_NE(bad.err.find("not a format Warpscope imports"), std::string::npos);
    EXPECT_EQ(nlohmann::json::parse(cli({"ls", "--json", "--db", db}).out).size(), list.size());

    // A PyTorch profiler trace from the H200: kernels, and tokens by the convention.
    auto torch = cli({"import", testing::dataFile("kineto_llama_h200.json"), "--db", db});
    ASSERT_EQ(torch.exitCode, 0) << torch.err;
    EXPECT_NE(torch.out.find("PyTorch profiler (Kineto) trace"), std::string::npos) << torch.out;
    EXPECT_NE(torch.out.find("859 kernels, 1 requests"), std::string::npos) << torch.out;
}

}  // namespace
}  // namespace ws

namespace ws {
namespace {

TEST_F(CliTest, CompareAndSummaryCommands) {
    auto r = cli({"compare", std::to_string(runs.decoderOk), std::to_string(runs.kernelFailed),
                  "--db", db, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j.size(), 1u);
    EXPECT_EQ(j[0]["base"], runs.decoderOk);
    // The decoder's kernels vanished in the GEMM run, and its GEMM is new.
    bool sawNew = false, sawVanished = false;
    for (const auto& k : j[0]["kernels"]) {
        sawNew |= k["presence"] == "new";
        sawVanished |= k["presence"] == "vanished";
    }
    EXPECT_TRUE(sawNew && sawVanished);
    EXPECT_FALSE(j[0]["notes"].empty());  // the GEMM run has no tokens
    auto self = nlohmann::json::parse(cli({"compare", std::to_string(runs.decoderOk),
                                           std::to_string(runs.decoderOk), "--db", db, "--json"})
                                          .out);
    for (const auto& m : self[0]["latency"])
        if (m["verdict"] != "not comparable") {
            EXPECT_EQ(m["verdict"], "within noise") << m;
        }
    EXPECT_EQ(cli({"compare", "1", "--db", db}).exitCode, 2);

    auto s = cli({"summary", std::to_string(runs.decoderOk), "--db", db, "--json"});
    ASSERT_EQ(s.exitCode, 0) << s.err;
    auto sj = nlohmann::json::parse(s.out);
    EXPECT_EQ(sj["kernels"].size(), 4u);
    EXPECT_EQ(sj["kernels"][0]["instances"], 60);
    EXPECT_EQ(sj["memcpys"].size(), 2u);
    EXPECT_EQ(sj["window"], "run");
    // Each kernel names its class, as `whatif --faster CLASS=…` takes it.
    std::map<std::string, std::string> classOf;
    for (const auto& k : sj["kernels"])
        classOf[k["name"]] = k["class"];
    EXPECT_EQ(classOf["gemv_bf16_splitk"], "matmul");
    EXPECT_EQ(classOf["attention_decode_splitkv"], "attention");
    EXPECT_EQ(classOf["rmsnorm_fused_bf16"], "elementwise");
    // --top limits the JSON's tables too; the totals say what was left out.
    auto top = nlohmann::json::parse(
        cli({"summary", std::to_string(runs.decoderOk), "--db", db, "--json", "--top", "2"}).out);
    EXPECT_EQ(top["kernels"].size(), 2u);
    EXPECT_EQ(top["kernels_total"], 4);

    // show --json: the text's facts as an object, the log included.
    auto shown = cli({"show", std::to_string(runs.decoderOk), "--db", db, "--json"});
    ASSERT_EQ(shown.exitCode, 0) << shown.err;
    auto sh = nlohmann::json::parse(shown.out);
    EXPECT_EQ(sh["run"], runs.decoderOk);
    EXPECT_EQ(sh["status"], "ok");
    EXPECT_GT(sh["kernels"].get<int>(), 0);
    EXPECT_TRUE(sh["properties"].is_object());
    EXPECT_TRUE(sh["log"].is_string());
}

// summary and compare say which part of the run their tables cover, and
// --window picks it: the fixture's decode steps each launch one kernel.
TEST_F(CliTest, WindowPicksAndNamesWhatTablesCover) {
    auto run = std::to_string(runs.decoderOk);
    auto whole = cli({"summary", run, "--db", db});
    ASSERT_EQ(whole.exitCode, 0) << whole.err;
    EXPECT_NE(whole.out.find("Window: whole run"), std::string::npos) << whole.out;
    auto steps = cli({"summary", run, "--db", db, "--window", "range:decode_step", "--json"});
    ASSERT_EQ(steps.exitCode, 0) << steps.err;
    auto j = nlohmann::json::parse(steps.out);
    EXPECT_EQ(j["window"], "range:decode_step");
    EXPECT_NE(j["window_label"].get<std::string>().find("first of its 4 instances"),
              std::string::npos);
    EXPECT_LT(j["gpu_span_ns"].get<double>(), 640'000 + 1);  // inside the four steps
    auto all = nlohmann::json::parse(cli({"summary", run, "--db", db, "--json"}).out);
    bool found = false;
    for (const auto& r : all["ranges"])
        if (r["name"] == "decode_step") {
            found = true;
            EXPECT_GT(r["kernel_inclusive_ns"].get<double>(), 0) << r;
            EXPECT_EQ(r["kernel_inclusive_ns"], r["kernel_self_ns"]) << r;  // nothing nested
        }
    EXPECT_TRUE(found);
    auto missing = cli({"summary", run, "--db", db, "--window", "range:nope"});
    EXPECT_EQ(missing.exitCode, 2);
    EXPECT_NE(missing.err.find("has no NVTX range 'nope'"), std::string::npos) << missing.err;
    auto bad = cli({"compare", run, run, "--db", db, "--window", "everything"});
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.err.find("none of run, requests, range:NAME or FROM:TO"), std::string::npos)
        << bad.err;
    auto cmp = cli({"compare", run, run, "--db", db, "--window", "run", "--json"});
    ASSERT_EQ(cmp.exitCode, 0) << cmp.err;
    auto c = nlohmann::json::parse(cmp.out);
    EXPECT_EQ(c[0]["kernel_window"]["base"], "whole run");
    auto text = cli({"compare", run, run, "--db", db});
    EXPECT_NE(text.out.find("window: baseline while requests were served"), std::string::npos)
        << text.out;
}

}  // namespace
}  // namespace ws

namespace ws {
namespace {

// Repeated decoder runs added to the fixture store: a series of the cuBLAS
// variant and one of the fused variant (10 % faster per token), 8 requests
// of 16 tokens each, run-to-run scatter 2 %; and runs --series must leave
// out: a failed run, a counter pass and a run on another GPU, all of the
// cuBLAS variant's workload.
struct SeriesRuns {
    std::vector<RunId> cublas, fused;
    RunId failed = 0, counterPass = 0, otherGpu = 0;
};

SeriesRuns addSeriesRuns(const std::string& path) {
    Store store(path);
    const WorkloadInfo workload{"llama-1b-decode", "decoder", "name = \"llama-1b-decode\"\n"};
    std::mt19937_64 rng(2026);
    std::normal_distribution<double> noise(0, 1);
    auto add = [&](const std::string& variant, double tpotMs, const DeviceInfo& device,
                   RunStatus status = RunStatus::Ok) {
        RunId id = store.beginRun({"series", workload, device, variant, "", "", 0});
        StoreWriter w(store, id);
        const double runTpot = tpotMs * (1 + 0.02 * noise(rng));
        std::int64_t t = 1'000'000'000;
        for (int r = 0; r < 8; ++r) {
            const std::int64_t start = t;
            t += 5'000'000;  // TTFT 5 ms
            for (int k = 0; k < 16; ++k) {
                w.add(TokenRecord{r, k, t});
                if (k < 15) t += std::llround(1e6 * runTpot * (1 + 0.01 * noise(rng)));
            }
            w.add(RequestRecord{r, start, t, 128, 16, true});
            t += 1'000'000;
        }
        w.flush();
        store.finishRun(id, status, status == RunStatus::Ok ? 0 : 1);
        return id;
    };
    SeriesRuns s;
    const auto gpu = testing::fixtureDevice();
    for (int i = 0; i < 4; ++i) {
        s.cublas.push_back(add("cublas", 1.40, gpu));
        s.fused.push_back(add("fused", 1.26, gpu));
    }
    s.failed = add("cublas", 1.40, gpu, RunStatus::Failed);
    s.counterPass = add("cublas", 9.0, gpu);
    store.setProperty(s.counterPass, "capture.metrics", "roofline");
    auto other = gpu;
    other.uuid = "GPU-00000000-0000-0000-0000-another00002";
    s.otherGpu = add("cublas", 1.40, other);
    return s;
}

std::string ids(const std::vector<RunId>& runs) {
    std::string text;
    for (auto id : runs)
        text += (text.empty() ? "" : ",") + std::to_string(id);
    return text;
}

TEST_F(CliTest, CompareSeriesGivenAsLists) {
    auto s = addSeriesRuns(db);
    auto r = cli({"compare", ids(s.cublas), ids(s.fused), "--db", db, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j.size(), 1u);
    EXPECT_EQ(j[0]["mode"], "series");
    EXPECT_TRUE(j[0]["base"].get<std::vector<RunId>>() == s.cublas);
    EXPECT_TRUE(j[0]["candidate"].get<std::vector<RunId>>() == s.fused);
    std::vector<std::string> metrics;
    for (const auto& m : j[0]["latency"])
        metrics.push_back(m["metric"]);
    EXPECT_TRUE(metrics == (std::vector<std::string>{"mean_ttft_ms", "mean_tpot_ms", "mean_itl_ms",
                                                     "mean_e2el_ms"}));
    const auto& tpot = j[0]["latency"][1];
    EXPECT_EQ(tpot["verdict"], "faster") << tpot.dump();
    EXPECT_NEAR(tpot["delta"].get<double>(), -0.14, 0.05);
    EXPECT_EQ(tpot["base_runs"], 4);
    EXPECT_EQ(tpot["base_requests"], 32);
    for (const char* key :
         {"ci95_low", "ci95_high", "standard_error", "degrees_of_freedom", "mde", "runs_needed"})
        EXPECT_TRUE(tpot[key].is_number()) << key << ": " << tpot.dump();
    EXPECT_LT(tpot["ci95_high"].get<double>(), 0);
    EXPECT_GT(tpot["variance"]["base"]["within_run_variance"].get<double>(), 0);
    const auto& pooled = tpot["pooled"];
    EXPECT_EQ(pooled["label"], "pooled (ignores run-to-run variance)");
    // The pooled interval treats 32 requests as independent: it is narrower.
    EXPECT_LT(pooled["ci95_high"].get<double>() - pooled["ci95_low"].get<double>(),
              tpot["ci95_high"].get<double>() - tpot["ci95_low"].get<double>());
    // TTFT is the same 5 ms everywhere.
    EXPECT_EQ(j[0]["latency"][0]["verdict"], "within noise") << j[0]["latency"][0].dump();

    // One run on a side: no run-to-run variance to estimate; said, and the pooled interval shown.
    auto single = cli({"compare", ids(s.cublas), std::to_string(s.fused[0]), "--db", db, "--json"});
    ASSERT_EQ(single.exitCode, 0) << single.err;
    const auto one = nlohmann::json::parse(single.out)[0]["latency"][1];
    EXPECT_EQ(one["verdict"], "not comparable");
    EXPECT_TRUE(one["ci95_low"].is_null());
    EXPECT_TRUE(one["pooled"]["ci95_low"].is_number());
    EXPECT_FALSE(one["notes"].empty());

    // --resolve asks how many runs a 1 % difference needs.
    auto resolve = nlohmann::json::parse(
        cli({"compare", ids(s.cublas), ids(s.fused), "--db", db, "--json", "--resolve", "1"}).out);
    const auto& t1 = resolve[0]["latency"][1];
    EXPECT_NEAR(t1["target"].get<double>(), 0.01 * t1["base"].get<double>(), 1e-9);
    EXPECT_GT(t1["runs_needed"].get<int>(), tpot["runs_needed"].get<int>());

    auto text = cli({"compare", ids(s.cublas), ids(s.fused), "--db", db});
    ASSERT_EQ(text.exitCode, 0) << text.err;
    EXPECT_NE(text.out.find("series " + ids(s.fused) + " against baseline series " + ids(s.cublas)),
              std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("pooled (ignores run-to-run variance): delta"), std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("runs per side"), std::string::npos) << text.out;
}

TEST_F(CliTest, CompareSeriesExpandsRunsOfTheSameWorkloadAndSettings) {
    auto s = addSeriesRuns(db);
    auto r = cli({"compare", std::to_string(s.cublas[1]), std::to_string(s.fused[0]), "--series",
                  "--db", db, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    // Not the failed run, the counter pass or the run on another GPU.
    EXPECT_TRUE(j[0]["base"].get<std::vector<RunId>>() == s.cublas) << j[0]["base"];
    EXPECT_TRUE(j[0]["candidate"].get<std::vector<RunId>>() == s.fused) << j[0]["candidate"];
    // A list is taken as given, even with --series.
    auto listed =
        nlohmann::json::parse(cli({"compare", ids({s.cublas[0], s.cublas[1]}),
                                   std::to_string(s.fused[0]), "--series", "--db", db, "--json"})
                                  .out);
    EXPECT_EQ(listed[0]["base"].size(), 2u);
    EXPECT_EQ(listed[0]["candidate"].size(), 4u);
}

TEST_F(CliTest, CompareSeriesRefusesBadLists) {
    auto s = addSeriesRuns(db);
    auto missing = cli({"compare", ids(s.cublas) + ",999", ids(s.fused), "--db", db});
    EXPECT_EQ(missing.exitCode, 2);
    EXPECT_NE(missing.err.find("run 999 of the series"), std::string::npos) << missing.err;
    auto garbage = cli({"compare", ids(s.cublas) + ",x", ids(s.fused), "--db", db});
    EXPECT_EQ(garbage.exitCode, 2);
    EXPECT_NE(garbage.err.find("'x' is not a run id"), std::string::npos) << garbage.err;
    auto both = cli({"compare", ids(s.cublas), ids({s.cublas[3], s.fused[0]}), "--db", db});
    EXPECT_EQ(both.exitCode, 2);
    EXPECT_NE(both.err.find("run " + std::to_string(s.cublas[3]) + " is in both"),
              std::string::npos)
        << both.err;
    // Two runs of one series, each grown to the same series.
    auto same = cli({"compare", std::to_string(s.cublas[0]), std::to_string(s.cublas[1]),
                     "--series", "--db", db});
    EXPECT_EQ(same.exitCode, 2);
    EXPECT_NE(same.err.find("is in both"), std::string::npos) << same.err;
    auto twice = cli({"compare", ids({s.cublas[0], s.cublas[0]}), ids(s.fused), "--db", db});
    EXPECT_EQ(twice.exitCode, 2);
    EXPECT_NE(twice.err.find("listed twice"), std::string::npos) << twice.err;
    EXPECT_EQ(cli({"compare", ids(s.cublas), ids(s.fused), "--db", db, "--top", "3"}).exitCode, 2);
    EXPECT_EQ(cli({"compare", ids(s.cublas), ids(s.fused), "--db", db, "--resolve", "0"}).exitCode,
              2);
    EXPECT_EQ(cli({"compare", std::to_string(s.cublas[0]), std::to_string(s.fused[0]), "--db", db,
                   "--resolve", "2"})
                  .exitCode,
              2);
    auto trailing = cli({"compare", ids(s.cublas) + ",", ids(s.fused), "--db", db});
    EXPECT_EQ(trailing.exitCode, 2);
    EXPECT_NE(trailing.err.find("'' is not a run id"), std::string::npos) << trailing.err;
}

}  // namespace
}  // namespace ws

namespace ws {
namespace {

TEST_F(CliTest, ExportChromeTraceForPerfetto) {
    auto out = dir.file("trace.json");
    auto r = cli({"export", std::to_string(runs.decoderOk), "--db", db, "--format", "chrome-trace",
                  "-o", out});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto j = nlohmann::json::parse(testing::readFile(out));
    ASSERT_TRUE(j.contains("traceEvents"));
    int kernels = 0, flowsStart = 0, flowsEnd = 0, counters = 0, nvtx = 0, instants = 0, names = 0,
        hostThreadNames = 0;
    for (const auto& e : j["traceEvents"]) {
        auto ph = e["ph"].get<std::string>();
        if (ph == "X" && e["cat"] == "kernel") ++kernels;
        if (ph == "X" && e["cat"] == "nvtx") ++nvtx;
        if (ph == "s") ++flowsStart;
        if (ph == "f") ++flowsEnd;
        if (ph == "C") ++counters;
        if (ph == "i") ++instants;
        if (ph == "M") ++names;
        if (ph == "X") {
            EXPECT_GE(e["dur"].get<double>(), 0);
        }
        if (e.contains("ts")) {
            EXPECT_GE(e["ts"].get<double>(), 0) << e;  // from the run's start
        }
        if (ph == "X" && e["cat"] == "kernel") {
            // Demangled for reading, the mangled name kept for matching.
            EXPECT_EQ(e["name"].get<std::string>().rfind("_Z", 0), std::string::npos) << e;
            EXPECT_TRUE(e["args"].contains("mangled_name")) << e;
        }
        if (ph == "M" && e["name"] == "thread_name" && e["pid"].get<std::int64_t>() < 1'000'000'000)
            ++hostThreadNames;
    }
    EXPECT_GE(hostThreadNames, 1);  // host threads are named, not only GPU streams
    EXPECT_EQ(kernels, 240);
    EXPECT_EQ(nvtx, 5);
    EXPECT_EQ(flowsStart, 4);  // the four recorded launches
    EXPECT_EQ(flowsEnd, 240);  // every kernel can end a flow
    // Power, SM and memory clock, temperature × 10 samples; NVLink (tx and
    // rx in one) from the start of each of the 9 intervals, and 0 at the end.
    EXPECT_EQ(counters, 40 + 9 + 1);
    EXPECT_GE(names, 3);  // the GPU process and its two streams
    EXPECT_EQ(instants, 0);
}

// Kernel slices of a Chrome trace export, as (ts, dur) in µs.
std::vector<std::pair<double, double>> kernelSlices(const nlohmann::json& trace) {
    std::vector<std::pair<double, double>> out;
    for (const auto& e : trace["traceEvents"])
        if (e["ph"] == "X" && e["cat"] == "kernel")
            out.emplace_back(e["ts"].get<double>(), e["dur"].get<double>());
    return out;
}

std::string gunzip(const std::string& bytes) {
    z_stream z{};
    EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    z.avail_in = static_cast<uInt>(bytes.size());
    std::string out;
    char buf[1 << 16];
    int rc = Z_OK;
    while (rc == Z_OK) {
        z.next_out = reinterpret_cast<Bytef*>(buf);
        z.avail_out = sizeof buf;
        rc = inflate(&z, Z_NO_FLUSH);
        out.append(buf, sizeof buf - z.avail_out);
    }
    EXPECT_EQ(rc, Z_STREAM_END);
    inflateEnd(&z);
    return out;
}

TEST_F(CliTest, ExportChromeTraceOfAWindowOrRangeAndGzipped) {
    const auto run = std::to_string(runs.decoderOk);
    auto exportTo = [&](const std::string& file, std::vector<std::string> extra) {
        std::vector<std::string> argv = {"export",       run,  "--db",        db, "--format",
                                         "chrome-trace", "-o", dir.file(file)};
        argv.insert(argv.end(), extra.begin(), extra.end());
        return cli(argv);
    };
    ASSERT_EQ(exportTo("whole.json", {}).exitCode, 0);
    auto whole = nlohmann::json::parse(testing::readFile(dir.file("whole.json")));
    auto all = kernelSlices(whole);
    ASSERT_EQ(all.size(), 240u);

    // An NVTX range: exactly the kernels overlapping its instances' span.
    std::string range;
    double from = 0, to = 0;
    for (const auto& e : whole["traceEvents"])
        if (e["ph"] == "X" && e["cat"] == "nvtx") {
            double ts = e["ts"].get<double>(), end = ts + e["dur"].get<double>();
            std::size_t inside = 0;
            for (const auto& [kts, kdur] : all)
                inside += kts < end && kts + kdur > ts;
            if (inside > 0 && inside < all.size()) {
                range = e["name"].get<std::string>();
                from = ts, to = end;
                break;
            }
        }
    ASSERT_FALSE(range.empty()) << "the fixture has a range over some of its kernels";
    for (const auto& e : whole["traceEvents"])
        if (e["ph"] == "X" && e["cat"] == "nvtx" && e["name"] == range) {
            from = std::min(from, e["ts"].get<double>());
            to = std::max(to, e["ts"].get<double>() + e["dur"].get<double>());
        }
    auto r = exportTo("range.json", {"--range", range});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto inRange = kernelSlices(nlohmann::json::parse(testing::readFile(dir.file("range.json"))));
    std::size_t expected = 0;
    for (const auto& [kts, kdur] : all)
        expected += kts < to && kts + kdur > from;
    EXPECT_EQ(inRange.size(), expected);
    for (const auto& [kts, kdur] : inRange)
        EXPECT_TRUE(kts < to && kts + kdur > from) << kts;
    ASSERT_EQ(exportTo("range2.json", {"--window", "range:" + range}).exitCode, 0);
    EXPECT_EQ(testing::readFile(dir.file("range2.json")),
              testing::readFile(dir.file("range.json")));

    // A span from the run's start: the first kernels only, none past it.
    ASSERT_EQ(exportTo("span.json", {"--window", "0:1us"}).exitCode, 0);
    auto early = kernelSlices(nlohmann::json::parse(testing::readFile(dir.file("span.json"))));
    EXPECT_LT(early.size(), all.size());
    ASSERT_EQ(exportTo("span-all.json", {"--window", "0:1000s"}).exitCode, 0);
    EXPECT_EQ(testing::readFile(dir.file("span-all.json")),
              testing::readFile(dir.file("whole.json")));

    // .gz: the same text, compressed.
    ASSERT_EQ(exportTo("whole.json.gz", {}).exitCode, 0);
    auto gz = testing::readFile(dir.file("whole.json.gz"));
    EXPECT_LT(gz.size(), testing::readFile(dir.file("whole.json")).size() / 3);
    EXPECT_EQ(gunzip(gz), testing::readFile(dir.file("whole.json")));

    auto backwards = exportTo("x.json", {"--window", "5ms:2ms"});
    EXPECT_EQ(backwards.exitCode, 2);
    EXPECT_NE(backwards.err.find("ends before it begins"), std::string::npos) << backwards.err;
    auto missing = exportTo("x.json", {"--range", "no such range"});
    EXPECT_EQ(missing.exitCode, 1);
    EXPECT_NE(missing.err.find("has no NVTX range 'no such range'"), std::string::npos)
        << missing.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("x.json")));
    auto csv = cli(
        {"export", run, "--db", db, "--format", "csv", "--window", "run", "-o", dir.file("x.csv")});
    EXPECT_EQ(csv.exitCode, 2);
    EXPECT_NE(csv.err.find("apply to --format chrome-trace or perfetto only"), std::string::npos)
        << csv.err;
}

// The documented command writes a Perfetto protobuf trace (tests/io/
// perfetto_trace_test.cpp reads one back field by field): a file of packets,
// smaller inside a window, gzip-compressed when asked.
TEST_F(CliTest, ExportPerfettoTraceAsDocumented) {
    const auto run = std::to_string(runs.decoderOk);
    auto exportTo = [&](const std::string& file, std::vector<std::string> extra) {
        std::vector<std::string> argv = {"export",   run,        "--db", db,
                                         "--format", "perfetto", "-o",   dir.file(file)};
        argv.insert(argv.end(), extra.begin(), extra.end());
        return cli(argv);
    };
    auto whole = exportTo("run.pftrace", {});
    ASSERT_EQ(whole.exitCode, 0) << whole.err;
    const auto bytes = testing::readFile(dir.file("run.pftrace"));
    ASSERT_GT(bytes.size(), 1000u);
    EXPECT_EQ(bytes[0], '\x0a');  // Trace.packet, field 1, length-delimited
    auto window = exportTo("part.pftrace", {"--window", "range:prefill"});
    ASSERT_EQ(window.exitCode, 0) << window.err;
    EXPECT_LT(testing::readFile(dir.file("part.pftrace")).size(), bytes.size() / 2);
    ASSERT_EQ(exportTo("run.pftrace.gz", {}).exitCode, 0);
    EXPECT_EQ(gunzip(testing::readFile(dir.file("run.pftrace.gz"))), bytes);
    auto wrong = exportTo("x.pftrace", {"--table", "kernels"});
    EXPECT_EQ(wrong.exitCode, 2);
}

TEST_F(CliTest, RooflineByRangeOnTheH200GemvLadder) {
    // Sample run 16: the GEMV ladder with hardware counters, each rung timed
    // inside a range naming its FLOPs and bytes.
    const auto samples = dir.file("samples.wsdb");
    std::filesystem::copy_file(WARPSCOPE_SOURCE_DIR "/resources/samples/h200-captures.wsdb",
                               samples);
    auto r = cli({"roofline", "16", "--by", "range", "--json", "--db", samples});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    std::map<std::string, nlohmann::json> points;
    double shares = 0;
    for (const auto& p : j["points"]) {
        points[p["name"].get<std::string>()] = p;
        shares += p["time_share"].get<double>();
    }
    EXPECT_NEAR(shares, 1.0, 1e-9);
    const std::string mma = "gemv_bf16/mma flops=134217728 bytes=134250496";
    ASSERT_TRUE(points.count(mma)) << r.out;
    // The rung's range holds its kernel's launches only: the same counted
    // intensity as that kernel's own point.
    auto byKernel = nlohmann::json::parse(cli({"roofline", "16", "--json", "--db", samples}).out);
    double kernelIntensity = 0;
    for (const auto& p : byKernel["points"])
        if (p["name"] == "gemvMma") kernelIntensity = p["intensity"].get<double>();
    ASSERT_GT(kernelIntensity, 0.0) << byKernel.dump();
    EXPECT_NEAR(points[mma]["intensity"].get<double>(), kernelIntensity, 0.01 * kernelIntensity);
    EXPECT_GT(points[mma]["theoretical_occupancy"].get<double>(), 0.0);
    EXPECT_GT(points[mma]["achieved_occupancy"].get<double>(), 0.0);
    EXPECT_TRUE(points.count("(outside any range)"));
    auto text = cli({"roofline", "16", "--by", "range", "--db", samples});
    EXPECT_NE(text.out.find("occ.theo"), std::string::npos) << text.out;
    auto bad = cli({"roofline", "16", "--by", "layer", "--db", samples});
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.err.find("--by must be kernel or range"), std::string::npos) << bad.err;
}

// Every stderr line of --progress json that is ours parses as a message;
// returns them in order.
std::vector<progress::Message> messagesOf(const std::string& err) {
    std::vector<progress::Message> out;
    std::istringstream lines(err);
    for (std::string line; std::getline(lines, line);)
        if (auto m = progress::parseJsonLine(line)) out.push_back(*m);
    return out;
}

TEST_F(CliTest, ProgressJsonSpeaksOneMessageFormatForRecordImportAndCompact) {
    // A store of its own: the fixture holds a run still recording elsewhere,
    // which compact refuses.
    const auto store = dir.file("progress.wsdb");
    auto rec = cli({"record", "--db", store, "--progress", "json", "--", "/bin/sh", "-c",
                    "echo '{\"warpscope\": \"not ours\"}' >&2; echo hello >&2; exit 4"});
    EXPECT_EQ(rec.exitCode, 1);
    auto recorded = messagesOf(rec.err);
    ASSERT_FALSE(recorded.empty()) << rec.err;
    EXPECT_EQ(recorded.back().kind, progress::Kind::Done);
    EXPECT_EQ(recorded.back().exitCode, 4);
    EXPECT_NE(recorded.back().text.find("failed, exit code 4"), std::string::npos);
    EXPECT_TRUE(std::any_of(recorded.begin(), recorded.end(), [](const progress::Message& m) {
        return m.kind == progress::Kind::Record && m.record.finished;
    }));
    // The program's own lines stay output, even one that looks like JSON.
    EXPECT_NE(rec.err.find("hello\n"), std::string::npos);
    EXPECT_EQ(recorded.size(),
              static_cast<std::size_t>(
                  std::count_if(recorded.begin(), recorded.end(), [](const progress::Message& m) {
                      return m.kind == progress::Kind::Record || m.kind == progress::Kind::Note ||
                             m.kind == progress::Kind::Done;
                  })));

    auto imported =
        cli({"import", testing::dataFile("vllm_result.json"), "--db", store, "--progress", "json"});
    ASSERT_EQ(imported.exitCode, 0) << imported.err;
    auto im = messagesOf(imported.err);
    ASSERT_EQ(im.size(), 2u) << imported.err;
    EXPECT_EQ(im[0].kind, progress::Kind::Import);
    EXPECT_GT(im[0].total, 0);
    EXPECT_EQ(im[1].kind, progress::Kind::Done);
    EXPECT_TRUE(im[1].run.has_value());

    auto compacted = cli({"compact", "--db", store, "--progress", "json"});
    ASSERT_EQ(compacted.exitCode, 0) << compacted.err;
    auto cm = messagesOf(compacted.err);
    ASSERT_FALSE(cm.empty()) << compacted.err;
    EXPECT_EQ(cm.back().kind, progress::Kind::Done);

    // A failure is an error message with the reason, usage errors included.
    auto missing = cli({"import", dir.file("nope.json"), "--db", store, "--progress", "json"});
    EXPECT_EQ(missing.exitCode, 1);
    auto err = messagesOf(missing.err);
    ASSERT_FALSE(err.empty()) << missing.err;
    EXPECT_EQ(err.back().kind, progress::Kind::Error);
    EXPECT_NE(err.back().text.find("nope.json"), std::string::npos) << err.back().text;
    auto usage = cli({"compact", "--db", store, "--progress", "json", "--bogus"});
    EXPECT_EQ(usage.exitCode, 2);
    ASSERT_FALSE(messagesOf(usage.err).empty()) << usage.err;
    EXPECT_EQ(messagesOf(usage.err).back().kind, progress::Kind::Error);
}

TEST_F(CliTest, BundledScriptsAreNamedByWarpscopeScripts) {
    // What the torch preset does: the script is found where Warpscope keeps
    // it (here the build tree's source), not relative to the working folder.
    auto config = dir.file("script.toml");
    testing::writeFile(config,
                       "name = \"scripts\"\nkind = \"command\"\n[command]\nprogram = "
                       "\"/bin/sh\"\nargs = [\"-c\", \"ls ${WARPSCOPE_SCRIPTS}/lib.sh\"]\n");
    auto store = dir.file("scripts.wsdb");
    auto r = cli({"record", "--db", store, "--workload", config, "--progress", "none"});
    EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_NE(r.out.find(WARPSCOPE_SOURCE_DIR "/scripts/gpu/lib.sh"), std::string::npos) << r.out;
}

// A multi-pass counter set records the program a second time for its DRAM
// bytes; without kernels (no GPU here) nothing matches and the run says its
// bytes stay the replay passes'. --dram-pass off runs it once.
TEST_F(CliTest, RooflineCounterPassRecordsTheProgramTwice) {
    const auto store = dir.file("dram.wsdb"), marks = dir.file("marks");
    const std::vector<std::string> program = {"--", "/bin/sh", "-c", "echo ran >> " + marks};
    auto record = [&](std::vector<std::string> options) {
        std::vector<std::string> argv = {"record", "--db", store, "--progress", "none"};
        argv.insert(argv.end(), options.begin(), options.end());
        argv.insert(argv.end(), program.begin(), program.end());
        return cli(argv);
    };
    auto r = record({"--metrics", "roofline"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(testing::readFile(marks), "ran\nran\n");
    auto shown = cli({"show", "1", "--db", store});
    EXPECT_NE(shown.out.find("capture.dram_source"), std::string::npos) << shown.out;
    EXPECT_NE(shown.out.find("the replay passes (the run has no kernel with DRAM counts)"),
              std::string::npos)
        << shown.out;
    EXPECT_EQ(cli({"ls", "--db", store}).out.find("DRAM pass"), std::string::npos);

    ASSERT_EQ(record({"--metrics", "roofline", "--dram-pass", "off"}).exitCode, 0);
    ASSERT_EQ(record({"--metrics", "dram"}).exitCode, 0);  // one pass already
    EXPECT_EQ(testing::readFile(marks), "ran\nran\nran\nran\n");
    EXPECT_EQ(record({"--metrics", "roofline", "--dram-pass", "twice"}).exitCode, 2);
    EXPECT_EQ(record({"--dram-pass", "on"}).exitCode, 2);
}

// `record` of a shell that echoes what the collector would read from its
// environment (`echo`: the shell's words), with the capture options given.
testing::ProcessResult recordEcho(const std::string& store, const std::vector<std::string>& options,
                                  const char* echo) {
    std::vector<std::string> argv = {"record", "--db", store, "--progress", "none"};
    argv.insert(argv.end(), options.begin(), options.end());
    for (const char* word : {"--", "/bin/sh", "-c", echo})
        argv.push_back(word);
    return cli(argv);
}

// How CUDA graphs were traced is a property of the run; the injected
// collector reads it from the environment.
TEST_F(CliTest, GraphTraceModeIsPassedOnAndStored) {
    const auto store = dir.file("graphs.wsdb");
    auto record = [&](const std::vector<std::string>& options) {
        return recordEcho(store, options, "echo mode=$WARPSCOPE_GRAPH_TRACE");
    };
    auto byNode = record({});
    ASSERT_EQ(byNode.exitCode, 0) << byNode.err;
    EXPECT_NE(byNode.out.find("mode=node"), std::string::npos) << byNode.out;
    auto byGraph = record({"--graph-trace", "graph"});
    ASSERT_EQ(byGraph.exitCode, 0) << byGraph.err;
    EXPECT_NE(byGraph.out.find("mode=graph"), std::string::npos) << byGraph.out;
    EXPECT_NE(cli({"show", "2", "--db", store}).out.find("capture.graph_trace"), std::string::npos);
    auto bad = record({"--graph-trace", "kernel"});
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.err.find("--graph-trace must be 'node' or 'graph', not 'kernel'"),
              std::string::npos)
        << bad.err;
}

// State-reading calls (cudaGetDevice, …) are left out unless --all-apis asks
// for them; the collector reads the choice from the environment and the run
// says which it was.
TEST_F(CliTest, QueryCallChoiceIsPassedOnAndStored) {
    const auto store = dir.file("queries.wsdb");
    auto record = [&](const std::vector<std::string>& options) {
        return recordEcho(store, options, "echo all=${WARPSCOPE_ALL_APIS:-unset}");
    };
    auto byDefault = record({});
    ASSERT_EQ(byDefault.exitCode, 0) << byDefault.err;
    EXPECT_NE(byDefault.out.find("all=unset"), std::string::npos) << byDefault.out;
    auto everyCall = record({"--all-apis"});
    ASSERT_EQ(everyCall.exitCode, 0) << everyCall.err;
    EXPECT_NE(everyCall.out.find("all=1"), std::string::npos) << everyCall.out;
    auto shown = [&](const char* run) {  // the value beside capture.query_calls
        auto out = cli({"show", run, "--db", store}).out;
        auto at = out.find("capture.query_calls");
        if (at == std::string::npos) return std::string("(not shown)");
        auto line = out.substr(at + 19, out.find('\n', at) - at - 19);
        return line.substr(line.find_first_not_of(' '));
    };
    EXPECT_EQ(shown("1"), "left out");
    EXPECT_EQ(shown("2"), "traced");
}

// --capture lean keeps what torch.profiler's CUDA-only mode keeps: the
// collector is told to leave the driver API, synchronization and overhead
// records out, no device samples are taken unless --sample-ms asks, and the
// run says which set it was; --all-apis contradicts it and runs nothing.
TEST_F(CliTest, LeanCaptureIsPassedOnStoredAndChecked) {
    const auto store = dir.file("lean.wsdb");
    auto record = [&](const std::vector<std::string>& options) {
        return recordEcho(
            store, options,
            "echo driver=${WARPSCOPE_DRIVER_API:-1} off=${WARPSCOPE_KINDS_OFF:-none}");
    };
    auto all = record({});
    ASSERT_EQ(all.exitCode, 0) << all.err;
    EXPECT_NE(all.out.find("driver=1 off=none"), std::string::npos) << all.out;
    auto lean = record({"--capture", "lean"});
    ASSERT_EQ(lean.exitCode, 0) << lean.err;
    EXPECT_NE(lean.out.find("driver=0 off=synchronization,overhead"), std::string::npos)
        << lean.out;
    auto sampled = record({"--capture", "lean", "--sample-ms", "20"});
    ASSERT_EQ(sampled.exitCode, 0) << sampled.err;
    Store s(store);
    EXPECT_EQ(runProperties(s, 1)["capture.set"], "default");
    EXPECT_EQ(runProperties(s, 1).count("capture.sample_ms"), 0u);
    EXPECT_EQ(runProperties(s, 2)["capture.set"], "lean");
    EXPECT_EQ(runProperties(s, 2)["capture.sample_ms"], "0");
    EXPECT_EQ(runProperties(s, 3)["capture.sample_ms"], "20");
    for (const auto& [options, error] :
         std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"--capture", "minimal"}, "--capture must be 'default' or 'lean', not 'minimal'"},
             {{"--capture", "lean", "--all-apis"},
              "--all-apis and --capture lean contradict each other"}}) {
        auto bad = record(options);
        EXPECT_EQ(bad.exitCode, 2);
        EXPECT_NE(bad.err.find(error), std::string::npos) << bad.err;
        EXPECT_EQ(bad.out.find("driver="), std::string::npos) << bad.out;
    }
    EXPECT_EQ(listRuns(s).size(), 3u);
}

// --capture-range cudaProfilerApi reaches the collector; the run says which
// range it was traced over, and a misspelt range never starts the program.
TEST_F(CliTest, CaptureRangeIsPassedOnStoredAndChecked) {
    const auto store = dir.file("range.wsdb");
    auto record = [&](const std::vector<std::string>& options) {
        return recordEcho(store, options, "echo range=${WARPSCOPE_CAPTURE_RANGE:-unset}");
    };
    auto whole = record({});
    ASSERT_EQ(whole.exitCode, 0) << whole.err;
    EXPECT_NE(whole.out.find("range=unset"), std::string::npos) << whole.out;
    auto windowed = record({"--capture-range", "cudaProfilerApi"});
    ASSERT_EQ(windowed.exitCode, 0) << windowed.err;
    EXPECT_NE(windowed.out.find("range=cudaProfilerApi"), std::string::npos) << windowed.out;
    EXPECT_NE(cli({"show", "1", "--db", store}).out.find("whole run"), std::string::npos);
    EXPECT_NE(cli({"show", "2", "--db", store}).out.find("cudaProfilerApi"), std::string::npos);
    auto bad = record({"--capture-range", "nvtx"});
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.err.find("--capture-range must be 'none' or 'cudaProfilerApi', not 'nvtx'"),
              std::string::npos)
        << bad.err;
    EXPECT_EQ(bad.out.find("range="), std::string::npos) << "the program must not have run";
    auto counted = record({"--capture-range", "cudaProfilerApi", "--metrics", "roofline"});
    EXPECT_EQ(counted.exitCode, 2);
    EXPECT_NE(counted.err.find("--capture-range and --metrics exclude each other"),
              std::string::npos)
        << counted.err;
}

TEST(ProgressMessages, RoundTripAndForeignLinesAreNotMessages) {
    progress::Message m{progress::Kind::Record};
    m.record.kernels = 12;
    m.record.memcpyBytes = 1 << 20;
    m.record.processes = 2;
    m.record.finished = true;
    auto back = progress::parseJsonLine(progress::toJsonLine(m));
    ASSERT_TRUE(back);
    EXPECT_EQ(back->kind, progress::Kind::Record);
    EXPECT_EQ(back->record.kernels, 12);
    EXPECT_EQ(back->record.memcpyBytes, 1 << 20);
    EXPECT_EQ(back->record.processes, 2);
    EXPECT_TRUE(back->record.finished);
    progress::Message text{progress::Kind::Error, std::string("bad \xff byte \"quoted\"")};
    auto error = progress::parseJsonLine(progress::toJsonLine(text));
    ASSERT_TRUE(error);
    EXPECT_EQ(error->kind, progress::Kind::Error);
    EXPECT_NE(error->text.find("quoted"), std::string::npos);
    for (const char* foreign : {"", "hello", "{", "{}", "[1]", "{\"warpscope\": 3}",
                                "{\"warpscope\": \"unknown\"}", "{\"kind\": \"record\"}"})
        EXPECT_FALSE(progress::parseJsonLine(foreign)) << foreign;
}

// The README's `import FILE` with other clients' results: a GuideLLM report
// GuideLLM 0.3 wrote, then `stats` as a user reads it (ITL absent and why,
// GuideLLM's definitions, the sample warning), and a sweep of SGLang lines.
TEST_F(CliTest, ImportOtherClientsResultsAndReadTheirStats) {
    auto r = cli({"import", testing::dataFile("guidellm-0.3-benchmarks.json"), "--db", db});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.out, m, std::regex("imported GuideLLM report as run (\\d+)")))
        << r.out;
    auto stats = cli({"stats", m[1].str(), "--db", db});
    ASSERT_EQ(stats.exitCode, 0) << stats.err;
    EXPECT_NE(stats.out.find("ttft           21.28"), std::string::npos) << stats.out;
    EXPECT_NE(stats.out.find("tpot            5.26"), std::string::npos) << stats.out;
    EXPECT_NE(stats.out.find("itl       none: the source kept only each request's first and "
                             "last token times"),
              std::string::npos)
        << stats.out;
    EXPECT_NE(stats.out.find("note on GuideLLM's definitions"), std::string::npos) << stats.out;
    EXPECT_NE(stats.out.find("warning: the file keeps 1 of 47 requests"), std::string::npos)
        << stats.out;

    auto lines = dir.file("sglang.jsonl");
    std::string line = R"({"backend": "sglang", "request_rate": Infinity, "max_concurrency": MC, )"
                       R"("duration": 1.0, "completed": 1, "mean_e2e_latency_ms": 50.0, )"
                       R"("ttfts": [0.02], "itls": [[0.01, 0.01]], "output_lens": [3]})";
    std::string text;
    for (const char* mc : {"1", "4"})
        text += std::string(line).replace(line.find("MC"), 2, mc) + "\n";
    testing::writeFile(lines, text);
    auto sweep = cli({"import", lines, "--db", db});
    ASSERT_EQ(sweep.exitCode, 0) << sweep.err;
    ASSERT_TRUE(std::regex_search(
        sweep.out, m, std::regex("as runs (\\d+), \\d+ \\(sweep group \"SGLang bench_serving")))
        << sweep.out;
    auto table = cli({"sweep", m[1].str(), "--db", db});
    EXPECT_EQ(table.exitCode, 0) << table.err;
    EXPECT_NE(table.out.find("max-concurrency"), std::string::npos) << table.out;
}

}  // namespace
}  // namespace ws
