// The ranks a tensor-parallel run starts (app/workload/rank_processes.h), as
// real processes: a shell stands in for warpscope-workload. Each rank sees
// its own RANK / LOCAL_RANK / WORLD_SIZE / WARPSCOPE_TP_RANK and the shared
// values; a rank that ends badly is reported with how; stopping a run ends
// the ranks still running.
#include "rank_processes.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "support/temp_dir.h"

namespace ws::workload {
namespace {

using namespace std::chrono_literals;
using ws::testing::readFile;
using ws::testing::TempDir;

std::vector<std::string> shell(const std::string& script) {
    return {"sh", "-c", script};
}

struct Reports {
    std::mutex m;
    std::vector<std::string> seen;
    RankProcesses::OnEnd callback() {
        return [this](const std::string& what) {
            std::lock_guard lock(m);
            seen.push_back(what);
        };
    }
};

TEST(RankProcesses, EachRankSeesItsOwnRankAndTheSharedValues) {
    TempDir dir;
    ::setenv("RANK", "7", 1);  // this process's own must not leak into the ranks
    Reports reports;
    RankProcesses ranks(
        3, "/bin/sh",
        shell("echo \"$RANK $LOCAL_RANK $WORLD_SIZE $WARPSCOPE_TP_RANK $WARPSCOPE_TP_ID\" > " +
              dir.path().string() + "/rank$RANK"),
        {"WARPSCOPE_TP_ID=abc"}, reports.callback());
    ::unsetenv("RANK");
    EXPECT_EQ(ranks.pids().size(), 2u);
    EXPECT_TRUE(ranks.finish().empty());
    EXPECT_EQ(readFile(dir.file("rank1")), "1 1 3 1 abc\n");
    EXPECT_EQ(readFile(dir.file("rank2")), "2 2 3 2 abc\n");
    EXPECT_TRUE(reports.seen.empty());
}

TEST(RankProcesses, ARankThatEndsBadlyIsReportedWithHow) {
    Reports reports;
    RankProcesses ranks(3, "/bin/sh", shell("if [ \"$RANK\" = 2 ]; then exit 3; fi; kill -9 $$"),
                        {}, reports.callback());
    auto deadline = std::chrono::steady_clock::now() + 10s;
    for (;;) {
        {
            std::lock_guard lock(reports.m);
            if (reports.seen.size() == 2u || std::chrono::steady_clock::now() > deadline) break;
        }
        std::this_thread::sleep_for(10ms);
    }
    auto failures = ranks.finish();
    ASSERT_EQ(failures.size(), 2u);
    std::lock_guard lock(reports.m);
    EXPECT_EQ(reports.seen.size(), 2u);  // both reported as they ended, before finish()
    const std::string all = failures[0] + "\n" + failures[1];
    EXPECT_NE(all.find("rank 1 (pid " + std::to_string(ranks.pids()[0]) + "): killed by signal 9"),
              std::string::npos)
        << all;
    EXPECT_NE(all.find("rank 2 (pid " + std::to_string(ranks.pids()[1]) + "): exited with code 3"),
              std::string::npos)
        << all;
}

TEST(RankProcesses, EndsAfterTheRunAreReturnedNotReported) {
    Reports reports;
    RankProcesses ranks(2, "/bin/sh", shell("sleep 0.3; exit 5"), {}, reports.callback());
    auto failures = ranks.finish();  // the run is done before the rank ends
    ASSERT_EQ(failures.size(), 1u);
    EXPECT_NE(failures[0].find("exited with code 5"), std::string::npos) << failures[0];
    EXPECT_TRUE(reports.seen.empty());
}

TEST(RankProcesses, StoppingTheRunEndsTheRanksStillRunning) {
    Reports reports;
    std::vector<pid_t> pids;
    auto start = std::chrono::steady_clock::now();
    {
        RankProcesses ranks(3, "/bin/sh", shell("sleep 60"), {}, reports.callback());
        pids = ranks.pids();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
    for (pid_t pid : pids)
        EXPECT_NE(::kill(pid, 0), 0) << "rank " << pid << " still there";  // ended and reaped
    EXPECT_TRUE(reports.seen.empty());  // our own SIGTERMs are not failures
}

TEST(RankProcesses, AProgramThatCannotStartIsABadEnd) {
    Reports reports;
    RankProcesses ranks(2, "/nonexistent/warpscope-workload", {"x"}, {}, reports.callback());
    auto failures = ranks.finish();
    ASSERT_EQ(failures.size(), 1u);
    EXPECT_NE(failures[0].find("exited with code 127"), std::string::npos) << failures[0];
}

}  // namespace
}  // namespace ws::workload
