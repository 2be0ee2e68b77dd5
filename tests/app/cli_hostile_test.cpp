// warpscope-cli given bad bytes and bad arguments: labels that are not UTF-8
// or carry terminal escapes, numbers that are not numbers, export targets
// that are not files. Each was a broken store listing, a wrapped-around
// number or a replaced device before.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "app/cli_fixture.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "store_db.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

using testing::ProcessResult;
using testing::TempDir;

using CliHostileTest = CliFixture;

TEST_F(CliHostileTest, LabelsThatAreNotUtf8NeverBreakJsonListing) {
    {
        Store store(db);
        NewRun nr;
        nr.label = "bad \xff\xfe bytes \xc3";
        nr.command = "\xed\xa0\x80 surrogate";
        auto id = store.beginRun(nr);
        store.setProperty(id, "note\xff", "value\x80");
        store.finishRun(id, RunStatus::Ok);
    }
    auto ls = cli({"ls", "--db", db, "--json"});
    ASSERT_EQ(ls.exitCode, 0) << ls.err;
    auto list = nlohmann::json::parse(ls.out, nullptr, false);
    ASSERT_FALSE(list.is_discarded()) << ls.out;
    bool found = false;
    for (const auto& r : list)
        found = found || r.value("label", "") == "bad \xEF\xBF\xBD\xEF\xBF\xBD bytes \xEF\xBF\xBD";
    EXPECT_TRUE(found) << ls.out;
    auto id = std::to_string(list.back().value("id", 0));
    auto exported = dir.file("run.json");
    auto ex = cli({"export", id, "--db", db, "--format", "json", "-o", exported});
    ASSERT_EQ(ex.exitCode, 0) << ex.err;
    EXPECT_FALSE(nlohmann::json::parse(testing::readFile(exported), nullptr, false).is_discarded());
}

TEST_F(CliHostileTest, TerminalEscapesInLabelsAreShownNotSent) {
    {
        Store store(db);
        NewRun nr;
        nr.label = "\x1b]0;pwned\x07\x1b[2Jred";
        store.finishRun(store.beginRun(nr), RunStatus::Ok);
    }
    auto ls = cli({"ls", "--db", db});
    ASSERT_EQ(ls.exitCode, 0) << ls.err;
    EXPECT_EQ(ls.out.find('\x1b'), std::string::npos);
    EXPECT_NE(ls.out.find("\\x1b]0;pwned"), std::string::npos) << ls.out;
}

TEST_F(CliHostileTest, NumbersThatAreNotInRangeAreUsageErrors) {
    struct Case {
        std::vector<std::string> args;
        std::string message;
    } cases[] = {
        {{"summary", "1", "--top", "-1"}, "--top must be a whole number"},
        {{"summary", "1", "--top", "abc"}, "--top must be a whole number"},
        {{"compare", "1", "2", "--top", "18446744073709551615"}, "--top must be a whole number"},
        {{"stats", "1", "--percentiles", "nan"}, "'nan' is not a number from 0 to 100"},
        {{"stats", "1", "--goodput", "tpot:nan"}, "is not a finite number"},
        {{"stats", "1", "--goodput", "tpot:-3"}, "needs a positive number"},
        {{"occupancy", "--cc", "9.0x", "--threads", "128", "--regs", "32"}, "--cc 9.0x"},
    };
    for (auto& c : cases) {
        if (c.args[0] != "occupancy") c.args.insert(c.args.end(), {"--db", db});
        auto r = cli(c.args);
        EXPECT_EQ(r.exitCode, 2) << c.args[0] << ' ' << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    }
}

