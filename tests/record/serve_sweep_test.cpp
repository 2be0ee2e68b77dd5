// bench serve --dataset FILE and --sweep against the built-in server
// (warpscope-workload serve --backend cpu, a child process at a 2 ms step), then
// `sweep` reading the group back: one run a point, tied by sweep.* properties.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "analysis/sweep.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "support/child_process.h"
#include "support/cpu_server.h"
#include "support/run_process.h"
#include "support/temp_dir.h"

namespace ws::testing {
namespace {

using namespace std::chrono_literals;
constexpr auto kPatience = 60s;

class ServeSweep : public ::testing::Test {
  protected:
    void SetUp() override {
        auto s = startCpuServer(WARPSCOPE_WORKLOAD_PATH, dir_.file("serve.toml"), kPatience);
        server_ = std::move(s.process);
        port_ = s.port;
        ASSERT_NE(port_, 0);
    }

    std::vector<std::string> bench(std::vector<std::string> extra) const {
        std::vector<std::string> argv{WARPSCOPE_CLI_PATH,
                                      "bench",
                                      "serve",
                                      "--endpoint",
                                      "http://127.0.0.1:" + std::to_string(port_),
                                      "--model",
                                      "bench-model",
                                      "--ignore-eos",
                                      "--db",
                                      db_};
        argv.insert(argv.end(), extra.begin(), extra.end());
        return argv;
    }

    TempDir dir_;
    std::string db_ = dir_.file("runs.wsdb");
    std::unique_ptr<ChildProcess> server_;
    int port_ = 0;
};

// --server: each point starts the server under capture anew, a run a point.
TEST_F(ServeSweep, WithServerEachPointRecordsItsOwnServer) {
    const std::string port = std::to_string(freePort());
    // The bench serve --server client's LeakSanitizer exit scan crashes now
    // and then under the asan build ("Tracer caught signal 11", as in
    // served_recording_test.cpp, here 1 in 3 runs on 2026-12-08, after every
    // point was stored): left out for this client too until it is understood.
    auto r = runProcess({WARPSCOPE_CLI_PATH,
                         "bench",
                         "serve",
                         "--endpoint",
                         "http://127.0.0.1:" + port,
                         "--model",
                         "bench-model",
                         "--ignore-eos",
                         "--num-prompts",
                         "4",
                         "--input-len",
                         "8",
                         "--output-len",
                         "6",
                         "--sweep",
                         "max-concurrency=1,4",
                         "--save-result",
                         dir_.file("served.json"),
                         "--db",
                         db_,
                         "--server",
                         "--",
                         WARPSCOPE_WORKLOAD_PATH,
                         "serve",
                         "--backend",
                         "cpu",
                         "--port",
                         port,
                         dir_.file("serve.toml")},
                        {"ASAN_OPTIONS=detect_leaks=0"});
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    Store store(db_);
    auto groups = listSweepGroups(store);
    ASSERT_EQ(groups.size(), 1u);
    ASSERT_EQ(groups[0].runs.size(), 2u);
    for (RunId run : groups[0].runs) {
        auto props = runProperties(store, run);
        EXPECT_EQ(props.at("bench.mode"), "server");
        EXPECT_EQ(requestsOf(store, run).size(), 4u);
        EXPECT_EQ(requireRun(store, run).status, RunStatus::Ok) << runLog(store, run);
        // The server's own output is in each run's log: it was started for it.
        EXPECT_NE(runLog(store, run).find("warpscope-workload: ready"), std::string::npos);
    }
    EXPECT_EQ(runProperties(store, groups[0].runs[1]).at("bench.max_concurrency"), "4");
    EXPECT_TRUE(std::ifstream(dir_.file("served-max-concurrency-4.json")).good());
    EXPECT_NE(r.out.find("sweep " + groups[0].group), std::string::npos) << r.out;
}

TEST_F(ServeSweep, JsonlDatasetSendsItsPromptsAndOutputLengths) {
    std::string data = dir_.file("prompts.jsonl");
    writeFile(data,
              "{\"prompt\": \"abcdefghij\", \"output_len\": 4}\n"
              "{\"prompt\": \"0123456789abcdefghij\", \"output_len\": 7}\n");
    auto r = runProcess(bench({"--dataset", "jsonl:" + data, "--num-prompts", "4"}));
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_NE(r.err.find("2 prompts, repeated to 4"), std::string::npos) << r.err;
    Store store(db_);
    auto requests = requestsOf(store, 1);
    ASSERT_EQ(requests.size(), 4u);
    // The byte tokenizer: the server's usage counts the prompt's bytes.
    const int prompt[] = {10, 20, 10, 20}, output[] = {4, 7, 4, 7};
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(requests[i].promptTokens, prompt[i]) << i;
        EXPECT_EQ(requests[i].outputTokens, output[i]) << i;
    }
    // vLLM's spelling of the same: --dataset-name custom --dataset-path FILE.
    r = runProcess(bench({"--dataset-name", "custom", "--dataset-path", data, "--num-prompts", "2",
                          "--custom-output-len", "3"}));
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    requests = requestsOf(store, 2);
    ASSERT_EQ(requests.size(), 2u);
    EXPECT_EQ(requests[1].promptTokens, 20);
    EXPECT_EQ(requests[1].outputTokens, 3);  // the flag wins over the file's output_len
}

TEST_F(ServeSweep, ABadDatasetFailsBeforeAnythingIsSent) {
    std::string data = dir_.file("bad.jsonl");
    writeFile(data, "{\"prompt\": \"a\"}\n{\"prompt\": 3}\n");
    auto r = runProcess(bench({"--dataset", "jsonl:" + data, "--num-prompts", "2"}));
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find(data + ": line 2: \"prompt\" is not a string"), std::string::npos)
        << r.err;
    r = runProcess(bench({"--dataset-name", "random", "--dataset-path", data}));
    EXPECT_EQ(r.exitCode, 2) << r.err;
    r = runProcess(bench({"--dataset", "csv:" + data}));
    EXPECT_EQ(r.exitCode, 2) << r.err;
    r = runProcess(bench({"--sweep", "max-concurrency=1,x"}));
    EXPECT_EQ(r.exitCode, 2) << r.err;
    r = runProcess(bench({"--sweep", "max-concurrency=1,2", "--max-concurrency", "3"}));
    EXPECT_EQ(r.exitCode, 2) << r.err;
    r = runProcess(bench({"--sweep", "batch=1,2"}));
    EXPECT_EQ(r.exitCode, 2) << r.err;
    r = runProcess(bench({"--sweep", "max-concurrency=1,2", "--num-prompts", "4,8,16"}));
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find("--num-prompts has 3 counts for 2 --sweep points"), std::string::npos)
        << r.err;
    r = runProcess(bench({"--num-prompts", "4,8"}));
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find("a list of counts needs --sweep"), std::string::npos) << r.err;
    r = runProcess(bench({"--sweep", "max-concurrency=1,2", "--num-prompts", "4,"}));
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_FALSE(std::filesystem::exists(db_)) << "a bad sweep stored something";
}

