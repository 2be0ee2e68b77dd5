// Hostile or damaged input files: each is refused with the file and the field
// named, and the store is left as it was (no run, no orphan workload or device
// rows). Each case was a garbage run, a crash or undefined behaviour before.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "io/kineto_import.h"
#include "io/trace_import.h"
#include "io/vllm_import.h"
#include "store/run_queries.h"
#include "store/sqlite_db.h"
#include "store/store.h"
#include "store_db.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

using testing::TempDir;

struct Outcome {
    std::string error;  // "" when it imported
    std::int64_t runs = 0, workloads = 0, devices = 0, strings = 0;
};

Outcome importFile(const std::string& path) {
    TempDir dir;
    Store store(dir.file("runs.wsdb"));
    Outcome out;
    try {
        importTrace(store, readTraceFile(path), "");
    } catch (const std::runtime_error& e) {
        out.error = e.what();
    }
    out.runs = storeDb(store).queryInt("SELECT count(*) FROM runs");
    out.workloads = storeDb(store).queryInt("SELECT count(*) FROM workloads");
    out.devices = storeDb(store).queryInt("SELECT count(*) FROM devices");
    out.strings = storeDb(store).queryInt("SELECT count(*) FROM strings");
    return out;
}

void expectRefused(const std::string& path, const std::string& field) {
    auto out = importFile(path);
    EXPECT_NE(out.error.find(path + ": " + field), std::string::npos)
        << "expected '" << field << "' in: " << out.error;
    EXPECT_NE(out.error.find("nothing was imported"), std::string::npos) << out.error;
    EXPECT_EQ(out.error.find("json.exception"), std::string::npos) << out.error;
    EXPECT_EQ(out.runs, 0);
    EXPECT_EQ(out.workloads, 0);
    EXPECT_EQ(out.devices, 0);
    EXPECT_EQ(out.strings, 0);
}

std::string kineto(const std::string& event, const std::string& extra = "") {
    return R"({"schemaVersion": 1, )" + extra + R"("traceEvents": [
        {"ph": "X", "cat": "kernel", "name": "ok", "pid": 0, "tid": 7, "ts": 10.0, "dur": 1.0},
        )" +
           event + "]}";
}

TEST(HostileImport, KinetoTimesOutOfRangeAreNamed) {
    TempDir dir;
    struct Case {
        std::string event, field;
    } cases[] = {
        {R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 9.3e15, "dur": 1})",
         "traceEvents[1] (k).ts"},
        {R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 1e400, "dur": 1})",
         "traceEvents[1] (k).ts"},
        {R"({"ph": "X", "cat": "kernel", "name": "k", "ts": -5, "dur": 1})",
         "traceEvents[1] (k).ts"},
        {R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1e300})",
         "traceEvents[1] (k).dur"},
        {R"({"ph": "X", "cat": "gpu_memcpy", "name": "m", "ts": 1, "dur": 1,
             "args": {"bytes": 9223372036854775807}})",
         "traceEvents[1] (m).args.bytes"},
        {R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1,
             "args": {"grid": [1e30, 1, 1]}})",
         "traceEvents[1] (k).args.grid[0]"},
    };
    for (const auto& c : cases) {
        auto path = dir.file("trace.json");
        testing::writeFile(path, kineto(c.event));
        SCOPED_TRACE(c.event);
        expectRefused(path, c.field);
    }
}

TEST(HostileImport, KinetoWarpSizeZeroIsNamedNotADivisionByZero) {
    TempDir dir;
    auto path = dir.file("trace.json");
    testing::writeFile(path,
                       kineto(R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 11, "dur": 1})",
                              R"("deviceProperties": [{"id": 0, "name": "GPU", "warpSize": 0,
                        "maxThreadsPerMultiprocessor": 2048}], )"));
    expectRefused(path, "deviceProperties.warpSize");
}

TEST(HostileImport, KinetoFieldsOfTheWrongTypeAreSkippedOrNamed) {
    // "ph": 5 once raised a bare [json.exception.type_error.302].
    TempDir dir;
    auto path = dir.file("trace.json");
    testing::writeFile(path, kineto(R"({"ph": 5, "cat": [], "name": {}, "ts": 1, "dur": 1})"));
    auto out = importFile(path);
    EXPECT_EQ(out.error, "");
    EXPECT_EQ(out.runs, 1);
}

std::string vllm(const std::string& ttfts, const std::string& itls, const std::string& extra = "") {
    return R"({"duration": 2.5, "ttfts": )" + ttfts + R"(, "itls": )" + itls +
           R"(, "output_lens": [3], "input_lens": [8])" + extra + "}";
}

