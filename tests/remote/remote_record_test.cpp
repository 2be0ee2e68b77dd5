// record --host and pull against a real sshd on 127.0.0.1 (support/ssh_server.h):
// the "remote" warpscope-cli is this build's, found through the PATH the
// server gives its sessions.
#include <gtest/gtest.h>

#include <signal.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "io/progress_messages.h"
#include "support/child_process.h"
#include "support/run_process.h"
#include "support/ssh_server.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class RemoteRecordTest : public ::testing::Test {
  protected:
    void SetUp() override {
        if (auto why = testing::SshServer::unavailable()) GTEST_SKIP() << *why;
        fs::create_directories(bin());
        remoteDb = dir.file("remote.wsdb");
        localDb = dir.file("local.wsdb");
    }
    std::string bin() const { return dir.file("bin"); }
    // The server, with this build's warpscope-cli on its sessions' PATH.
    void startServer(bool withCli = true) {
        if (withCli) fs::create_symlink(WARPSCOPE_CLI_PATH, bin() + "/warpscope-cli");
        server =
            std::make_unique<testing::SshServer>(dir.path().string(), bin() + ":/usr/bin:/bin");
    }
    std::vector<std::string> env() const {
        return {"WARPSCOPE_SSH_CONFIG=" + server->clientConfig(),
                "XDG_RUNTIME_DIR=" + dir.path().string()};
    }
    testing::ProcessResult cli(std::vector<std::string> args) {
        args.insert(args.begin(), WARPSCOPE_CLI_PATH);
        return testing::runProcess(args, env());
    }
    // The same, in the background (through env, which sets the variables).
    std::unique_ptr<testing::ChildProcess> background(std::vector<std::string> args) {
        std::vector<std::string> argv = {"/usr/bin/env"};
        for (const auto& e : env())
            argv.push_back(e);
        argv.push_back(WARPSCOPE_CLI_PATH);
        argv.insert(argv.end(), args.begin(), args.end());
        return std::make_unique<testing::ChildProcess>(argv);
    }
    std::vector<std::string> record(const std::string& host, std::vector<std::string> program,
                                    const std::string& progress = "line") {
        std::vector<std::string> args = {"record", "--host",     host,    "--remote-db",
                                         remoteDb, "--db",       localDb, "--sample-ms",
                                         "0",      "--progress", progress};
        args.push_back("--");
        args.insert(args.end(), program.begin(), program.end());
        return args;
    }
    nlohmann::json runs(const std::string& db) {
        if (!fs::exists(db)) return nlohmann::json::array();
        auto r = testing::runProcess({WARPSCOPE_CLI_PATH, "ls", "--json", "--db", db});
        EXPECT_EQ(r.exitCode, 0) << r.err;
        return nlohmann::json::parse(r.out);
    }
    nlohmann::json exported(const std::string& db, std::int64_t run) {
        auto file = dir.file("export.json");
        auto r = testing::runProcess({WARPSCOPE_CLI_PATH, "export", std::to_string(run), "--db", db,
                                      "--format", "json", "-o", file});
        EXPECT_EQ(r.exitCode, 0) << r.err;
        return nlohmann::json::parse(testing::readFile(file));
    }

    testing::TempDir dir;
    std::unique_ptr<testing::SshServer> server;
    std::string remoteDb, localDb;
};

