// Ctrl-C during `import` of a large trace: the import stops at the next block
// read, says so, and the store has no trace of it.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>

#include "io/progress_messages.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "support/child_process.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

using namespace std::chrono_literals;

// A Kineto trace of about `mb` MB: one kernel event after another.
void writeBigTrace(const std::string& path, int mb) {
    std::ofstream out(path, std::ios::binary);
    out << R"({"schemaVersion": 1, "traceEvents": [)" << '\n';
    std::string line;
    std::int64_t written = 0;
    for (std::int64_t i = 0; written < std::int64_t(mb) << 20; ++i) {
        line = std::string(i ? ",\n" : "") +
               R"({"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": )" +
               std::to_string(10 + 2 * i) + R"(.5, "dur": 1.25, "args": {"correlation": )" +
               std::to_string(i) + "}}";
        out << line;
        written += static_cast<std::int64_t>(line.size());
    }
    out << "\n]}\n";
}

TEST(ImportCancel, SigintStopsTheImportAndLeavesTheStoreAsItWas) {
    testing::TempDir dir;
    const auto trace = dir.file("big.json"), db = dir.file("runs.wsdb");
    writeBigTrace(trace, 64);
    testing::ChildProcess cli(
        {WARPSCOPE_CLI_PATH, "import", trace, "--db", db, "--progress", "json"});
    // The first message with bytes read (the one before names the size only):
    // the events are being written.
    bool reading = false;
    while (!reading) {
        auto line = cli.waitForLine("\"done\":", 60s);
        ASSERT_TRUE(line) << cli.output();
        reading = line->find("\"done\":0,") == std::string::npos;
    }
    cli.signal(SIGINT);
    auto code = cli.waitForExit(60s);
    ASSERT_TRUE(code) << cli.output();
    EXPECT_EQ(*code, 1) << cli.output();
    EXPECT_NE(cli.output().find("import cancelled: nothing of " + trace + " was imported"),
              std::string::npos)
        << cli.output();
    Store store(db);
    EXPECT_TRUE(listRuns(store).empty());
}

}  // namespace
}  // namespace ws
