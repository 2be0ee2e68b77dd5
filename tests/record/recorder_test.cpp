// The launcher's life cycle with ordinary programs (no GPU needed).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <thread>

#include "analysis/kernel_summary.h"
#include "analysis/process_summary.h"
#include "model/process_keys.h"
#include "model/query_calls.h"
#include "record/capture_server.h"
#include "record/child_process.h"
#include "record/recorder.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "support/temp_dir.h"
#include "support/unprivileged.h"

namespace ws {
namespace {

using testing::TempDir;

class RecorderTest : public ::testing::Test {
  protected:
    RecordRequest request(std::vector<std::string> argv) {
        RecordRequest r;
        r.storePath = dir.file("runs.wsdb");
        r.argv = std::move(argv);
        r.echoOutput = false;
        r.label = "test";
        return r;
    }
    std::size_t runCount() {
        if (!std::filesystem::exists(dir.file("runs.wsdb"))) return 0;
        Store store(dir.file("runs.wsdb"));
        return listRuns(store).size();
    }
    TempDir dir;
};

TEST_F(RecorderTest, SuccessfulProgramIsOkWithItsOutputAsLog) {
    Recorder rec(request({"/bin/sh", "-c", "echo out; echo err >&2"}));
    auto outcome = rec.run();
    EXPECT_EQ(outcome.status, RunStatus::Ok);
    EXPECT_EQ(outcome.exitCode, 0);
    Store store(dir.file("runs.wsdb"));
    auto run = requireRun(store, outcome.run);
    EXPECT_EQ(run.status, RunStatus::Ok);
    EXPECT_EQ(run.label, "test");
    EXPECT_EQ(run.command, "/bin/sh -c 'echo out; echo err >&2'");
    auto log = runLog(store, outcome.run);
    EXPECT_NE(log.find("out\n"), std::string::npos);
    EXPECT_NE(log.find("err\n"), std::string::npos);
}

// GPU metrics through the module interface (a stand-in over the wall clock:
// no GPU here): sampling starts before the program and the last samples are
// taken after it ends, every series reaches the run, and the module's lines
// reach its log.
TEST_F(RecorderTest, GpuMetricsCoverTheProgramAndReachTheRun) {
    auto req = request({"/bin/sh", "-c", "sleep 0.3"});
    req.gpuMetrics = GpuMetricsRequest{
        WARPSCOPE_STAND_IN_GPU_METRICS,
        {"sm__cycles_active.avg.pct_of_peak_sustained_elapsed", "nvlrx__bytes.sum.per_second"},
        1'000'000};
    Recorder rec(req);
    auto outcome = rec.run();
    ASSERT_EQ(outcome.status, RunStatus::Ok);
    Store store(dir.file("runs.wsdb"));
    const auto log = runLog(store, outcome.run);
    EXPECT_NE(log.find("[warpscope] sampling GPU metrics\n"), std::string::npos) << log;
    EXPECT_NE(log.find("[warpscope] GPU 0: nvlrx__bytes.sum.per_second left out: "),
              std::string::npos)
        << log;
    auto series = gpuMetricsOf(store, outcome.run);
    ASSERT_EQ(series.size(), 1u);
    EXPECT_EQ(series[0].metric, "sm__cycles_active.avg.pct_of_peak_sustained_elapsed");
    // One 1 ms sample per millisecond of a 300 ms program at least, back to
    // back (no CUDA process reported a clock: they stay on Unix time).
    ASSERT_GE(series[0].samples.size(), 300u);
    for (std::size_t i = 1; i < series[0].samples.size(); ++i)
        ASSERT_EQ(series[0].samples[i].startNs, series[0].samples[i - 1].endNs);
    const auto run = requireRun(store, outcome.run);
    EXPECT_LE(run.startedAtNs, series[0].samples.front().startNs);
    EXPECT_GE(run.endedAtNs.value_or(0), series[0].samples.back().endNs);
}

TEST_F(RecorderTest, AGpuMetricsModuleOfAnotherVersionOrNoneIsSaidAndTheRunGoesOn) {
    for (const std::string& module :
         {std::string(WARPSCOPE_STAND_IN_GPU_METRICS), dir.file("no-such-module.so")}) {
        setenv("WS_STAND_IN_ABI", "99", 1);
        auto req = request({"/bin/true"});
        req.gpuMetrics = GpuMetricsRequest{module, {}, 0};
        Recorder rec(req);
        auto outcome = rec.run();
        unsetenv("WS_STAND_IN_ABI");
        EXPECT_EQ(outcome.status, RunStatus::Ok);
        Store store(dir.file("runs.wsdb"));
        const auto log = runLog(store, outcome.run);
        EXPECT_NE(log.find("[warpscope] no GPU metrics: "), std::string::npos) << log;
        if (module.find("no-such") == std::string::npos) {
            EXPECT_NE(log.find("is not this Warpscope's module (version 99, expected 1)"),
                      std::string::npos)
                << log;
        }
        EXPECT_TRUE(gpuMetricsOf(store, outcome.run).empty());
    }
}

TEST_F(RecorderTest, SampleIntervalZeroTurnsDeviceSamplesOffAndSaysSo) {
    auto req = request({"/bin/sh", "-c", "sleep 0.2"});
    req.sampleIntervalMs = 0;
    Recorder rec(req);
    auto outcome = rec.run();
    EXPECT_EQ(outcome.status, RunStatus::Ok);
    Store store(dir.file("runs.wsdb"));
    EXPECT_NE(runLog(store, outcome.run).find("device samples off"), std::string::npos);
    EXPECT_TRUE(samplesOf(store, outcome.run).empty());
}

TEST_F(RecorderTest, ArgumentsPassAsGivenWithoutAShell) {
    Recorder rec(request({"/bin/echo", "a b", "$HOME", "*"}));
    auto outcome = rec.run();
    Store store(dir.file("runs.wsdb"));
    EXPECT_NE(runLog(store, outcome.run).find("a b $HOME *\n"), std::string::npos);
}

TEST_F(RecorderTest, NonzeroExitIsFailedWithExitCode) {
    Recorder rec(request({"/bin/sh", "-c", "exit 3"}));
    auto outcome = rec.run();
    EXPECT_EQ(outcome.status, RunStatus::Failed);
    EXPECT_EQ(outcome.exitCode, 3);
    Store store(dir.file("runs.wsdb"));
    EXPECT_EQ(requireRun(store, outcome.run).exitCode, 3);
}

TEST_F(RecorderTest, KilledBySignalIsKilled) {
    Recorder rec(request({"/bin/sh", "-c", "kill -KILL $$"}));
    auto outcome = rec.run();
    EXPECT_EQ(outcome.status, RunStatus::Killed);
    EXPECT_EQ(outcome.signal, 9);
}

TEST_F(RecorderTest, CrashIsFailedWithSignal) {
    Recorder rec(request({"/bin/sh", "-c", "kill -SEGV $$"}));
    auto outcome = rec.run();
    EXPECT_EQ(outcome.status, RunStatus::Failed);
    EXPECT_EQ(outcome.signal, 11);
}

TEST_F(RecorderTest, CancelStopsTheProgramAndMarksKilled) {
    Recorder rec(request({"/bin/sleep", "30"}));
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        rec.cancel();
    });
    auto started = std::chrono::steady_clock::now();
    auto outcome = rec.run();
    canceller.join();
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
    EXPECT_EQ(outcome.status, RunStatus::Killed);
    Store store(dir.file("runs.wsdb"));
    EXPECT_NE(runLog(store, outcome.run).find("cancelled"), std::string::npos);
}