TEST_F(ServeSweep, EachPointSendsItsOwnNumberOfPrompts) {
    auto r = runProcess(bench({"--sweep", "max-concurrency=1,4", "--num-prompts", "3,9",
                               "--input-len", "16", "--output-len", "8"}));
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_NE(r.err.find("3,9 requests a point"), std::string::npos) << r.err;
    Store store(db_);
    EXPECT_EQ(runProperties(store, 1).at("bench.num_prompts"), "3");
    EXPECT_EQ(runProperties(store, 2).at("bench.num_prompts"), "9");
    EXPECT_EQ(requestsOf(store, 1).size(), 3u);
    EXPECT_EQ(requestsOf(store, 2).size(), 9u);
}

TEST_F(ServeSweep, EachPointIsARunOfOneGroupAndSweepPrintsItsTable) {
    auto r = runProcess(
        bench({"--sweep", "max-concurrency=1,2,4", "--num-prompts", "8", "--input-len", "16",
               "--output-len", "20", "--goodput", "ttft:60000,tpot:60000", "--gpus", "2", "--label",
               "sw", "--save-result", dir_.file("result.json")}));
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_NE(r.err.find("sweep point 3/3: run 3"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("up to concurrency 4 (every point)"), std::string::npos) << r.out;

    Store store(db_);
    auto groups = listSweepGroups(store);
    ASSERT_EQ(groups.size(), 1u);
    EXPECT_EQ(groups[0].runs, (std::vector<RunId>{1, 2, 3}));
    auto props = runProperties(store, 2);
    EXPECT_EQ(props.at("sweep.group"), groups[0].group);
    EXPECT_EQ(props.at("sweep.parameter"), "max-concurrency");
    EXPECT_EQ(props.at("sweep.value"), "2");
    EXPECT_EQ(props.at("sweep.index"), "1");
    EXPECT_EQ(props.at("sweep.points"), "3");
    EXPECT_EQ(props.at("sweep.tpot_target_ms"), "60000");
    EXPECT_EQ(props.at("bench.max_concurrency"), "2");
    EXPECT_EQ(requireRun(store, 2).label, "max-concurrency=2 · sw");

    auto list = runProcess({WARPSCOPE_CLI_PATH, "sweep", "--db", db_});
    ASSERT_EQ(list.exitCode, 0) << list.err;
    EXPECT_NE(list.out.find(groups[0].group + "  max-concurrency  3/3 points  runs 1 2 3"),
              std::string::npos)
        << list.out;
    auto js = runProcess({WARPSCOPE_CLI_PATH, "sweep", "2", "--json", "--db", db_});
    ASSERT_EQ(js.exitCode, 0) << js.err;
    auto j = nlohmann::json::parse(js.out);
    EXPECT_EQ(j["group"], groups[0].group);
    EXPECT_EQ(j["gpus"], 2);
    ASSERT_EQ(j["points"].size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        const auto& p = j["points"][i];
        EXPECT_EQ(p["run"], i + 1);
        EXPECT_EQ(p["completed"], 8);
        EXPECT_EQ(p["failed"], 0);
        EXPECT_GT(p["output_throughput"].get<double>(), 0);
        EXPECT_DOUBLE_EQ(p["output_throughput_per_gpu"].get<double>(),
                         p["output_throughput"].get<double>() / 2);
        EXPECT_GE(p["tpot_p50_ms"].get<double>(), 1.9);  // a token a 2 ms step at best
        EXPECT_GE(p["ttft_p99_ms"].get<double>(), p["ttft_p50_ms"].get<double>());
        EXPECT_EQ(p["meets_targets"], true);
    }
    EXPECT_EQ(j["points"][2]["value"], "4");
    // More concurrency, more throughput: 8 requests of 20 tokens at 2 ms a step.
    EXPECT_GT(j["points"][2]["output_throughput"].get<double>(),
              1.5 * j["points"][0]["output_throughput"].get<double>());
    // --save-result: vLLM's result JSON per point, the value in its name.
    for (const char* c : {"1", "2", "4"}) {
        std::ifstream in(dir_.file(std::string("result-max-concurrency-") + c + ".json"));
        ASSERT_TRUE(in) << c;
        auto result = nlohmann::json::parse(in);
        EXPECT_EQ(result["max_concurrency"], std::stoi(c));
        EXPECT_EQ(result["completed"], 8);
    }
    auto missing = runProcess({WARPSCOPE_CLI_PATH, "sweep", "no-such", "--db", db_});
    EXPECT_EQ(missing.exitCode, 2);
}

TEST_F(ServeSweep, CtrlCStopsTheSweepKeepingTheFinishedPoints) {
    ChildProcess cli(bench({"--sweep", "request-rate=inf,inf,inf", "--num-prompts", "2",
                            "--input-len", "8", "--output-len", "400"}));
    // A point takes about 0.8 s (400 tokens at 2 ms): stop during the second.
    ASSERT_TRUE(cli.waitForLine("sweep point 1/3: run 1", kPatience)) << cli.output();
    ASSERT_TRUE(cli.waitForLine("sweep point 2/3: request-rate=inf", kPatience)) << cli.output();
    std::this_thread::sleep_for(300ms);
    cli.signal(SIGINT);
    EXPECT_EQ(cli.waitForExit(kPatience), 1) << cli.output();
    EXPECT_NE(cli.output().find("sweep interrupted at point 2/3"), std::string::npos)
        << cli.output();
    Store store(db_);
    auto groups = listSweepGroups(store);
    ASSERT_EQ(groups.size(), 1u);
    ASSERT_EQ(groups[0].runs.size(), 2u);  // the third never started
    EXPECT_EQ(requireRun(store, 1).status, RunStatus::Ok);
    EXPECT_EQ(requireRun(store, 2).status, RunStatus::Killed);
    EXPECT_EQ(groups[0].plannedPoints, 3);
}

}  // namespace
}  // namespace ws::testing
