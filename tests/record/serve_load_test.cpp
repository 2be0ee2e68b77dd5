// bench serve's load generator against the real built-in server
// (warpscope-workload serve --backend cpu, a child process at a 2 ms step):
// exact token counts, plausible latencies against the pace, max-concurrency,
// the warm-up left out, errors stored with their text; arrivals tested on the
// generator itself, never by wall clock.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>
#include <thread>
#include <vector>

#include "analysis/run_latency.h"
#include "record/serve_load.h"
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

// --- arrivals and dataset: deterministic, no server -------------------------

double mean(const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

std::vector<double> gaps(const std::vector<double>& t) {
    std::vector<double> g;
    for (std::size_t i = 1; i < t.size(); ++i)
        g.push_back(t[i] - t[i - 1]);
    return g;
}

double cv(const std::vector<double>& g) {
    double m = mean(g), ss = 0;
    for (double x : g)
        ss += (x - m) * (x - m);
    return std::sqrt(ss / static_cast<double>(g.size() - 1)) / m;
}

TEST(ServeArrivals, PoissonAtTheRequestedRate) {
    auto t = arrivalOffsets(20000, 50.0, 1.0, 7);
    ASSERT_EQ(t.size(), 20000u);
    EXPECT_EQ(t[0], 0.0);
    EXPECT_TRUE(std::is_sorted(t.begin(), t.end()));
    auto g = gaps(t);
    EXPECT_NEAR(1.0 / mean(g), 50.0, 50.0 * 0.03);      // 3 %: ~4 standard errors at n = 20k
    EXPECT_NEAR(cv(g), 1.0, 0.03);                      // exponential gaps
    EXPECT_EQ(arrivalOffsets(20000, 50.0, 1.0, 7), t);  // the seed decides
    EXPECT_NE(arrivalOffsets(20000, 50.0, 1.0, 8), t);
}

TEST(ServeArrivals, GammaBurstinessKeepsTheRateAndChangesTheSpread) {
    auto bursty = gaps(arrivalOffsets(20000, 20.0, 0.25, 3));
    auto smooth = gaps(arrivalOffsets(20000, 20.0, 4.0, 3));
    EXPECT_NEAR(1.0 / mean(bursty), 20.0, 20.0 * 0.05);
    EXPECT_NEAR(1.0 / mean(smooth), 20.0, 20.0 * 0.03);
    EXPECT_NEAR(cv(bursty), 2.0, 0.1);  // CV = 1/sqrt(shape)
    EXPECT_NEAR(cv(smooth), 0.5, 0.02);
}

TEST(ServeArrivals, InfiniteRateSendsEverythingAtOnce) {
    auto t = arrivalOffsets(100, std::numeric_limits<double>::infinity(), 1.0, 1);
    EXPECT_TRUE(std::all_of(t.begin(), t.end(), [](double x) { return x == 0.0; }));
}

TEST(ServeDataset, RandomLengthsStayInVllmsRange) {
    ServeLoadOptions o;
    o.numPrompts = 2000;
    o.inputLen = 100;
    o.outputLen = 9;
    o.rangeRatio = 0.5;
    auto prompts = randomDataset(o);
    ASSERT_EQ(prompts.size(), 2000u);
    int inMin = 1 << 30, inMax = 0, outMin = 1 << 30, outMax = 0;
    for (const auto& p : prompts) {
        inMin = std::min(inMin, p.inputLen);
        inMax = std::max(inMax, p.inputLen);
        outMin = std::min(outMin, p.outputLen);
        outMax = std::max(outMax, p.outputLen);
        ASSERT_EQ(static_cast<int>(p.tokenIds.size()), p.inputLen);
    }
    EXPECT_EQ(inMin, 50);  // floor(100 * 0.5) .. ceil(100 * 1.5), both reached in 2000 draws
    EXPECT_EQ(inMax, 150);
    EXPECT_EQ(outMin, 4);  // floor(4.5), ceil(13.5)
    EXPECT_EQ(outMax, 14);
    o.rangeRatio = 0;
    o.backend = "openai-chat";
    for (const auto& p : randomDataset(o)) {
        ASSERT_EQ(p.inputLen, 100);
        ASSERT_EQ(p.text.size(), 100u);
        ASSERT_EQ(p.outputLen, 9);
    }
}

TEST(ServeDataset, EndpointGetsTheBackendsPath) {
    ServeLoadOptions o;
    o.endpoint = "http://127.0.0.1:8000";
    EXPECT_EQ(requestUrl(o), "http://127.0.0.1:8000/v1/completions");
    o.backend = "openai-chat";
    EXPECT_EQ(requestUrl(o), "http://127.0.0.1:8000/v1/chat/completions");
    o.endpoint = "http://h:1/custom/path";
    EXPECT_EQ(requestUrl(o), "http://h:1/custom/path");
    o.endpoint = "localhost:8000";
    EXPECT_THROW(requestUrl(o), std::runtime_error);
    // An empty port is port 80 to a URL parser: refused, not guessed.
    for (const char* typo : {"http://127.0.0.1:", "http://127.0.0.1:/v1/completions", "http://"}) {
        o.endpoint = typo;
        try {
            requestUrl(o);
            ADD_FAILURE() << typo << " was taken";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("(http://HOST:PORT)"), std::string::npos)
                << e.what();
        }
    }
}