// A companion's program (bench serve's server) runs until the companion is
// done; the recorder then stops it, and that ending is no failure. Killed
// from outside, it ended on its own, whether the recorder saw that before
// the companion returned or only while stopping it.
class CompanionTest : public RecorderTest {
  protected:
    // The program (a shell script after `echo $$ > pid;`) writes its pid;
    // `act` gets that pid on the companion's thread, which returns after it.
    RecordOutcome runWith(const std::string& script, std::function<void(pid_t)> act) {
        auto pidFile = dir.file("pid");
        std::filesystem::remove(pidFile);
        auto req = request({"/bin/sh", "-c", "echo $$ > " + pidFile + "; " + script});
        Companion companion;
        companion.stopGraceMs = 30'000;  // far past any of these tests' endings
        companion.run = [pidFile, act] {
            auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
            pid_t pid = 0;
            while (pid == 0 && std::chrono::steady_clock::now() < deadline) {
                std::ifstream in(pidFile);
                if (!(in >> pid)) {
                    pid = 0;
                    std::this_thread::sleep_for(std::chrono::milliseconds(5));
                }
            }
            if (pid > 0) act(pid);
        };
        companion.finish = [this](Store&, RunId, RecordOutcome& outcome) {
            finishSawStoppedOnRequest = outcome.stoppedOnRequest;
        };
        req.companion = std::move(companion);
        Recorder rec(std::move(req));
        return rec.run();
    }
    std::optional<bool> finishSawStoppedOnRequest;
};