TEST_F(RemoteRecordTest, RecordsThereAndBringsTheRunHere) {
    startServer();
    // Capture options travel with the command (--all-apis: every API call traced there).
    auto args =
        record("wstest", {"sh", "-c", "echo from-the-server all=$WARPSCOPE_ALL_APIS; sleep 0.3"});
    args.insert(std::find(args.begin(), args.end(), "--"), "--all-apis");
    auto r = cli(args);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("from-the-server all=1"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("run 1 ok, exit code 0 (remote wstest run 1)"), std::string::npos)
        << r.err;
    auto local = runs(localDb);
    ASSERT_EQ(local.size(), 1u);
    EXPECT_EQ(local[0]["status"], "ok");
    auto here = exported(localDb, 1);
    EXPECT_EQ(here["properties"]["remote.host"], "wstest");
    EXPECT_EQ(here["properties"]["remote.run"], "1");
    EXPECT_EQ(here["properties"]["remote.store"], remoteDb);
    EXPECT_EQ(here["properties"]["capture.query_calls"], "traced");
    // The run there is kept, and equal to the one here but for the mapping.
    auto there = exported(remoteDb, 1);
    for (const auto* key : {"remote.host", "remote.run", "remote.store"})
        here["properties"].erase(key);
    EXPECT_EQ(here, there);
    EXPECT_NE(here["log"].get<std::string>().find("from-the-server"), std::string::npos);

    // pull alone: the same run again, as run 2.
    auto p = cli({"pull", "wstest", "1", "--remote-db", remoteDb, "--db", localDb});
    ASSERT_EQ(p.exitCode, 0) << p.err;
    EXPECT_NE(p.out.find("pulled run 2 ok, exit code 0 (remote wstest run 1)"), std::string::npos)
        << p.out;
    EXPECT_EQ(runs(localDb).size(), 2u);
}

