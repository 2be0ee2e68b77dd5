// bench serve --server and --attach with real processes: warpscope-cli
// starting warpscope-workload serve (CPU backend) under capture, or joining a
// `record` of it, each storing ONE run with both sides; servers that end
// before they answer or during the load; flags refused before anything
// starts. And the clock mapping that puts client times on the capture clock.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <thread>

#include "record/capture_clock.h"
#include "record/serve_load.h"
#include "record/served_recording.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "store/store_error.h"
#include "support/child_process.h"
#include "support/cpu_server.h"
#include "support/run_process.h"
#include "support/temp_dir.h"

namespace ws::testing {
namespace {

using namespace std::chrono_literals;
constexpr auto kPatience = 60s;

// --- the clock mapping --------------------------------------------------------

TEST(ClockMapping, InterpolatesTheOffsetBetweenTheReadingsAndHoldsItOutside) {
    ClockMapping m;
    m.start = {1'000'000'000, 5'000, 10};
    m.end = {3'000'000'000, 7'000, 10};  // 2000 ns of drift over 2 s: 1 ppm
    EXPECT_EQ(m.driftNs(), 2'000);
    EXPECT_DOUBLE_EQ(m.driftPpm(), 1.0);
    EXPECT_EQ(m.toCapture(1'000'000'000), 1'000'005'000);
    EXPECT_EQ(m.toCapture(2'000'000'000), 2'000'006'000);  // halfway: half the drift
    EXPECT_EQ(m.toCapture(2'500'000'000), 2'500'006'500);
    EXPECT_EQ(m.toCapture(3'000'000'000), 3'000'007'000);
    EXPECT_EQ(m.toCapture(0), 5'000);                      // before the start: the start's offset
    EXPECT_EQ(m.toCapture(4'000'000'000), 4'000'007'000);  // after the end: the end's
    ClockMapping single;
    single.start = single.end = {10, -3, 1};
    EXPECT_EQ(single.toCapture(1'000), 997);
    auto props = m.properties("cupti");
    EXPECT_EQ(props.front(), (std::pair<std::string, std::string>{"clock.source", "cupti"}));
    EXPECT_NE(std::find(props.begin(), props.end(),
                        std::pair<std::string, std::string>{"clock.drift_ns", "2000"}),
              props.end());
}

TEST(ClockMapping, AlignMovesEveryClientTimeFromUnixOntoTheCaptureClock) {
    ServeLoadResult r;
    r.clockOffsetNs = 100;  // Unix = steady + 100, as the client measured at its start
    r.startedNs = 1'000'000'100;
    r.endedNs = 3'000'000'100;
    ServeRequestResult q;
    q.startNs = 1'000'000'100;
    q.chunkNs = {2'000'000'100, 3'000'000'100};
    r.requests.push_back(q);
    ClockMapping m;
    m.start = {1'000'000'000, 5'000, 1};
    m.end = {3'000'000'000, 7'000, 1};
    alignToCapture(r, m);
    EXPECT_EQ(r.startedNs, 1'000'005'000);
    EXPECT_EQ(r.endedNs, 3'000'007'000);
    EXPECT_EQ(r.requests[0].startNs, 1'000'005'000);
    EXPECT_EQ(r.requests[0].chunkNs, (std::vector<std::int64_t>{2'000'006'000, 3'000'007'000}));
    EXPECT_EQ(r.clockOffsetNs, 5'000);
}

std::int64_t nowNs(clockid_t id) {
    timespec ts{};
    clock_gettime(id, &ts);
    return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

TEST(CaptureClock, ReadingsAreTightAndAgreeWithEachOther) {
    CaptureClock clock;
    if (clock.source() != "cupti") GTEST_SKIP() << clock.note();
    auto a = clock.read();
    std::this_thread::sleep_for(20ms);
    auto b = clock.read();
    EXPECT_LT(a.uncertaintyNs, 50'000);
    EXPECT_GT(b.steadyNs - a.steadyNs, 19'000'000);
    // Two readings 20 ms apart: the clocks cannot drift apart by 20 µs in that
    // time (1000 ppm); a reading that went wrong would.
    EXPECT_LT(std::abs(b.offsetNs - a.offsetNs), 20'000 + a.uncertaintyNs + b.uncertaintyNs);
    // CUPTI's clock on Linux is Unix time: what a capture without any CUDA
    // process keeps its device samples on, so both fall back to the same.
    const std::int64_t unixMinusSteady = nowNs(CLOCK_REALTIME) - nowNs(CLOCK_MONOTONIC);
    EXPECT_LT(std::abs(a.offsetNs - unixMinusSteady), 1'000'000);
}

// --- waiting for a server: real HTTP, an httplib server in this process -------

class HttpServer {
  public:
    HttpServer(int healthStatus, int modelsStatus) {
        server_.Get("/health", [healthStatus](const httplib::Request&, httplib::Response& res) {
            res.status = healthStatus;
        });
        server_.Get("/v1/models", [modelsStatus](const httplib::Request&, httplib::Response& res) {
            res.status = modelsStatus;
        });
        port_ = server_.bind_to_any_port("127.0.0.1");
        thread_ = std::thread([this] { server_.listen_after_bind(); });
        while (!server_.is_running())
            std::this_thread::sleep_for(1ms);
    }
    ~HttpServer() {
        server_.stop();
        thread_.join();
    }
    std::string endpoint() const {
        return "http://127.0.0.1:" + std::to_string(port_) + "/v1/completions";
    }

  private:
    httplib::Server server_;
    int port_ = 0;
    std::thread thread_;
};

TEST(WaitForServer, HealthDecidesWhereItExistsAndModelsOnlyWhereItIsNotFound) {
    std::atomic<bool> no{false};
    {
        HttpServer loading(503, 200);  // /v1/models answers before the model is loaded
        auto r = waitForServer(loading.endpoint(), 0.3, no, no);
        EXPECT_EQ(r.state, ServerWait::TimedOut);
        EXPECT_NE(r.lastError.find("/health: HTTP 503"), std::string::npos) << r.lastError;
        EXPECT_GE(r.waitedS, 0.3);
    }
    {
        HttpServer healthy(200, 503);
        EXPECT_EQ(waitForServer(healthy.endpoint(), 5, no, no).state, ServerWait::Ready);
    }
    {
        HttpServer withoutHealth(404, 200);
        EXPECT_EQ(waitForServer(withoutHealth.endpoint(), 5, no, no).state, ServerWait::Ready);
    }
    std::atomic<bool> yes{true};
    HttpServer loading(503, 503);
    EXPECT_EQ(waitForServer(loading.endpoint(), 5, yes, no).state, ServerWait::Ended);
    EXPECT_EQ(waitForServer(loading.endpoint(), 5, no, yes).state, ServerWait::Stopped);
    EXPECT_THROW(endpointBase("127.0.0.1:8000"), std::runtime_error);
    EXPECT_EQ(endpointBase("https://h:1/v1/x"), "https://h:1");
}

// --- bench serve --server against the real server ----------------------------

class ServedRecordingTest : public ::testing::Test {
  protected:
    void SetUp() override {
        port_ = std::to_string(freePort());
        config_ = dir_.file("serve.toml");
        writeConfig(2000);
    }
    void writeConfig(int stepUs) {
        writeFile(config_,
                  "name = \"bench-model\"\nkind = \"serve\"\n[serve]\nmax_model_len = "
                  "20000\nnum_blocks = 20000\n[serve.cpu]\nstep_us = " +
                      std::to_string(stepUs) + "\nseq_us = 0\nprefill_token_us = 0\n");
    }
    std::string endpoint() const { return "http://127.0.0.1:" + port_; }
    std::vector<std::string> serverCommand() const {
        return {WARPSCOPE_WORKLOAD_PATH, "serve", "--backend", "cpu", "--port", port_, config_};
    }
    // bench serve with the given load flags, then --server -- `server`.
    std::vector<std::string> bench(std::vector<std::string> flags,
                                   const std::vector<std::string>& server) const {
        std::vector<std::string> argv = {WARPSCOPE_CLI_PATH, "bench",    "serve",
                                         "--endpoint",       endpoint(), "--model",
                                         "bench-model",      "--db",     db()};
        argv.insert(argv.end(), flags.begin(), flags.end());
        argv.insert(argv.end(), {"--server", "--"});
        argv.insert(argv.end(), server.begin(), server.end());
        return argv;
    }
    std::string db() const { return dir_.file("runs.wsdb"); }
    std::vector<RunInfo> runs() {
        if (!std::filesystem::exists(db())) return {};
        Store store(db());
        return listRuns(store);
    }

    TempDir dir_;
    std::string port_, config_;
};

// Without --model the server is asked which it serves once it answers, as
// vLLM's bench asks a running server; the run and the result file name it.
TEST_F(ServedRecordingTest, WithoutModelTheServersFirstModelIsAskedOnceItAnswers) {
    std::vector<std::string> argv = {WARPSCOPE_CLI_PATH,
                                     "bench",
                                     "serve",
                                     "--endpoint",
                                     endpoint(),
                                     "--db",
                                     db(),
                                     "--num-prompts",
                                     "2",
                                     "--input-len",
                                     "8",
                                     "--output-len",
                                     "4",
                                     "--save-result",
                                     "--result-dir",
                                     dir_.file("results"),
                                     "--server",
                                     "--"};
    for (const auto& word : serverCommand())
        argv.push_back(word);
    auto r = runProcess(argv);
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("stored run 1: 2 requests completed, 0 failed"), std::string::npos)
        << r.out;
    Store store(db());
    EXPECT_EQ(runProperties(store, 1).at("bench.model"), "bench-model");
    EXPECT_EQ(requireRun(store, 1).label, "bench serve bench-model");
    ASSERT_TRUE(std::filesystem::exists(dir_.file("results")));
    int files = 0;
    for (const auto& f : std::filesystem::directory_iterator(dir_.file("results"))) {
        ++files;
        EXPECT_NE(f.path().filename().string().find("bench-model"), std::string::npos) << f.path();
    }
    EXPECT_EQ(files, 1);
}

TEST_F(ServedRecordingTest, OneRunHoldsTheClientsRequestsAndTheServersSideOnOneClock) {
    // As for the --attach client below: under the asan build LeakSanitizer's
    // exit-time scan of this client crashed ("Tracer caught signal 11",
    // addr 0x6f8) in 5 of 6 runs of these tests side by side on 2026-12-07,
    // after the run was stored and the client had printed its report; alone
    // it passed. The scan is left out for this one client until the crash is
    // understood; every other bench serve test keeps it.
    auto r = runProcess(bench({"--num-prompts", "6", "--input-len", "20", "--output-len", "10",
                               "--max-concurrency", "3"},
                              serverCommand()),
                        {"ASAN_OPTIONS=detect_leaks=0"});
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("stored run 1: 6 requests completed, 0 failed"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("ttft"), std::string::npos);  // what stats prints
    // The server's output goes to stderr: stdout holds the results alone.
    EXPECT_EQ(r.out.find("warpscope-workload: serving"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("warpscope-workload: serving"), std::string::npos) << r.err;
    auto all = runs();
    ASSERT_EQ(all.size(), 1u);  // one run, not one per side
    Store store(db());
    const RunId run = all[0].id;
    auto info = requireRun(store, run);
    EXPECT_EQ(info.status, RunStatus::Ok);
    EXPECT_EQ(info.exitCode, 0);  // the server drained on SIGINT and exited 0
    EXPECT_NE(info.command.find("warpscope-workload serve"), std::string::npos);
    EXPECT_EQ(runProperties(store, run)["capture.graph_trace"], "node");  // as record's default
    EXPECT_EQ(runProperties(store, run)["capture.query_calls"], "left out");

    auto requests = requestsOf(store, run);
    auto tokens = tokensOf(store, run);
    ASSERT_EQ(requests.size(), 6u);
    EXPECT_GE(tokens.size(), 6u * 5);
    for (const auto& q : requests) {
        EXPECT_TRUE(q.success);
        EXPECT_EQ(q.outputTokens, 10);
    }

    auto props = runProperties(store, run);
    EXPECT_EQ(props.at("bench.mode"), "server");
    EXPECT_EQ(props.at("bench.model"), "bench-model");
    // The server's side: its pid, and how many of its processes reported to
    // the capture. Without a CUDA driver no process loads the capture library
    // (it needs libcuda), so the run says so instead of showing an empty timeline.
    EXPECT_GT(std::stoll(props.at("capture.program_pid")), 0);
    const auto log = runLog(store, run);
    if (props.at("capture.processes") == "0") {
        EXPECT_NE(log.find("no process reported to the capture"), std::string::npos) << log;
    }
    // The server's own output is the run's log, and how it was stopped.
    EXPECT_NE(log.find("warpscope-workload: serving bench-model"), std::string::npos) << log;
    EXPECT_NE(log.find("SIGINT sent"), std::string::npos) << log;
    EXPECT_NE(log.find("stopped after 7 finished"), std::string::npos) << log;  // 6 + warm-up
    EXPECT_NE(log.find("the server was stopped after the load and ended with exit code 0"),
              std::string::npos)
        << log;

    // One clock: every client time lies between the capture-clock readings
    // taken before and after the load.
    const auto readingAt = [&](const std::string& which) {
        return std::stoll(props.at("clock." + which + "_steady_ns")) +
               std::stoll(props.at("clock." + which + "_offset_ns"));
    };
    EXPECT_EQ(props.at("clock.source"), "cupti");
    const std::int64_t begin = readingAt("start"), end = readingAt("end");
    for (const auto& q : requests) {
        EXPECT_GE(q.startNs, begin);
        EXPECT_LE(q.endNs, end);
    }
    for (const auto& t : tokens) {
        EXPECT_GE(t.timeNs, begin);
        EXPECT_LE(t.timeNs, end);
    }
    EXPECT_EQ(std::stoll(props.at("clock.drift_ns")),
              std::stoll(props.at("clock.end_offset_ns")) -
                  std::stoll(props.at("clock.start_offset_ns")));
}

TEST_F(ServedRecordingTest, AServerThatEndsBeforeItAnswersFailsTheRunWithItsStatusAndStderr) {
    auto r =
        runProcess(bench({"--num-prompts", "3"}, {"/bin/sh", "-c",
                                                  "echo loading weights; echo 'no GPU found' >&2; "
                                                  "exit 3"}));
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("the server ended before it answered /health or /v1/models"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("exit code 3"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("the server's last lines on stderr:\nno GPU found"), std::string::npos)
        << r.err;
    auto all = runs();
    ASSERT_EQ(all.size(), 1u);
    Store store(db());
    auto info = requireRun(store, all[0].id);
    EXPECT_EQ(info.status, RunStatus::Failed);
    EXPECT_EQ(info.exitCode, 3);
    EXPECT_TRUE(requestsOf(store, info.id).empty());
    EXPECT_NE(runLog(store, info.id).find("no GPU found"), std::string::npos);
    EXPECT_NE(runProperties(store, info.id).at("serve.failure").find("exit code 3"),
              std::string::npos);
}

TEST_F(ServedRecordingTest, AServerThatNeverAnswersTimesOutAndIsStopped) {
    auto started = std::chrono::steady_clock::now();
    auto r =
        runProcess(bench({"--num-prompts", "3", "--server-timeout", "0.5"}, {"/bin/sleep", "30"}));
    EXPECT_LT(std::chrono::steady_clock::now() - started, 20s);
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("did not answer /health or /v1/models"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Failed to connect"), std::string::npos)
        << r.err;  // what the last poll saw
    Store store(db());
    auto info = requireRun(store, runs().at(0).id);
    EXPECT_EQ(info.status, RunStatus::Failed);
    EXPECT_EQ(info.signal, SIGINT);  // sleep ended by the SIGINT the recorder sent
    EXPECT_NE(runLog(store, info.id).find("SIGINT sent"), std::string::npos);
}

TEST_F(ServedRecordingTest, AServerDeafToSigintAndSigtermGetsSigkillAfterTheGracePeriods) {
    // The shell and its sleep both ignore SIGINT and SIGTERM (ignored
    // signals stay ignored across exec); SIGKILL to the group ends them.
    auto started = std::chrono::steady_clock::now();
    auto r =
        runProcess(bench({"--num-prompts", "1", "--server-timeout", "0.3", "--stop-grace", "0.3"},
                         {"/bin/sh", "-c", "trap '' INT TERM; sleep 30"}));
    EXPECT_LT(std::chrono::steady_clock::now() - started, 20s);
    EXPECT_EQ(r.exitCode, 1) << r.err;
    Store store(db());
    auto info = requireRun(store, runs().at(0).id);
    EXPECT_EQ(info.signal, SIGKILL);
    auto log = runLog(store, info.id);
    auto sigint = log.find("SIGINT sent"), sigterm = log.find("SIGTERM sent"),
         sigkill = log.find("SIGKILL sent");
    ASSERT_NE(sigkill, std::string::npos) << log;
    EXPECT_LT(sigint, sigterm);
    EXPECT_LT(sigterm, sigkill);
}

// A server a shell started in the background (SIGINT-deaf, as a shell's
// background jobs are) outlived the shell and went on listening after bench
// serve returned (issue 45): what the program leaves in its group is stopped.
TEST_F(ServedRecordingTest, AServerForkedByTheProgramIsStoppedWithIt) {
    std::string command;
    for (const auto& a : serverCommand())
        command += "'" + a + "' ";
    auto r = runProcess(
        bench({"--num-prompts", "2", "--stop-grace", "2"}, {"/bin/sh", "-c", command + "& wait"}));
    EXPECT_EQ(r.exitCode, 0) << r.err;
    // Nothing listens on the port any more.
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(std::stoi(port_)));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_NE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0)
        << "the forked server still listens";
    ::close(fd);
    Store store(db());
    auto log = runLog(store, runs().at(0).id);
    EXPECT_NE(log.find("left processes in its group: SIGTERM sent"), std::string::npos) << log;
}

// The server's pid, once the recording has stored it.
std::optional<pid_t> serverPid(const std::string& db, std::chrono::seconds patience) {
    auto deadline = std::chrono::steady_clock::now() + patience;
    while (std::chrono::steady_clock::now() < deadline) {
        try {
            Store store(db, Store::Options{true});
            for (const auto& run : listRuns(store)) {
                auto props = runProperties(store, run.id);
                if (auto it = props.find("capture.program_pid"); it != props.end())
                    return static_cast<pid_t>(std::stoll(it->second));
            }
        } catch (const StoreError&) {
            // not created yet, or still being created: look again
        }
        std::this_thread::sleep_for(20ms);
    }
    return std::nullopt;
}

TEST_F(ServedRecordingTest, AServerKilledMidRunFailsTheRunAndKeepsTheRequestsMeasured) {
    // One request at a time, about 100 ms each: a few finish before the kill.
    ChildProcess cli(bench({"--num-prompts", "200", "--input-len", "10", "--output-len", "50",
                            "--max-concurrency", "1"},
                           serverCommand()));
    auto pid = serverPid(db(), 30s);
    ASSERT_TRUE(pid) << cli.output();
    ASSERT_TRUE(cli.waitForLine("bench serve: the server answered", kPatience)) << cli.output();
    std::this_thread::sleep_for(1500ms);
    ASSERT_EQ(::kill(*pid, SIGKILL), 0);
    auto code = cli.waitForExit(kPatience);
    ASSERT_TRUE(code) << cli.output();
    EXPECT_EQ(*code, 1);
    // During the load, or (the recorder seeing it only once every request
    // left had failed at once) before it was stopped.
    EXPECT_TRUE(
        cli.output().find("the server ended during the load: signal 9") != std::string::npos ||
        cli.output().find("the server ended before it was stopped: signal 9") != std::string::npos)
        << cli.output();

    Store store(db());
    auto all = listRuns(store);
    ASSERT_EQ(all.size(), 1u);
    auto info = requireRun(store, all[0].id);
    EXPECT_EQ(info.status, RunStatus::Failed);
    EXPECT_EQ(info.signal, SIGKILL);
    auto requests = requestsOf(store, info.id);
    auto ok = std::count_if(requests.begin(), requests.end(), [](auto& q) { return q.success; });
    EXPECT_GE(ok, 1);    // measured before the kill, kept (a loaded CI machine serves few)
    EXPECT_LT(ok, 200);  // not all: the load stopped when the server went
    EXPECT_NE(runProperties(store, info.id).at("serve.failure").find("signal 9"),
              std::string::npos);
    // Every measured request keeps its tokens: a time for each streamed chunk
    // with text, so at least one and at most its usage count (a token whose
    // bytes end mid-character streams no text, as in vLLM's client).
    std::map<std::int64_t, int> stored;
    for (const auto& t : tokensOf(store, info.id))
        ++stored[t.requestId];
    for (const auto& q : requests) {
        if (!q.success) continue;
        EXPECT_GE(stored[q.requestId], 1) << "request " << q.requestId;
        EXPECT_LE(stored[q.requestId], q.outputTokens) << "request " << q.requestId;
    }
}

TEST_F(ServedRecordingTest, CtrlCStopsTheLoadKeepsWhatWasMeasuredAndStopsTheServer) {
    ChildProcess cli(bench({"--num-prompts", "200", "--input-len", "10", "--output-len", "50",
                            "--max-concurrency", "1"},
                           serverCommand()));
    ASSERT_TRUE(cli.waitForLine("bench serve: the server answered", kPatience)) << cli.output();
    std::this_thread::sleep_for(1000ms);
    cli.signal(SIGINT);
    auto code = cli.waitForExit(kPatience);
    ASSERT_TRUE(code) << cli.output();
    EXPECT_EQ(*code, 1);
    EXPECT_NE(cli.output().find("interrupted"), std::string::npos) << cli.output();
    Store store(db());
    auto info = requireRun(store, listRuns(store).at(0).id);
    EXPECT_EQ(info.status, RunStatus::Killed);
    auto requests = requestsOf(store, info.id);
    EXPECT_GE(std::count_if(requests.begin(), requests.end(), [](auto& q) { return q.success; }),
              3);
    auto log = runLog(store, info.id);
    EXPECT_NE(log.find("SIGINT sent"), std::string::npos) << log;
    EXPECT_NE(log.find("warpscope-workload: stopped after"), std::string::npos) << log;
}

TEST_F(ServedRecordingTest, BadFlagsAreRefusedBeforeAnythingStarts) {
    const std::vector<std::string> base = {
        WARPSCOPE_CLI_PATH, "bench", "serve", "--endpoint", endpoint(),
        "--model",          "m",     "--db",  db()};
    auto with = [&](std::vector<std::string> extra) {
        auto argv = base;
        argv.insert(argv.end(), extra.begin(), extra.end());
        return runProcess(argv);
    };
    struct Case {
        std::vector<std::string> extra;
        std::string error;
        int code;
    };
    const std::vector<Case> cases = {
        {{"--server"}, "--server needs the server's command after `--`", 2},
        {{"--server", "--"}, "--server: no command after `--`", 2},
        {{"--", "/bin/true"}, "a command after `--` is started only with --server", 2},
        {{"--server-timeout", "5"}, "--server-timeout applies to --server", 2},
        {{"--graph-trace", "graph"}, "--graph-trace applies to --server", 2},
        {{"--all-apis"}, "--all-apis applies to --server", 2},
        {{"--capture", "lean"}, "--capture applies to --server", 2},
        {{"--server", "--capture", "lean", "--all-apis", "--", "/bin/true"},
         "--all-apis and --capture lean contradict each other",
         2},
        {{"--server", "--graph-trace", "kernel", "--", "/bin/true"},
         "--graph-trace must be 'node' or 'graph', not 'kernel'",
         2},
        {{"--server", "--server-timeout", "0", "--", "/bin/true"},
         "--server-timeout must be positive",
         2},
        {{"--server", "--attach", "1", "--", "/bin/true"}, "exclude each other", 2},
        {{"--server", "--", "/nonexistent/server"}, "/nonexistent/server: no such file", 1},
    };
    for (const auto& c : cases) {
        auto r = with(c.extra);
        EXPECT_EQ(r.exitCode, c.code) << c.error << "\n" << r.err;
        EXPECT_NE(r.err.find(c.error), std::string::npos) << r.err;
    }
    auto noPort =
        runProcess({WARPSCOPE_CLI_PATH, "bench", "serve", "--endpoint", "http://127.0.0.1",
                    "--model", "m", "--db", db(), "--server", "--", "/bin/true"});
    EXPECT_EQ(noPort.exitCode, 2);
    EXPECT_NE(noPort.err.find("--endpoint must name the port"), std::string::npos) << noPort.err;
    EXPECT_FALSE(std::filesystem::exists(db()));  // nothing started, not even the store
}

// --- bench serve --attach ------------------------------------------------------

TEST_F(ServedRecordingTest, AttachAddsTheLoadToARunThatRecordIsRecording) {
    ChildProcess record({WARPSCOPE_CLI_PATH, "record", "--db", db(), "--label", "by hand", "--",
                         WARPSCOPE_WORKLOAD_PATH, "serve", "--backend", "cpu", "--port", port_,
                         config_});
    ASSERT_TRUE(record.waitForLine("warpscope-workload: ready", kPatience)) << record.output();
    // Under the asan build, LeakSanitizer's exit-time scan of this client
    // crashed in about a third of runs (2026-12-06: "Tracer caught signal 11",
    // reading a dynamic-TLS entry of the main thread at 0x4b4; 4 of 12 runs,
    // 0 of 12 with the build before NCCL sizes, no change in this code path
    // found). The scan is left out for this one client; every other bench
    // serve test keeps it.
    auto r = runProcess({WARPSCOPE_CLI_PATH, "bench", "serve", "--endpoint", endpoint(), "--model",
                         "bench-model", "--num-prompts", "4", "--input-len", "10", "--output-len",
                         "6", "--attach", "1", "--db", db()},
                        {"ASAN_OPTIONS=detect_leaks=0"});
    EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("stored run 1: 4 requests completed"), std::string::npos) << r.out;
    record.signal(SIGINT);
    ASSERT_TRUE(record.waitForExit(kPatience)) << record.output();

    Store store(db());
    auto all = listRuns(store);
    ASSERT_EQ(all.size(), 1u);  // the recording's run, no second one
    auto info = requireRun(store, all[0].id);
    EXPECT_EQ(info.label, "by hand");
    EXPECT_NE(info.status, RunStatus::Running);
    EXPECT_EQ(requestsOf(store, info.id).size(), 4u);
    EXPECT_GE(tokensOf(store, info.id).size(), 4u * 3);
    auto props = runProperties(store, info.id);
    EXPECT_EQ(props.at("bench.mode"), "attach");
    EXPECT_EQ(props.at("clock.source"), "cupti");
    EXPECT_NE(runLog(store, info.id).find("warpscope-workload: ready"), std::string::npos);

    // A run no longer recorded is refused, and left as it was.
    auto late =
        runProcess({WARPSCOPE_CLI_PATH, "bench", "serve", "--endpoint", endpoint(), "--model",
                    "bench-model", "--num-prompts", "1", "--attach", "1", "--db", db()});
    EXPECT_EQ(late.exitCode, 1);
    EXPECT_NE(late.err.find("not being recorded"), std::string::npos) << late.err;
    EXPECT_EQ(requestsOf(store, info.id).size(), 4u);
}

}  // namespace
}  // namespace ws::testing