// --- against the real server -------------------------------------------------

class ServeLoad : public ::testing::Test {
  protected:
    void SetUp() override {
        auto s = startCpuServer(WARPSCOPE_WORKLOAD_PATH, dir_.file("serve.toml"), kPatience);
        server_ = std::move(s.process);
        port_ = s.port;
        ASSERT_NE(port_, 0);
    }

    ServeLoadOptions options(int prompts, int input, int output) const {
        ServeLoadOptions o;
        o.endpoint = "http://127.0.0.1:" + std::to_string(port_);
        o.model = "bench-model";
        o.numPrompts = prompts;
        o.inputLen = input;
        o.outputLen = output;
        o.ignoreEos = true;
        o.seed = 11;
        o.requestTimeoutS = 120;
        return o;
    }

    TempDir dir_;
    std::unique_ptr<ChildProcess> server_;
    int port_ = 0;
};

TEST(ServeEmitDelays, SplitIntoWhatTtftAndItlGet) {
    ServeLoadResult r;
    // Delays 10, 30, 20 µs: TTFT gets 10, the ITLs get |30-10| and |20-30|.
    ServeRequestResult a;
    a.chunkNs = {1, 2, 3};
    a.emitDelayNs = {10'000, 30'000, 20'000};
    // Every chunk stamped: TTFT gets 50; its one ITL |50-50| = 0.
    ServeRequestResult b;
    b.chunkNs = {1, 2};
    b.emitDelayNs = {50'000, 50'000};
    // A stream whose first chunk came unstamped counts in the overall
    // figures only: its delays cannot be paired with its chunks.
    ServeRequestResult c;
    c.chunkNs = {1, 2};
    c.emitDelayNs = {900'000};
    r.requests = {a, b, c};
    auto d = emitDelays(r);
    EXPECT_EQ(d.chunks, 6u);
    EXPECT_EQ(d.maxNs, 900'000);
    EXPECT_EQ(d.p50Ns, 30'000);  // nearest rank 3 of {10, 20, 30, 50, 50, 900}
    EXPECT_EQ(d.firstP50Ns, 10'000);
    EXPECT_EQ(d.firstP99Ns, 50'000);
    EXPECT_EQ(d.itlP50Ns, 10'000);  // of {0, 10, 20}
    EXPECT_EQ(d.itlP99Ns, 20'000);
    EXPECT_EQ(emitDelays(ServeLoadResult{}).chunks, 0u);
}

// Each test below runs with either transport of the client.
class ServeLoadEitherClient : public ServeLoad,
                              public ::testing::WithParamInterface<std::string> {};
INSTANTIATE_TEST_SUITE_P(Client, ServeLoadEitherClient, ::testing::Values("socket", "libcurl"));

TEST_P(ServeLoadEitherClient, CountsAreExactLatenciesFollowThePaceAndConcurrencyIsCapped) {
    auto o = options(12, 40, 25);
    o.httpClient = GetParam();
    o.rangeRatio = 0.2;
    o.maxConcurrency = 3;
    auto prompts = randomDataset(o);
    auto r = runServeLoad(o);
    ASSERT_TRUE(r.warmupError.empty()) << r.warmupError;
    ASSERT_EQ(r.requests.size(), 12u);
    for (std::size_t i = 0; i < r.requests.size(); ++i) {
        const auto& q = r.requests[i];
        ASSERT_TRUE(q.error.empty()) << q.error;
        EXPECT_EQ(q.id, static_cast<std::int64_t>(i));
        EXPECT_TRUE(q.usageReported);
        EXPECT_EQ(q.promptTokens, prompts[i].inputLen);  // byte tokenizer: ids are tokens
        EXPECT_EQ(q.outputTokens, prompts[i].outputLen);
        // One event a token, timed with or without text (a sampled EOS the
        // server goes on past renders none), as in vLLM's client.
        EXPECT_EQ(static_cast<int>(q.chunkNs.size()), prompts[i].outputLen);
        EXPECT_TRUE(std::is_sorted(q.chunkNs.begin(), q.chunkNs.end()));
        EXPECT_GT(q.chunkNs.front(), q.startNs);
        // Warpscope's server stamps its writes: every chunk has the
        // client's delay after it, positive and far under a step.
        ASSERT_EQ(q.emitDelayNs.size(), q.chunkNs.size());
        // One token per step of at least 2 ms (each step sleeps until 2 ms
        // after it began), the first one included: no token can arrive
        // sooner than that many steps after the request was sent. Spans
        // between chunks prove nothing on two loaded cores: the server's
        // HTTP thread may write a late chunk, or several at once.
        const double steps = static_cast<double>(q.chunkNs.size() - 1);
        for (std::size_t k = 0; k < q.chunkNs.size(); ++k)
            EXPECT_GE(q.chunkNs[k] - q.startNs, static_cast<std::int64_t>(k + 1) * 2'000'000)
                << "token " << k;
        const double tpotMs =
            static_cast<double>(q.chunkNs.back() - q.chunkNs.front()) / 1e6 / steps;
        EXPECT_LT(tpotMs, 2000.0);
        for (auto d : q.emitDelayNs) {
            EXPECT_GT(d, 0);
            EXPECT_LT(d, 1'000'000'000);
        }
    }
    EXPECT_GT(r.clientCpuNs, 0);
    std::size_t chunks = 0;
    for (const auto& q : r.requests)
        chunks += q.chunkNs.size();
    EXPECT_EQ(r.chunksRead, chunks);
    EXPECT_LE(r.chunksSharingARead, chunks);
    const auto delays = emitDelays(r);
    EXPECT_GT(delays.chunks, 0u);
    EXPECT_LE(delays.p50Ns, delays.p99Ns);
    EXPECT_LE(delays.p99Ns, delays.maxNs);
    EXPECT_GT(delays.firstP50Ns, 0);
    EXPECT_LE(delays.firstP99Ns, delays.maxNs);
    EXPECT_LE(delays.itlP99Ns, delays.maxNs);
    // At most 3 in flight, read from the requests' own start and end times.
    std::vector<std::pair<std::int64_t, int>> edges;
    for (const auto& q : r.requests) {
        edges.emplace_back(q.startNs, +1);
        edges.emplace_back(q.chunkNs.back(), -1);
    }
    std::sort(edges.begin(), edges.end());
    int inFlight = 0, peak = 0;
    for (auto [t, d] : edges)
        peak = std::max(peak, inFlight += d);
    EXPECT_LE(peak, 3);
    EXPECT_LE(r.peakConcurrency, 3);

    // Stored: 12 requests (the warm-up is not one of them), status ok.
    Store store(dir_.file("runs.wsdb"));
    RunId run = storeServeRun(store, o, r, {"t", "bench serve test", "{}"});
    EXPECT_EQ(requireRun(store, run).status, RunStatus::Ok);
    EXPECT_EQ(requestsOf(store, run).size(), 12u);
    auto report = runLatency(store, run, {});
    EXPECT_EQ(report.requests.size(), 12u);
    EXPECT_EQ(report.failedRequests, 0);
    EXPECT_EQ(runProperties(store, run).at("bench.model"), "bench-model");
    EXPECT_EQ(runProperties(store, run).at("client.emit_delay_chunks"),
              std::to_string(delays.chunks));
    EXPECT_EQ(runProperties(store, run).at("client.emit_delay_max_ns"),
              std::to_string(delays.maxNs));
    // The socket client times every chunk by the kernel's receive stamp.
    EXPECT_NE(runProperties(store, run)
                  .at("client.chunk_time")
                  .find(GetParam() == "socket" ? "kernel receive time (SO_TIMESTAMPING) for every"
                                               : "read time (libcurl)"),
              std::string::npos)
        << runProperties(store, run).at("client.chunk_time");
    // The server finished 13: the 12 and the warm-up.
    server_->signal(SIGTERM);
    EXPECT_EQ(server_->waitForExit(kPatience), 0);
    EXPECT_NE(server_->output().find("stopped after 13 finished"), std::string::npos)
        << server_->output();
}

TEST_F(ServeLoad, ChatBackendStreamsDeltas) {
    auto o = options(3, 20, 6);
    o.backend = "openai-chat";
    auto r = runServeLoad(o);
    ASSERT_TRUE(r.warmupError.empty()) << r.warmupError;
    ASSERT_EQ(r.requests.size(), 3u);
    for (const auto& q : r.requests) {
        ASSERT_TRUE(q.error.empty()) << q.error;
        EXPECT_EQ(q.outputTokens, 6);
        // The role chunk (written with the first token) and one a token,
        // counted as vLLM's bench counts them, text or not.
        EXPECT_EQ(q.chunkNs.size(), 7u);
        EXPECT_GT(q.promptTokens, 20);  // the chat template's markers count too
    }
}

TEST_F(ServeLoad, AnUnknownModelIsA404WithItsText) {
    auto o = options(2, 10, 5);
    o.model = "no-such-model";
    auto r = runServeLoad(o);
    EXPECT_NE(r.warmupError.find("HTTP 404"), std::string::npos) << r.warmupError;
    EXPECT_TRUE(r.requests.empty());
    o.warmup = false;
    r = runServeLoad(o);
    ASSERT_EQ(r.requests.size(), 2u);
    EXPECT_EQ(r.failed(), 2);
    EXPECT_EQ(r.requests[0].httpStatus, 404);
    EXPECT_NE(r.requests[0].error.find("no-such-model"), std::string::npos) << r.requests[0].error;
    Store store(dir_.file("runs.wsdb"));
    RunId run = storeServeRun(store, o, r, {"", "cmd", "{}"});
    EXPECT_EQ(requireRun(store, run).status, RunStatus::Failed);
    EXPECT_EQ(runProperties(store, run).at("bench.failure_rate"), "1");
    EXPECT_NE(runLog(store, run).find("request 1: HTTP 404"), std::string::npos);
}

// What a server sends back reaches the terminal as text: its escape
// sequences shown, not obeyed (issue 45: raw server bytes were printed). A
// hostile server, in Python: every request gets a 500 whose body clears the
// screen and retitles the terminal.
TEST(ServeLoadHostileServer, ItsErrorTextHasItsControlCharactersShown) {
    const char* script = R"py(
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = b"\x1b]0;pwned\x07\x1b[2Jboom"
        self.send_response(500)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print("port", s.server_address[1], flush=True)
s.serve_forever()
)py";
    ChildProcess server({"/usr/bin/python3", "-c", script});
    auto line = server.waitForLine("port ", std::chrono::seconds(60));
    ASSERT_TRUE(line) << server.output();
    ServeLoadOptions o;
    o.endpoint = "http://127.0.0.1:" + line->substr(line->rfind(' ') + 1);
    o.model = "m";
    o.numPrompts = 1;
    o.inputLen = 4;
    o.outputLen = 2;
    o.warmup = false;
    o.requestTimeoutS = 60;
    auto r = runServeLoad(o);
    ASSERT_EQ(r.requests.size(), 1u);
    const std::string& error = r.requests[0].error;
    EXPECT_EQ(error.find('\x1b'), std::string::npos) << error;
    EXPECT_EQ(error.find('\x07'), std::string::npos) << error;
    EXPECT_NE(error.find("HTTP 500: \\x1b]0;pwned\\x07\\x1b[2Jboom"), std::string::npos) << error;
}

// --profile: the server's profiler is switched on after the warm-up and off
// after the last request (the CPU backend's switch says so on its output);
// a server that cannot be reached for it keeps the load going and the run
// says why.
TEST_F(ServeLoad, ProfileSwitchesTheServersProfilerAroundTheMeasuredRequests) {
    auto o = options(2, 10, 5);
    o.profile = true;
    auto r = runServeLoad(o);
    EXPECT_TRUE(r.profileErrors.empty()) << r.profileErrors.front();
    ASSERT_EQ(r.requests.size(), 2u);
    EXPECT_EQ(r.failed(), 0);
    Store store(dir_.file("runs.wsdb"));
    RunId run = storeServeRun(store, o, r, {"", "cmd", "{}"});
    EXPECT_EQ(runProperties(store, run).at("bench.profile"), "started and stopped");
    server_->signal(SIGTERM);
    EXPECT_EQ(server_->waitForExit(kPatience), 0);
    const std::string out = server_->output();
    auto started = out.find("profiler started"), stopped = out.find("profiler stopped");
    ASSERT_NE(started, std::string::npos) << out;
    ASSERT_NE(stopped, std::string::npos) << out;
    EXPECT_LT(started, stopped);

    o.endpoint = "http://127.0.0.1:1";  // nothing listens there
    o.warmup = false;
    r = runServeLoad(o);
    ASSERT_EQ(r.profileErrors.size(), 2u);
    EXPECT_NE(r.profileErrors[0].find("POST http://127.0.0.1:1/start_profile"), std::string::npos)
        << r.profileErrors[0];
    RunId refused = storeServeRun(store, o, r, {"", "cmd", "{}"});
    EXPECT_EQ(runProperties(store, refused).at("bench.profile"), "not switched (see the log)");
    EXPECT_NE(runLog(store, refused).find("--profile: POST"), std::string::npos);
}

// A server that takes --profile's POST and never answers: Ctrl-C (the stop
// flag) abandons the start at once, and the stop, still sent so a server
// does not go on profiling, gives up after 5 s instead of 30.
TEST(ServeLoadProfile, AServerThatNeverAnswersTheSwitchDoesNotHoldOffCtrlC) {
    int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(listener, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), len), 0);
    ASSERT_EQ(::listen(listener, 8), 0);  // connections queue, nothing is read
    ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
    std::atomic<bool> stop{false};
    ServeLoadOptions o;
    o.endpoint = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
    o.model = "m";
    o.numPrompts = 1;
    o.warmup = false;
    o.profile = true;
    o.stop = &stop;
    std::thread ctrlC([&] {
        std::this_thread::sleep_for(500ms);
        stop = true;
    });
    const auto start = std::chrono::steady_clock::now();
    auto r = runServeLoad(o);
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ctrlC.join();
    ::close(listener);
    EXPECT_TRUE(r.interrupted);
    ASSERT_EQ(r.profileErrors.size(), 2u);
    EXPECT_NE(r.profileErrors[0].find("/start_profile"), std::string::npos) << r.profileErrors[0];
    EXPECT_NE(r.profileErrors[1].find("/stop_profile"), std::string::npos) << r.profileErrors[1];
    EXPECT_LT(took, 15.0);  // the 30 s a switch may otherwise take, twice, were not waited
}

TEST_F(ServeLoad, MaxTokensOverTheContextIsA400) {
    auto o = options(1, 10, 50000);
    o.warmup = false;
    auto r = runServeLoad(o);
    ASSERT_EQ(r.requests.size(), 1u);
    EXPECT_EQ(r.requests[0].httpStatus, 400);
    EXPECT_NE(r.requests[0].error.find("HTTP 400"), std::string::npos) << r.requests[0].error;
}

TEST_P(ServeLoadEitherClient, ServerKilledMidRunFailsEveryRunningRequestAndNothingHangs) {
    auto o = options(6, 10, 5000);  // 10 s a request at 2 ms a token
    o.warmup = false;
    o.httpClient = GetParam();
    ServeLoadResult r;
    std::thread load([&] { r = runServeLoad(o); });
    std::this_thread::sleep_for(1500ms);
    server_->signal(SIGKILL);
    load.join();
    ASSERT_EQ(r.requests.size(), 6u);
    EXPECT_EQ(r.failed(), 6);
    for (const auto& q : r.requests)
        EXPECT_FALSE(q.error.empty());
    Store store(dir_.file("runs.wsdb"));
    RunId run = storeServeRun(store, o, r, {"", "cmd", "{}"});
    EXPECT_EQ(requireRun(store, run).status, RunStatus::Failed);
    EXPECT_NE(runLog(store, run).find("6 of 6 requests failed (100.0 %)"), std::string::npos)
        << runLog(store, run);
}

TEST_F(ServeLoad, StopAndRunTimeoutKeepWhatWasMeasured) {
    auto o = options(4, 10, 5000);
    o.warmup = false;
    std::atomic<bool> stop{false};
    o.stop = &stop;
    ServeLoadResult r;
    std::thread load([&] { r = runServeLoad(o); });
    std::this_thread::sleep_for(500ms);
    stop = true;
    load.join();
    EXPECT_TRUE(r.interrupted);
    EXPECT_EQ(r.requests.size() + static_cast<std::size_t>(r.notSent), 4u);
    Store store(dir_.file("runs.wsdb"));
    RunId run = storeServeRun(store, o, r, {"", "cmd", "{}"});
    EXPECT_EQ(requireRun(store, run).status, RunStatus::Killed);

    o.stop = nullptr;
    o.runTimeoutS = 0.5;
    r = runServeLoad(o);
    EXPECT_TRUE(r.runTimedOut);
    ASSERT_EQ(r.requests.size(), 4u);
    EXPECT_EQ(r.requests[0].error, "the run timed out");
}

TEST(ServeLoadOffline, AnUnreachablePortFailsWithTheConnectionError) {
    ServeLoadOptions o;
    o.endpoint = "http://127.0.0.1:1";  // nothing listens on port 1
    o.model = "m";
    o.numPrompts = 3;
    o.inputLen = 4;
    o.outputLen = 4;
    auto r = runServeLoad(o);
    EXPECT_NE(r.warmupError.find("connect"), std::string::npos) << r.warmupError;
    o.warmup = false;
    r = runServeLoad(o);
    ASSERT_EQ(r.requests.size(), 3u);
    EXPECT_EQ(r.failed(), 3);
    EXPECT_NE(r.requests[2].error.find("connect"), std::string::npos) << r.requests[2].error;
}

// The CLI end to end: stored, stats printed as `stats` prints them, and the
// --save-result file imported back to equal statistics.
TEST_F(ServeLoad, CliStoresTheRunAndItsVllmResultImportsBackEqual) {
    std::string db = dir_.file("cli.wsdb");
    std::string result = dir_.file("result.json");
    auto bench = runProcess({WARPSCOPE_CLI_PATH,
                             "bench",
                             "serve",
                             "--endpoint",
                             "http://127.0.0.1:" + std::to_string(port_),
                             "--model",
                             "bench-model",
                             "--dataset",
                             "random",
                             "--num-prompts",
                             "10",
                             "--input-len",
                             "30",
                             "--output-len",
                             "12",
                             "--range-ratio",
                             "0.3",
                             "--request-rate",
                             "200",
                             "--seed",
                             "5",
                             "--ignore-eos",
                             "--goodput",
                             "ttft:5000,tpot:5000",
                             "--save-result",
                             result,
                             "--db",
                             db});
    ASSERT_EQ(bench.exitCode, 0) << bench.out << bench.err;
    auto stats = runProcess(
        {WARPSCOPE_CLI_PATH, "stats", "1", "--goodput", "ttft:5000,tpot:5000", "--db", db});
    ASSERT_EQ(stats.exitCode, 0) << stats.err;
    EXPECT_NE(bench.out.find(stats.out), std::string::npos) << bench.out << "\n---\n" << stats.out;
    // show says how far the token times can be trusted.
    auto show = runProcess({WARPSCOPE_CLI_PATH, "show", "1", "--db", db});
    ASSERT_EQ(show.exitCode, 0) << show.err;
    EXPECT_NE(show.out.find("chunk arrivals are kernel receive time (SO_TIMESTAMPING)"),
              std::string::npos)
        << show.out;
    EXPECT_NE(show.out.find("added"), std::string::npos) << show.out;

    auto imported = runProcess({WARPSCOPE_CLI_PATH, "import", result, "--db", db});
    ASSERT_EQ(imported.exitCode, 0) << imported.err;
    auto a = runProcess({WARPSCOPE_CLI_PATH, "stats", "1", "--json", "--db", db});
    auto b = runProcess({WARPSCOPE_CLI_PATH, "stats", "2", "--json", "--db", db});
    auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
    int compared = 0;
    for (auto& [key, value] : ja.items()) {
        if (!value.is_number() || key.find("energy") != std::string::npos) continue;
        // Tokens counted per whole second (the result's float seconds move a
        // token at a second's edge across it), and requests in flight at once
        // (vLLM's result holds no request start times; import spreads them).
        if (key == "max_output_tokens_per_s" || key == "max_concurrent_requests") continue;
        ASSERT_TRUE(jb.contains(key)) << key;
        double x = value.get<double>(), y = jb[key].get<double>();
        EXPECT_NEAR(x, y, 1e-6 * std::max(1.0, std::fabs(x))) << key;
        ++compared;
    }
    EXPECT_GT(compared, 20);
    EXPECT_EQ(ja["completed"], 10);
}

}  // namespace
}  // namespace ws::testing