TEST_F(RemoteRecordTest, JsonProgressAsTheGuiReadsIt) {
    startServer();
    auto r = cli({"record", "--host", "wstest", "--remote-db", remoteDb, "--db", localDb,
                  "--progress", "json", "--", "sh", "-c", "sleep 1.2"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    std::vector<progress::Message> messages;
    std::istringstream lines(r.err);
    for (std::string line; std::getline(lines, line);)
        if (auto m = progress::parseJsonLine(line)) messages.push_back(*m);
    ASSERT_FALSE(messages.empty()) << r.err;
    int records = 0;
    for (const auto& m : messages)
        if (m.kind == progress::Kind::Record) {
            ++records;
            EXPECT_FALSE(m.run.has_value());  // a remote id is not a run here
        }
    EXPECT_GE(records, 2) << r.err;
    EXPECT_EQ(messages.back().kind, progress::Kind::Done);
    EXPECT_EQ(messages.back().run, 1);
    EXPECT_NE(messages.back().text.find("(remote wstest run 1)"), std::string::npos);
}

TEST_F(RemoteRecordTest, ProgramFailingThereComesBackFailed) {
    startServer();
    auto r = cli(record("wstest", {"sh", "-c", "echo broken >&2; exit 3"}));
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("run 1 failed, exit code 3 (remote wstest run 1)"), std::string::npos)
        << r.err;
    auto local = runs(localDb);
    ASSERT_EQ(local.size(), 1u);
    EXPECT_EQ(local[0]["status"], "failed");
    EXPECT_EQ(local[0]["exit_code"], 3);
}

TEST_F(RemoteRecordTest, UnreachableHost) {
    startServer();
    auto r = cli(record("wstest-closed", {"true"}));
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("cannot reach wstest-closed through ssh"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Connection refused"), std::string::npos) << r.err;
    EXPECT_TRUE(runs(localDb).empty());
}

TEST_F(RemoteRecordTest, KeyNotAccepted) {
    startServer();
    auto r = cli(record("wstest-stranger", {"true"}));
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("cannot reach wstest-stranger through ssh"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Permission denied"), std::string::npos) << r.err;
    EXPECT_TRUE(runs(remoteDb).empty());
}

TEST_F(RemoteRecordTest, NoWarpscopeThere) {
    startServer(/*withCli=*/false);
    auto r = cli(record("wstest", {"true"}));
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("wstest: no warpscope-cli to run there"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--remote-cli PATH"), std::string::npos) << r.err;
    // --remote-cli names it where PATH does not.
    auto args = record("wstest", {"true"});
    args.insert(args.begin() + 1, {"--remote-cli", WARPSCOPE_CLI_PATH});
    auto ok = cli(args);
    EXPECT_EQ(ok.exitCode, 0) << ok.err;
}

TEST_F(RemoteRecordTest, OtherBundleVersionThere) {
    // Another Warpscope, as far as the check can tell: what it prints.
    testing::writeFile(bin() + "/warpscope-cli",
                       "#!/bin/sh\necho 'warpscope-cli 0.0.9 (run bundle version 99)'\n");
    fs::permissions(bin() + "/warpscope-cli", fs::perms::owner_all);
    startServer(/*withCli=*/false);
    auto r = cli(record("wstest", {"true"}));
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("wstest has Warpscope 0.0.9 (run bundle version 99); this is Warpscope"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("(run bundle version 1)"), std::string::npos) << r.err;
    auto p = cli({"pull", "wstest", "1", "--db", localDb});
    EXPECT_EQ(p.exitCode, 1);
    EXPECT_NE(p.err.find("run bundle version 99"), std::string::npos) << p.err;
    EXPECT_TRUE(runs(localDb).empty());
}

TEST_F(RemoteRecordTest, CancelStopsTheProgramThere) {
    startServer();
    auto job = background(record("wstest", {"sleep", "60"}, "json"));
    ASSERT_TRUE(job->waitForLine("\"warpscope\":\"record\"", 30s)) << job->output();
    auto started = std::chrono::steady_clock::now();
    job->signal(SIGTERM);  // what the GUI's Cancel sends
    auto code = job->waitForExit(30s);
    ASSERT_TRUE(code.has_value()) << job->output();
    EXPECT_EQ(*code, 1) << job->output();
    EXPECT_LT(std::chrono::steady_clock::now() - started, 20s);
    EXPECT_NE(job->output().find("run 1 killed"), std::string::npos) << job->output();
    auto local = runs(localDb);
    ASSERT_EQ(local.size(), 1u);
    EXPECT_EQ(local[0]["status"], "killed");
    auto there = runs(remoteDb);
    ASSERT_EQ(there.size(), 1u);
    EXPECT_EQ(there[0]["status"], "killed");
}

TEST_F(RemoteRecordTest, DroppedConnectionKeepsTheRunThere) {
    startServer();
    auto job = background(record("wstest", {"sh", "-c", "sleep 2; echo finished"}, "json"));
    ASSERT_TRUE(job->waitForLine("\"warpscope\":\"record\"", 30s)) << job->output();
    server->dropConnections();
    auto code = job->waitForExit(30s);
    ASSERT_TRUE(code.has_value()) << job->output();
    EXPECT_EQ(*code, 1);
    EXPECT_NE(job->output().find("the connection to wstest dropped while run 1 was recording"),
              std::string::npos)
        << job->output();
    EXPECT_NE(job->output().find("warpscope-cli pull wstest 1 --remote-db " + remoteDb),
              std::string::npos)
        << job->output();
    EXPECT_TRUE(runs(localDb).empty());
    // The recording there goes on and finishes its run; then it can be pulled.
    auto deadline = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < deadline && runs(remoteDb)[0]["status"] == "running")
        std::this_thread::sleep_for(100ms);
    EXPECT_EQ(runs(remoteDb)[0]["status"], "ok");
    auto p = cli({"pull", "wstest", "1", "--remote-db", remoteDb, "--db", localDb});
    ASSERT_EQ(p.exitCode, 0) << p.err;
    auto here = exported(localDb, 1);
    EXPECT_NE(here["log"].get<std::string>().find("finished"), std::string::npos);
}

TEST_F(RemoteRecordTest, HostThatIsAnOption) {
    startServer();
    auto r = cli(record("-oProxyCommand=touch " + dir.file("pwned"), {"true"}));
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("is not a host"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir.file("pwned")));
}

}  // namespace
}  // namespace ws