// `import` looks for a run bundle first: that look once opened a FIFO and
// waited for a writer for ever (issue 45).
TEST_F(CliHostileTest, ImportingAFifoWithNoWriterIsRefusedAtOnce) {
    auto fifo = dir.file("trace.fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    auto r = cli({"import", fifo, "--db", dir.file("t.wsdb")});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("is not a regular file"), std::string::npos) << r.err;
}

TEST_F(CliHostileTest, ExportWritesIntoADeviceNeverReplacesItAndWritesToStandardOutput) {
    auto id = std::to_string(runs.decoderOk);
    // Into a device, as `>` would (issue 45: -o /dev/null was refused).
    auto toNull = cli({"export", id, "--db", db, "--format", "csv", "-o", "/dev/null"});
    EXPECT_EQ(toNull.exitCode, 0) << toNull.err;
    auto toFull = cli({"export", id, "--db", db, "--format", "csv", "-o", "/dev/full"});
    EXPECT_EQ(toFull.exitCode, 1);
    EXPECT_NE(toFull.err.find("/dev/full: write failed"), std::string::npos) << toFull.err;
    for (const char* device : {"/dev/null", "/dev/full"}) {
        struct stat st {};
        ASSERT_EQ(::stat(device, &st), 0);
        EXPECT_TRUE(S_ISCHR(st.st_mode)) << device << " was replaced";
    }
    auto toFolder = cli({"export", id, "--db", db, "--format", "csv", "-o", dir.path().string()});
    EXPECT_NE(toFolder.err.find("not a regular file or a device"), std::string::npos)
        << toFolder.err;
    auto out = cli({"export", id, "--db", db, "--format", "csv", "-o", "-"});
    ASSERT_EQ(out.exitCode, 0) << out.err;
    EXPECT_NE(out.out.find("name"), std::string::npos);
    // A symbolic link is followed: the file it names is replaced, the link stays.
    auto target = dir.file("real.csv");
    testing::writeFile(target, "old");
    auto link = dir.file("link.csv");
    std::filesystem::create_symlink(target, link);
    ASSERT_EQ(cli({"export", id, "--db", db, "--format", "csv", "-o", link}).exitCode, 0);
    EXPECT_TRUE(std::filesystem::is_symlink(link));
    EXPECT_NE(testing::readFile(target), "old");
    for (const auto& e : std::filesystem::directory_iterator(dir.path()))
        EXPECT_EQ(e.path().filename().string().find(".csv."), std::string::npos)
            << "left behind: " << e.path();
}

TEST_F(CliHostileTest, KillNineDuringImportsNeverLeavesAPartialRun) {
    // 7 of 24 kill -9 rounds once left partial runs (read as 12 h "killed"
    // recordings); an import is now one transaction.
    const auto trace = testing::dataFile("kineto_llama_h200.json");
    auto countRuns = [&] {
        Store store(db);
        return storeDb(store).queryInt("SELECT count(*) FROM runs");
    };
    const auto before = countRuns();
    std::int64_t imported = 0;
    const int rounds = 12;
    for (int round = 0; round < rounds; ++round) {
        pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            int null = ::open("/dev/null", O_WRONLY);
            ::dup2(null, 1);
            ::dup2(null, 2);
            ::execl(WARPSCOPE_CLI_PATH, "warpscope-cli", "import", trace.c_str(), "--db",
                    db.c_str(), "--progress", "none", static_cast<char*>(nullptr));
            ::_exit(127);
        }
        // Spread over the import's life (about 1 s in a debug build).
        std::this_thread::sleep_for(std::chrono::milliseconds(60 + 80 * round));
        ::kill(pid, SIGKILL);
        int status = 0;
        ::waitpid(pid, &status, 0);
        Store store(db);
        EXPECT_EQ(
            storeDb(store).queryInt("SELECT count(*) FROM runs WHERE status != 'ok' AND id > 4"), 0)
            << "round " << round;
        // A kill after the commit (before the process exits) leaves a whole
        // run too; a finished import always does.
        const auto added = storeDb(store).queryInt("SELECT count(*) FROM runs") - before - imported;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
            EXPECT_EQ(added, 1) << "round " << round;
        else
            EXPECT_TRUE(added == 0 || added == 1) << "round " << round << ": " << added;
        imported += added;
        sql::Statement check(storeDb(store), "PRAGMA integrity_check");
        ASSERT_TRUE(check.step());
        EXPECT_EQ(check.text(0), "ok");
    }
    RecordProperty("completed_imports", static_cast<int>(imported));
}

TEST_F(CliHostileTest, RmChecksEveryIdBeforeRemovingAny) {
    auto r = cli({"rm", std::to_string(runs.kernelFailed), "99", "--db", db});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("99"), std::string::npos) << r.err;
    Store store(db);
    EXPECT_TRUE(findRun(store, runs.kernelFailed).has_value());
}

TEST_F(CliHostileTest, AnOccupancyThatCannotLaunchIsAnError) {
    // 2048 threads per block: "limited by invalid" with exit code 0 before.
    auto r = cli({"occupancy", "--cc", "9.0", "--threads", "2048", "--regs", "32"});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("cannot run"), std::string::npos) << r.err;
    auto j = cli({"occupancy", "--cc", "9.0", "--threads", "2048", "--regs", "32", "--json"});
    EXPECT_EQ(j.exitCode, 1);
    EXPECT_NE(j.out.find("\"problem\""), std::string::npos) << j.out;
}

}  // namespace
}  // namespace ws