TEST_F(CompanionTest, AProgramStoppedWhenItsCompanionIsDoneIsOk) {
    auto outcome = runWith("exec sleep 30", [](pid_t) {});
    EXPECT_EQ(outcome.status, RunStatus::Ok);
    EXPECT_TRUE(outcome.stoppedOnRequest);
    EXPECT_EQ(finishSawStoppedOnRequest, true);
    Store store(dir.file("runs.wsdb"));
    EXPECT_NE(runLog(store, outcome.run).find("SIGINT sent"), std::string::npos);
}

TEST_F(CompanionTest, AProgramKilledJustBeforeItsCompanionReturnedEndedOnItsOwn) {
    auto outcome = runWith("exec sleep 30", [](pid_t pid) { ::kill(pid, SIGKILL); });
    EXPECT_EQ(outcome.signal, SIGKILL);
    EXPECT_EQ(outcome.status, RunStatus::Killed);
    EXPECT_FALSE(outcome.stoppedOnRequest);
    EXPECT_EQ(finishSawStoppedOnRequest, false);
}

// The same when the recorder is already stopping it: a server draining on
// SIGINT is killed by something else (the OOM killer) before the recorder's
// SIGTERM. The stopper did not send that signal, so the run does not pass as
// stopped on request.
TEST_F(CompanionTest, AProgramKilledFromOutsideWhileBeingStoppedEndedOnItsOwn) {
    // The program notes the SIGINT and goes on; only once it has it (the
    // recorder is stopping it) is it killed, so no timing decides the case.
    // It spins on the shell's builtin `:` rather than sleeping: a sleep child
    // would outlive it in its group and hold up the end.
    const auto gotInt = dir.file("got-sigint");
    std::thread killer;
    auto outcome = runWith(
        "trap 'echo > " + gotInt + "' INT; while :; do :; done", [&killer, gotInt](pid_t pid) {
            killer = std::thread([pid, gotInt] {
                auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
                while (!std::filesystem::exists(gotInt) &&
                       std::chrono::steady_clock::now() < deadline)
                    std::this_thread::sleep_for(std::chrono::milliseconds(5));
                ::kill(pid, SIGKILL);
            });
        });
    if (killer.joinable()) killer.join();
    EXPECT_EQ(outcome.signal, SIGKILL);
    EXPECT_EQ(outcome.status, RunStatus::Killed);
    EXPECT_FALSE(outcome.stoppedOnRequest);
    EXPECT_EQ(finishSawStoppedOnRequest, false);
    Store store(dir.file("runs.wsdb"));
    auto log = runLog(store, outcome.run);
    EXPECT_NE(log.find("SIGINT sent"), std::string::npos) << log;
    EXPECT_EQ(log.find("has not ended yet"), std::string::npos) << log;
    EXPECT_NE(log.find("the program was ended by signal 9, which Warpscope did not send, while "
                       "it was being stopped"),
              std::string::npos)
        << log;
}

// A crash on the way out (CUDA or NCCL teardown after SIGINT) is how the
// program took the stop: stopped on request, and the run failed for the crash.
TEST_F(CompanionTest, ACrashWhileBeingStoppedIsStillTheStopAndFailsTheRun) {
    auto outcome = runWith("trap 'kill -SEGV $$' INT; while :; do sleep 0.05; done", [](pid_t) {});
    EXPECT_EQ(outcome.signal, SIGSEGV);
    EXPECT_TRUE(outcome.stoppedOnRequest);
    EXPECT_EQ(finishSawStoppedOnRequest, true);
    EXPECT_EQ(outcome.status, RunStatus::Failed);
}