TEST(HostileImport, VllmTimesOutOfRangeAreNamed) {
    TempDir dir;
    struct Case {
        std::string text, field;
    } cases[] = {
        {vllm("[-0.1]", "[[0.01, 0.01]]"), "ttfts[0]"},
        {vllm("[0.1]", "[[0.01, -0.5]]"), "itls[0][1]"},
        {vllm("[1e300]", "[[0.01]]"), "ttfts[0]"},
        {R"({"duration": 9.2e9, "ttfts": [0.1], "itls": [[0.01]], "output_lens": [2]})",
         "duration"},
        {vllm("[0.1]", "[[0.01]]", R"(, "date": "99991231-235959")"), "date"},
        {R"({"duration": 1, "ttfts": [0.1], "itls": [[0.01]], "output_lens": [-2]})",
         "output_lens[0]"},
        {R"({"duration": 1, "ttfts": [0.1], "itls": [[0.01]], "output_lens": [1e20]})",
         "output_lens[0]"},
    };
    for (const auto& c : cases) {
        auto path = dir.file("result.json");
        testing::writeFile(path, c.text);
        SCOPED_TRACE(c.text);
        expectRefused(path, c.field);
    }
}

TEST(HostileImport, VllmDeeplyNestedSummaryFieldStaysSmall) {
    // 20,000 levels once became an 800 MB store; 70,000 crashed.
    TempDir dir;
    auto path = dir.file("result.json");
    std::string deep = std::string(70'000, '[') + std::string(70'000, ']');
    testing::writeFile(path, vllm("[0.1]", "[[0.01, 0.01]]", R"(, "backend": )" + deep));
    Store store(dir.file("runs.wsdb"));
    auto result = importTrace(store, readTraceFile(path), "");
    auto workload = runWorkload(store, result.run);
    ASSERT_TRUE(workload.has_value());
    EXPECT_LT(workload->configText.size(), 1000u);
}

std::string nsysExport(const TempDir& dir, const std::string& edit) {
    auto path = dir.file("report.sqlite");
    std::filesystem::remove(path);
    sql::Db db(path, sql::Db::Mode::ReadWriteCreate);
    db.exec(testing::readFile(testing::dataFile("nsys_export.sql")));
    db.exec(edit);
    return path;
}

TEST(HostileImport, NsysTimesAndSizesOutOfRangeAreNamed) {
    TempDir dir;
    struct Case {
        std::string edit, field;
    } cases[] = {
        {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 1e300", "CUPTI_ACTIVITY_KIND_KERNEL.start"},
        {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = 'later'", "CUPTI_ACTIVITY_KIND_KERNEL.end"},
        {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = 9223372036854775807",
         "CUPTI_ACTIVITY_KIND_KERNEL row with start"},
        {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = -9223372036854775808",
         "CUPTI_ACTIVITY_KIND_KERNEL row with start"},
        {"UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = 9223372036854775807",
         "CUPTI_ACTIVITY_KIND_MEMCPY.bytes"},
        {"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET end = start - 1",
         "CUPTI_ACTIVITY_KIND_RUNTIME row with start"},
        {"UPDATE TARGET_INFO_SESSION_START_TIME SET utcEpochNs = 9223372036854775807",
         "TARGET_INFO_SESSION_START_TIME.utcEpochNs"},
        {"UPDATE TARGET_INFO_SESSION_START_TIME SET utcEpochNs = -1",
         "TARGET_INFO_SESSION_START_TIME.utcEpochNs"},
        {"UPDATE TARGET_INFO_SESSION_START_TIME SET utcEpochNs = 1.5e30",
         "TARGET_INFO_SESSION_START_TIME.utcEpochNs"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.edit);
        expectRefused(nsysExport(dir, c.edit), c.field);
    }
}

TEST(HostileImport, AFailureLateInTheImportLeavesNoRunAndNoOrphanRows) {
    // The run row used to be committed first, and the clean-up could fail too.
    TempDir dir;
    Store store(dir.file("runs.wsdb"));
    storeDb(store).exec(
        "CREATE TRIGGER refuse BEFORE INSERT ON run_properties BEGIN SELECT RAISE(ABORT, "
        "'injected failure'); END");
    auto path = nsysExport(dir, "SELECT 1");
    EXPECT_THROW(importTrace(store, readTraceFile(path), ""), std::exception);
    EXPECT_EQ(storeDb(store).queryInt("SELECT count(*) FROM runs"), 0);
    EXPECT_EQ(storeDb(store).queryInt("SELECT count(*) FROM workloads"), 0);
    EXPECT_EQ(storeDb(store).queryInt("SELECT count(*) FROM devices"), 0);
    EXPECT_EQ(storeDb(store).queryInt("SELECT count(*) FROM event_chunks"), 0);
    EXPECT_EQ(storeDb(store).queryInt("SELECT count(*) FROM strings"), 0);
}

TEST(HostileImport, PipesAndFoldersAreNamedNotReadForever) {
    TempDir dir;
    auto fifo = dir.file("trace.fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    try {
        readTraceFile(fifo);
        FAIL() << "a FIFO was read";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
    }
    try {
        readTraceFile(dir.path().string());
        FAIL() << "a folder was read";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("is a folder"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace ws
