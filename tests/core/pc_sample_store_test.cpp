// PC samples in the store (record --pc-sampling): what a recording writes
// comes back by kernel, offset and reason with its source line; records a
// broken collector could send are discarded and counted; a copied run keeps
// them; a store of the version before (8) opens migrated, its runs whole.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

#include "store/run_copy.h"
#include "store/run_queries.h"
#include "store/schema.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "store_db.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

using testing::TempDir;

constexpr const char* kLong = "smsp__pcsamp_warps_issue_stalled_long_scoreboard";
constexpr const char* kSelected = "smsp__pcsamp_warps_issue_stalled_selected";

RunId writeRun(Store& store) {
    RunId run = store.beginRun({});
    StoreWriter w(store, run);
    w.add(PcSampleRecord{"_Z4gemvPf", 0x80, kLong, 500, "/src/gemv.cu", 42,
                         "LDG.E R4, desc[UR4][R2.64]"});
    w.add(PcSampleRecord{"_Z4gemvPf", 0x80, kSelected, 20, "/src/gemv.cu", 42,
                         "LDG.E R4, desc[UR4][R2.64]"});
    w.add(PcSampleRecord{"_Z4gemvPf", 0x10, kSelected, 3, "", 0, ""});
    w.add(PcSampleRecord{"_Z4fillPf", 0x0, kLong, 7, "", 0, ""});
    // From a broken collector: no samples, an offset past any cubin.
    w.add(PcSampleRecord{"_Z4gemvPf", 0x90, kLong, 0, "", 0, ""});
    w.add(PcSampleRecord{"_Z4gemvPf", std::uint64_t{1} << 63, kLong, 5, "", 0, ""});
    w.flush();
    EXPECT_EQ(w.discarded(), 2);
    store.finishRun(run, RunStatus::Ok);
    return run;
}

TEST(PcSampleStore, RecordsComeBackByKernelOffsetAndReason) {
    TempDir dir;
    Store store(dir.file("s.wsdb"));
    const RunId run = writeRun(store);
    auto all = pcSamplesOf(store, run);
    ASSERT_EQ(all.size(), 4u);
    EXPECT_EQ(all[0].function, "_Z4fillPf");
    EXPECT_EQ(all[1].function, "_Z4gemvPf");
    EXPECT_EQ(all[1].pcOffset, 0x10u);
    EXPECT_EQ(all[2].pcOffset, 0x80u);
    EXPECT_EQ(all[2].stallReason, kLong);
    EXPECT_EQ(all[2].samples, 500);
    EXPECT_EQ(all[2].sourceFile, "/src/gemv.cu");
    EXPECT_EQ(all[2].line, 42u);
    EXPECT_EQ(all[2].sass, "LDG.E R4, desc[UR4][R2.64]");
    EXPECT_EQ(all[1].sass, "");
    EXPECT_EQ(all[3].stallReason, kSelected);
    EXPECT_TRUE(pcSamplesOf(store, run + 1).empty());
}

TEST(PcSampleStore, ACopiedRunKeepsItsSamples) {
    TempDir dir;
    RunId run = 0;
    {
        Store from(dir.file("from.wsdb"));
        run = writeRun(from);
    }
    Store to(dir.file("to.wsdb"));
    to.finishRun(to.beginRun({}), RunStatus::Ok);  // the copy gets another id
    RunId copied = copyRun(dir.file("from.wsdb"), run, to);
    EXPECT_NE(copied, run);
    auto all = pcSamplesOf(to, copied);
    ASSERT_EQ(all.size(), 4u);
    EXPECT_EQ(all[2].samples, 500);
    EXPECT_EQ(all[2].line, 42u);
    EXPECT_EQ(all[2].sass, "LDG.E R4, desc[UR4][R2.64]");
    EXPECT_EQ(all[1].sass, "");
}

TEST(PcSampleStore, AVersion8StoreOpensMigratedWithItsRunsWhole) {
    TempDir dir;
    const auto path = dir.file("v8.wsdb");
    {
        Store store(path);
        RunId run = store.beginRun({});
        StoreWriter w(store, run);
        KernelRecord k;
        k.name = "gemv";
        k.startNs = 1'000;
        k.endNs = 2'000;
        w.add(k);
        w.flush();
        store.finishRun(run, RunStatus::Ok);
    }
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "DROP TABLE pc_samples; PRAGMA user_version = 8;", nullptr, nullptr,
                           nullptr),
              SQLITE_OK);
    sqlite3_close(db);
    Store store(path);
    EXPECT_EQ(storeDb(store).queryInt("PRAGMA user_version"), schema::kCurrentVersion);
    EXPECT_EQ(listRuns(store).size(), 1u);
    EXPECT_TRUE(pcSamplesOf(store, 1).empty());
    StoreWriter w(store, store.beginRun({}));
    w.add(PcSampleRecord{"gemv", 0, kLong, 1, "", 0, ""});
    w.flush();
    EXPECT_EQ(pcSamplesOf(store, 2).size(), 1u);
}

// A version-9 store (no SASS column) opens migrated: its samples read back
// with no SASS text, new ones keep theirs.
TEST(PcSampleStore, AVersion9StoreGainsTheSassColumn) {
    TempDir dir;
    const auto path = dir.file("v9.wsdb");
    {
        Store store(path);
        writeRun(store);
    }
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "ALTER TABLE pc_samples DROP COLUMN sass; PRAGMA user_version = 9;",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
    Store store(path);
    EXPECT_EQ(storeDb(store).queryInt("PRAGMA user_version"), schema::kCurrentVersion);
    auto old = pcSamplesOf(store, 1);
    ASSERT_EQ(old.size(), 4u);
    EXPECT_EQ(old[2].sourceFile, "/src/gemv.cu");
    EXPECT_EQ(old[2].sass, "");
    StoreWriter w(store, store.beginRun({}));
    w.add(PcSampleRecord{"gemv", 0x20, kLong, 1, "", 0, "FFMA R1, R2, R3, R4"});
    w.flush();
    EXPECT_EQ(pcSamplesOf(store, 2).at(0).sass, "FFMA R1, R2, R3, R4");
}

}  // namespace
}  // namespace ws