TEST_F(RecorderTest, MissingProgramIsAnErrorAndNoRun) {
    Recorder rec(request({"/nonexistent/program"}));
    try {
        rec.run();
        FAIL() << "a missing program started";
    } catch (const RecordError& e) {
        EXPECT_STREQ(e.what(), "/nonexistent/program: no such file");
    }
    EXPECT_EQ(runCount(), 0u);
    Recorder viaPath(request({"warpscope-no-such-command"}));
    EXPECT_THROW(viaPath.run(), RecordError);
    EXPECT_EQ(runCount(), 0u);
}

TEST_F(RecorderTest, NotExecutableIsAnErrorAndNoRun) {
    if (geteuid() == 0) {
        // Root may read any file but still needs an execute bit to run it.
    }
    auto script = dir.file("script.sh");
    testing::writeFile(script, "#!/bin/sh\necho hi\n");
    chmod(script.c_str(), 0644);
    Recorder rec(request({script}));
    try {
        rec.run();
        FAIL() << "a non-executable file started";
    } catch (const RecordError& e) {
        EXPECT_NE(std::string(e.what()).find("not executable"), std::string::npos) << e.what();
    }
    Recorder folder(request({dir.path().string()}));
    EXPECT_THROW(folder.run(), RecordError);
    EXPECT_EQ(runCount(), 0u);
}

TEST_F(RecorderTest, FileThatCannotBeExecutedLeavesNoRun) {
    // Executable bit set but not a program: execve fails after fork.
    auto bogus = dir.file("bogus");
    testing::writeFile(bogus, std::string("\x7f"
                                          "ELF garbage",
                                          11));
    chmod(bogus.c_str(), 0755);
    Recorder rec(request({bogus}));
    EXPECT_THROW(rec.run(), RecordError);
    EXPECT_EQ(runCount(), 0u);
}

TEST_F(RecorderTest, ProgressIsReportedAndFinishes) {
    auto req = request({"/bin/sh", "-c", "sleep 0.3"});
    std::vector<RecordProgress> seen;
    req.progressIntervalMs = 50;
    req.onProgress = [&](const RecordProgress& p) { seen.push_back(p); };
    Recorder rec(std::move(req));
    rec.run();
    ASSERT_GE(seen.size(), 2u);
    EXPECT_TRUE(seen.back().finished);
    EXPECT_GT(seen.back().elapsedNs, 250'000'000);
}

// A store that refuses one write, as a full disk or a lock that never ends
// would: a trigger aborts any log update carrying the marker.
void refuseLogWritesContaining(const std::string& store, const std::string& marker) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(store.c_str(), &db), SQLITE_OK);
    std::string sql = "CREATE TRIGGER refuse BEFORE UPDATE OF log ON runs WHEN NEW.log LIKE '%" +
                      marker + "%' BEGIN SELECT RAISE(ABORT, 'injected store failure'); END;";
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << error;
    sqlite3_free(error);
    sqlite3_close(db);
}

bool processExists(pid_t pid) {
    return ::kill(pid, 0) == 0 || errno != ESRCH;
}

TEST_F(RecorderTest, AStoreErrorKillsAndReapsTheProgramAndMarksTheRunFailed) {
    { Store create(dir.file("runs.wsdb")); }
    refuseLogWritesContaining(dir.file("runs.wsdb"), "WS-BREAK-STORE");
    auto pidFile = dir.file("pid");
    Recorder rec(request(
        {"/bin/sh", "-c", "echo $$ > '" + pidFile + "'; echo WS-BREAK-STORE; exec sleep 60"}));
    auto started = std::chrono::steady_clock::now();
    EXPECT_THROW(rec.run(), StoreError);
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20));
    auto pid = static_cast<pid_t>(std::atol(testing::readFile(pidFile).c_str()));
    ASSERT_GT(pid, 0);
    // Killed and reaped: not running, not a zombie left to whoever adopts it.
    EXPECT_FALSE(processExists(pid)) << "the program " << pid << " outlived the recording";
    Store store(dir.file("runs.wsdb"));
    auto runs = listRuns(store);
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].status, RunStatus::Failed);
    auto log = runLog(store, runs[0].id);
    EXPECT_NE(log.find("recording stopped, the program was killed"), std::string::npos) << log;
    EXPECT_NE(log.find("injected store failure"), std::string::npos) << log;
}

