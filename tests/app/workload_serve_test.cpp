// warpscope-workload serve as a process: started with --port 0 (it prints the
// port), driven over HTTP, then stopped by SIGTERM or SIGINT. The drain lets
// running streams finish, or ends them with an error event past its timeout;
// the process always exits.
#include <gtest/gtest.h>
#include <signal.h>

#include <nlohmann/json.hpp>

#include "kernels/serving/http/sse_client.h"
#include "support/child_process.h"
#include "support/run_process.h"
#include "support/temp_dir.h"

namespace ws::testing {
namespace {

using namespace std::chrono_literals;
using json = nlohmann::json;
constexpr auto kPatience = 60s;
const std::string kWorkload = WARPSCOPE_WORKLOAD_PATH;

std::string serveConfig(const TempDir& dir, const std::string& serveLines) {
    std::string path = dir.file("serve.toml");
    writeFile(path,
              "name = \"test-serve\"\nkind = \"serve\"\n[serve]\nmax_model_len = 200000\n"
              "num_blocks = 12600\n" +
                  serveLines + "[serve.cpu]\nstep_us = 1000\nseq_us = 0\nprefill_token_us = 0\n");
    return path;
}

// The port the server printed, once it says it is ready; 0 if it never does.
int readyPort(ChildProcess& server) {
    auto line = server.waitForLine("on http://127.0.0.1:", kPatience);
    if (!line || !server.waitForLine("warpscope-workload: ready", kPatience)) {
        ADD_FAILURE() << "the server did not start:\n" << server.output();
        return 0;
    }
    return std::stoi(line->substr(line->rfind(':') + 1));
}

std::string streamBody(int maxTokens) {
    return json{{"prompt", "drain me"},
                {"max_tokens", maxTokens},
                {"temperature", 0},
                {"ignore_eos", true},
                {"stream", true}}
        .dump();
}

TEST(WorkloadServe, SigtermDrainsAndLetsRunningStreamsFinish) {
    TempDir dir;
    ChildProcess server({kWorkload, "serve", "--backend", "cpu", "--port", "0",
                         serveConfig(dir, "drain_timeout_s = 60\n")});
    const int port = readyPort(server);
    ASSERT_GT(port, 0);
    bool signalled = false;
    SseReply reply = ssePost(port, "/v1/completions", streamBody(300), [&](const std::string&) {
        if (!signalled) server.signal(SIGTERM);  // with 299 tokens still to come
        signalled = true;
        return true;
    });
    EXPECT_TRUE(reply.completed) << reply.error;
    ASSERT_EQ(reply.events.size(), 301u);
    EXPECT_EQ(reply.events.back(), "[DONE]");
    EXPECT_EQ(json::parse(reply.events[299])["choices"][0]["finish_reason"], "length");
    EXPECT_EQ(server.waitForExit(kPatience), 0) << server.output();
    EXPECT_NE(server.output().find("SIGTERM: draining"), std::string::npos);
    EXPECT_NE(server.output().find("stopped after 1 finished and 0 aborted"), std::string::npos)
        << server.output();
    EXPECT_EQ(httpGet(port, "/health").status, 0);  // nobody listens any more
}

TEST(WorkloadServe, SigtermPastTheDrainTimeoutEndsStreamsWithAnErrorEvent) {
    TempDir dir;
    ChildProcess server({kWorkload, "serve", "--backend", "cpu", "--port", "0",
                         serveConfig(dir, "drain_timeout_s = 0.2\n")});
    const int port = readyPort(server);
    ASSERT_GT(port, 0);
    bool signalled = false;
    SseReply reply = ssePost(port, "/v1/completions", streamBody(150000), [&](const std::string&) {
        if (!signalled) server.signal(SIGTERM);
        signalled = true;
        return true;
    });
    EXPECT_TRUE(reply.completed) << reply.error;
    ASSERT_GE(reply.events.size(), 3u);
    EXPECT_EQ(reply.events.back(), "[DONE]");
    json error = json::parse(reply.events[reply.events.size() - 2], nullptr, false);
    ASSERT_TRUE(error.contains("error")) << reply.events[reply.events.size() - 2];
    EXPECT_EQ(error["error"]["code"], 503);
    EXPECT_EQ(server.waitForExit(kPatience), 0) << server.output();
    EXPECT_NE(server.output().find("0 finished and 1 aborted"), std::string::npos)
        << server.output();
}

TEST(WorkloadServe, RunServesAServeConfigAndSigintStopsIt) {
    TempDir dir;
    ChildProcess server({kWorkload, "run", serveConfig(dir, "port = 0\n")});
    const int port = readyPort(server);
    ASSERT_GT(port, 0);
    HttpReply models = httpGet(port, "/v1/models");
    EXPECT_EQ(models.status, 200);
    EXPECT_NE(models.body.find("\"test-serve\""), std::string::npos);
    server.signal(SIGINT);
    EXPECT_EQ(server.waitForExit(kPatience), 0) << server.output();
    EXPECT_NE(server.output().find("SIGINT: draining"), std::string::npos);
}

TEST(WorkloadServe, RefusesBadArgumentsAndATakenPort) {
    auto r = runProcess({kWorkload, "serve"});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("--backend cpu"), std::string::npos);
    r = runProcess({kWorkload, "serve", "--backend", "cpu", "--port", "70000"});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("--port"), std::string::npos);
    r = runProcess({kWorkload, "serve", "--backend", "tpu"});
    EXPECT_EQ(r.exitCode, 2);
    r = runProcess({kWorkload, "serve", "--backend", "gpu"});  // no [decoder] to serve
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("[decoder] table"), std::string::npos);
    // The gpu backend where no GPU is visible: refused with the reason (a
    // build without CUDA says so, a CUDA build that it sees no device).
    r = runProcess({kWorkload, "serve", "--port", "0",
                    WARPSCOPE_SOURCE_DIR "/resources/workloads/serve-llama-1b.toml"},
                   {"CUDA_VISIBLE_DEVICES="});
    EXPECT_EQ(r.exitCode, 3);
    EXPECT_NE(r.err.find("the gpu backend needs CUDA"), std::string::npos) << r.err;
    r = runProcess(
        {kWorkload, "serve", WARPSCOPE_SOURCE_DIR "/resources/workloads/gemm-bf16-4096.toml"});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("not \"serve\""), std::string::npos);

    // A second server on a port in use fails instead of sharing it.
    ChildProcess first({kWorkload, "serve", "--backend", "cpu", "--port", "0"});
    const int port = readyPort(first);
    ASSERT_GT(port, 0);
    r = runProcess({kWorkload, "serve", "--backend", "cpu", "--port", std::to_string(port)});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("cannot listen on 127.0.0.1:" + std::to_string(port)), std::string::npos)
        << r.err;
    first.signal(SIGTERM);
    EXPECT_EQ(first.waitForExit(kPatience), 0) << first.output();
}

}  // namespace
}  // namespace ws::testing