// The recording is under way: the program's first line reached the run's log
// (the run row alone comes before the recorder's set-up writes).
bool programLogged(sqlite3* db) {
    sqlite3_stmt* st = nullptr;
    bool found = false;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM runs WHERE log LIKE '%line0%'", -1, &st,
                           nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        found = sqlite3_column_int(st, 0) > 0;
    sqlite3_finalize(st);
    return found;
}

TEST_F(RecorderTest, AStoreLockedLongerThanTheBusyTimeoutOnlyDelaysTheRecording) {
    // Another process holds the write lock for 6 s (past the 5 s after which
    // a recording used to be abandoned) while the program runs and prints.
    { Store create(dir.file("runs.wsdb")); }
    std::atomic<bool> locked{false};
    std::thread holder([&] {
        sqlite3* db = nullptr;
        sqlite3_open(dir.file("runs.wsdb").c_str(), &db);
        sqlite3_busy_timeout(db, 5000);
        // Taken once the program's output is being recorded, while it runs.
        for (int i = 0; i < 500 && !programLogged(db); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        if (sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK) {
            locked = true;
            std::this_thread::sleep_for(std::chrono::seconds(6));
            sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
        }
        sqlite3_close(db);
    });
    // 4.5 s of output, so the lock is taken while it runs even on a loaded machine.
    auto req = request({"/bin/sh", "-c",
                        "sleep 0.5; i=0; while [ $i -lt 40 ]; do echo line$i; sleep 0.1; "
                        "i=$((i+1)); done"});
    req.flushIntervalMs = 50;
    Recorder rec(req);
    auto outcome = rec.run();
    holder.join();
    ASSERT_TRUE(locked.load());
    EXPECT_EQ(outcome.status, RunStatus::Ok);
    Store store(dir.file("runs.wsdb"));
    auto run = requireRun(store, outcome.run);
    EXPECT_EQ(run.status, RunStatus::Ok);
    auto log = runLog(store, outcome.run);
    EXPECT_NE(log.find("line0\n"), std::string::npos) << log;
    EXPECT_NE(log.find("line39\n"), std::string::npos) << log;
    EXPECT_NE(log.find("writing paused"), std::string::npos) << log;
    EXPECT_NE(log.find("writing resumed"), std::string::npos) << log;
}

TEST_F(RecorderTest, KillingTheRecorderWithSigkillAlsoEndsTheProgram) {
    // The program once ran on unsupervised after kill -9 of warpscope-cli.
    auto pidFile = dir.file("pid");
    auto req = request({"/bin/sh", "-c", "echo $$ > '" + pidFile + "'; exec sleep 60"});
    pid_t recorder = ::fork();
    ASSERT_GE(recorder, 0);
    if (recorder == 0) {
        try {
            Recorder(req).run();
        } catch (...) {
        }
        ::_exit(0);
    }
    for (int i = 0; i < 500 && testing::readFile(pidFile).empty(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    auto program = static_cast<pid_t>(std::atol(testing::readFile(pidFile).c_str()));
    ASSERT_GT(program, 0);
    ::kill(recorder, SIGKILL);
    ::waitpid(recorder, nullptr, 0);
    bool gone = false;
    for (int i = 0; i < 200 && !gone; ++i) {
        // The program was the recorder's child; once orphaned it is reaped by
        // init (or this test, as subreaper), so "gone" means no such process
        // or a zombie.
        std::string stat = testing::readFile("/proc/" + std::to_string(program) + "/stat");
        gone = stat.empty() || stat.find(") Z ") != std::string::npos;
        if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_TRUE(gone) << "the program " << program << " outlived its recorder";
    if (!gone) ::kill(program, SIGKILL);
}

// Two child processes report to the capture (tools/wire_peer.cpp): one says
// goodbye, one is killed before it can. Each keeps its kernel, parent and
// command line, and the run says how each ended.
TEST_F(RecorderTest, EachReportingProcessKeepsItsCommandAndHowItEnded) {
    Recorder rec(request({WIRE_PEER_PATH}));
    auto outcome = rec.run();
    ASSERT_EQ(outcome.status, RunStatus::Ok);
    Store store(dir.file("runs.wsdb"));
    auto processes = processesFromProperties(runProperties(store, outcome.run));
    ASSERT_EQ(processes.size(), 2u);
    int exited = 0, lost = 0;
    std::map<std::uint32_t, std::string> endOf;
    for (const auto& p : processes) {
        EXPECT_NE(p.parent, 0u);
        EXPECT_NE(p.command.find("wire_peer"), std::string::npos) << p.command;
        EXPECT_EQ(shortCommand(p.command), "wire_peer");
        EXPECT_GT(p.endNs, 0);
        exited += p.end == "exited";
        lost += p.end == "lost";
        endOf[p.pid] = p.end;
    }
    EXPECT_EQ(exited, 1);
    EXPECT_EQ(lost, 1);
    // Started with RANK, LOCAL_RANK and WORLD_SIZE as torchrun sets them: the
    // one that said goodbye is rank 0, the killed one rank 1.
    for (const auto& p : processes) {
        EXPECT_EQ(p.rank, p.end == "exited" ? 0 : 1);
        EXPECT_EQ(p.localRank, p.rank);
        EXPECT_EQ(p.worldSize, 2);
    }
    EXPECT_NE(runLog(store, outcome.run).find("ended without flushing its capture stream"),
              std::string::npos);
    // The capture window the first sent is counted with the run.
    EXPECT_EQ(runProperties(store, outcome.run)["capture.windows"], "1");
    EXPECT_EQ(runProperties(store, outcome.run)["capture.windows_ns"], "5000");
    // Their state-reading calls add up over frames and processes.
    EXPECT_EQ(runProperties(store, outcome.run)[kQueryCallCountProperty], "12");
    // Both sent a kernel on their stream 7: two lanes, each with its process.
    auto kernels = kernelsIn(store, outcome.run);
    ASSERT_EQ(kernels.size(), 2u);
    for (const auto& s : gpuStreamsOf(store, outcome.run)) {
        ASSERT_TRUE(endOf.count(s.processId));
        EXPECT_EQ(s.cudaStreamId, 7u);
    }
    // The summary split by process: one kernel of 1 µs each.
    auto split = summarizeProcesses(store, outcome.run);
    ASSERT_EQ(split.size(), 2u);
    for (const auto& p : split) {
        EXPECT_EQ(p.kernels, 1);
        EXPECT_EQ(p.kernelNs, 1000);
        EXPECT_DOUBLE_EQ(p.kernelShare, 0.5);
        EXPECT_EQ(p.process.end, endOf[p.process.pid]);
    }
    // Both launched with correlation id 1: stored apart, each kernel is
    // credited to its own process's launch and range, on slices or not.
    std::set<std::uint32_t> ids;
    for (const auto& k : kernels)
        ids.insert(k.correlationId);
    EXPECT_EQ(ids.size(), 2u);
    for (unsigned threads : {1u, 2u}) {
        SCOPED_TRACE(threads);
        const auto summary = summarizeRun(store, outcome.run, {}, "whole run", threads);
        for (const char* rank : {"rank0", "rank1"}) {
            auto range = std::find_if(summary.ranges.begin(), summary.ranges.end(),
                                      [&](const RangeStat& r) { return r.name == rank; });
            ASSERT_NE(range, summary.ranges.end()) << rank;
            EXPECT_EQ(range->inclusiveKernels, 1) << rank;
            EXPECT_EQ(range->inclusiveKernelNs, 1000) << rank;
        }
    }
}

// torch.profiler started inside a recorded program loses CUPTI's one callback
// subscription to the collector; Kineto says so on stderr (the line as seen on
// the H200), split here across writes. The run says what that means.
TEST_F(RecorderTest, AnotherProfilerThatCouldNotSubscribeIsNoted) {
    Recorder rec(
        request({"/bin/sh", "-c",
                 "printf 'WARNING:2026-12-04 12:03:28 1043:1043 init.cpp:116] function "
                 "cbapi->getCuptiStatus() failed with error CUPTI_ERROR_MULTIPLE_' >&2; sleep 0.2; "
                 "printf 'SUBSCRIBERS_NOT_SUPPORTED (39)\\n' >&2"}));
    auto outcome = rec.run();
    ASSERT_EQ(outcome.status, RunStatus::Ok);
    Store store(dir.file("runs.wsdb"));
    EXPECT_EQ(runProperties(store, outcome.run)["capture.cupti_conflict"], "other");
    EXPECT_NE(runLog(store, outcome.run).find("its own trace lacks CUDA activity"),
              std::string::npos);
    Recorder ours(request({"/bin/sh", "-c",
                           "echo '[warpscope] cuptiSubscribe failed: "
                           "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED' >&2"}));
    auto second = ours.run();
    EXPECT_EQ(runProperties(store, second.run)["capture.cupti_conflict"], "warpscope");
    Recorder clean(request({"/bin/sh", "-c", "echo all fine"}));
    EXPECT_EQ(runProperties(store, clean.run().run).count("capture.cupti_conflict"), 0u);
}

TEST(ChildProcess, DestroyingAnUnreapedChildKillsAndReapsIt) {
    pid_t pid = 0;
    {
        ChildProcess child(ChildSpec{"/bin/sleep", {"sleep", "60"}, {}, ""});
        pid = child.pid();
        EXPECT_TRUE(processExists(pid));
        EXPECT_FALSE(child.poll());
    }
    EXPECT_FALSE(processExists(pid));
}

TEST(ChildProcess, AProgramThatCannotRunIsARecordErrorNamingIt) {
    try {
        ChildProcess child(ChildSpec{"/nonexistent/x", {"x"}, {}, ""});
        FAIL() << "started";
    } catch (const RecordError& e) {
        EXPECT_NE(std::string(e.what()).find("cannot start /nonexistent/x"), std::string::npos);
    }
}

TEST(CaptureServer, TheSocketLivesInAFreshPrivateFolder) {
    TempDir runtime;
    ::setenv("XDG_RUNTIME_DIR", runtime.path().c_str(), 1);
    std::string folder;
    {
        CaptureServer a([] { return wire::Sink{}; });
        CaptureServer b([] { return wire::Sink{}; });
        folder = a.folder();
        EXPECT_EQ(std::filesystem::path(a.folder()).parent_path(), runtime.path());
        EXPECT_NE(a.folder(), b.folder());  // not predictable from the pid or the time
        struct stat st {};
        ASSERT_EQ(::stat(a.folder().c_str(), &st), 0);
        EXPECT_EQ(st.st_mode & 0777, 0700u);
        EXPECT_EQ(st.st_uid, ::getuid());
        ASSERT_EQ(::stat(a.socketPath().c_str(), &st), 0);
        EXPECT_TRUE(S_ISSOCK(st.st_mode));
    }
    EXPECT_FALSE(std::filesystem::exists(folder));  // removed with the server
    // Without a usable runtime folder: a fresh one under /tmp.
    ::setenv("XDG_RUNTIME_DIR", "/nonexistent-runtime", 1);
    CaptureServer fallback([] { return wire::Sink{}; });
    EXPECT_EQ(fallback.folder().rfind("/tmp/warpscope-", 0), 0u) << fallback.folder();
    ::unsetenv("XDG_RUNTIME_DIR");
}

// A recorder killed with SIGKILL leaves its folder and socket: the next one
// removes them, and never a folder whose socket is still listened on.
TEST(CaptureServer, FoldersOfKilledRecordersAreRemovedByTheNextOne) {
    TempDir runtime;
    ::setenv("XDG_RUNTIME_DIR", runtime.path().c_str(), 1);
    std::string stale;
    {
        // A socket bound and closed without unlinking: what SIGKILL leaves.
        stale = runtime.path().string() + "/warpscope-AbC123";
        ASSERT_EQ(::mkdir(stale.c_str(), 0700), 0);
        int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::strncpy(addr.sun_path, (stale + "/capture.sock").c_str(), sizeof addr.sun_path - 1);
        ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
        ASSERT_EQ(::listen(fd, 1), 0);
        ::close(fd);
        // Two minutes ago: younger ones may belong to a recorder starting now.
        timespec times[2] = {{::time(nullptr) - 120, 0}, {::time(nullptr) - 120, 0}};
        ASSERT_EQ(
            ::utimensat(AT_FDCWD, (stale + "/capture.sock").c_str(), times, AT_SYMLINK_NOFOLLOW),
            0);
    }
    const std::string unrelated = runtime.path().string() + "/warpscope-notes";
    ASSERT_EQ(::mkdir(unrelated.c_str(), 0700), 0);
    CaptureServer live([] { return wire::Sink{}; });
    EXPECT_FALSE(std::filesystem::exists(stale));
    EXPECT_TRUE(std::filesystem::exists(unrelated));  // not a recorder's
    CaptureServer next([] { return wire::Sink{}; });
    EXPECT_TRUE(std::filesystem::exists(live.socketPath()));  // listened on: kept
    ::unsetenv("XDG_RUNTIME_DIR");
}

int connectTo(const std::string& socketPath) {
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, socketPath.c_str(), sizeof addr.sun_path - 1);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

// Accepts and reads whatever is pending, as the recorder's loop does.
void serve(CaptureServer& server, std::string& log) {
    for (int round = 0; round < 50; ++round) {
        std::vector<pollfd> fds;
        server.addPollFds(fds);
        if (::poll(fds.data(), fds.size(), 20) <= 0) continue;
        for (const auto& p : fds)
            if (p.revents) server.handle(p, log);
    }
}

TEST(CaptureServer, AnotherUsersConnectionIsRefused) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to connect as another user";
    ::unsetenv("XDG_RUNTIME_DIR");
    int kernels = 0;
    CaptureServer server([&] {
        wire::Sink s;
        s.kernel = [&](const KernelRecord&) { ++kernels; };
        return s;
    });
    // As if the folder had been opened up: the uid check must still refuse.
    ::chmod(server.folder().c_str(), 0755);
    ::chmod(server.socketPath().c_str(), 0777);
    auto problem = testing::runUnprivileged([&]() -> std::string {
        int fd = connectTo(server.socketPath());
        if (fd < 0) return "cannot connect: " + std::string(std::strerror(errno));
        wire::Encoder enc;
        KernelRecord k;
        k.name = "forged";
        k.endNs = 1;
        enc.add(k);
        auto bytes = enc.bytes();
        (void)!::write(fd, bytes.data(), bytes.size());
        ::close(fd);
        return "";
    });
    ASSERT_EQ(problem, "");
    std::string log;
    serve(server, log);
    EXPECT_EQ(kernels, 0);
    EXPECT_NE(log.find("refused a capture connection from user 65534"), std::string::npos) << log;
}

TEST(CaptureServer, PartlyReceivedFramesAreBoundedOverAllConnections) {
    ::unsetenv("XDG_RUNTIME_DIR");
    CaptureServer server([] { return wire::Sink{}; }, 1 << 20);
    // Each announces a 4 MiB frame and sends 700 KB of it: the second goes
    // over the 1 MiB bound and is dropped; the first stays.
    std::string header = {char(wire::FrameType::Records), 0, 0, char(0x40), 0};
    std::string part(700'000, 'x');
    int a = connectTo(server.socketPath()), b = connectTo(server.socketPath());
    ASSERT_GE(a, 0);
    ASSERT_GE(b, 0);
    std::string log;
    std::thread writer([&] {
        for (int fd : {a, b}) {
            (void)!::send(fd, header.data(), header.size(), MSG_NOSIGNAL);
            for (std::size_t sent = 0; sent < part.size();) {
                auto n = ::send(fd, part.data() + sent, part.size() - sent, MSG_NOSIGNAL);
                if (n <= 0) break;
                sent += static_cast<std::size_t>(n);
            }
        }
    });
    serve(server, log);
    writer.join();
    serve(server, log);
    EXPECT_NE(log.find("partly received frames exceed 1 MiB"), std::string::npos) << log;
    EXPECT_EQ(server.connections(), 1u);
    EXPECT_LE(server.buffered(), std::size_t{1} << 20);
    ::close(a);
    ::close(b);
}

}  // namespace
}  // namespace ws
