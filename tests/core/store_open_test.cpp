// Opening stores: new, existing, and every kind of file that must be refused
// with a specific message and left byte-for-byte as it was.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/compact.h"
#include "store/run_queries.h"
#include "store/schema.h"
#include "store/sqlite_db.h"
#include "store/store.h"
#include "store_db.h"
#include "support/fixture_store.h"
#include "support/temp_dir.h"
#include "support/unprivileged.h"

namespace ws {
namespace {

using testing::readFile;
using testing::TempDir;
using testing::writeFile;

void sqliteExec(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db);
    sqlite3_close(db);
}

// The fixture store, closed (so checkpointed, no -wal/-shm, still WAL mode),
// then it and its folder made read-only and reachable by `nobody`.
std::string readOnlyFixtureStore(const std::string& folder) {
    std::filesystem::create_directory(folder);
    auto path = folder + "/runs.wsdb";
    testing::writeFixtureStore(path);
    { Store store(path); }
    chmod(path.c_str(), 0444);
    chmod(folder.c_str(), 0555);
    testing::allowOthersToReach(folder);
    return path;
}

StoreError::Kind openError(const std::string& path, std::string& message) {
    try {
        Store store(path);
    } catch (const StoreError& e) {
        message = e.what();
        return e.kind();
    }
    ADD_FAILURE() << "opening " << path << " did not fail";
    return StoreError::Kind::Sql;
}

TEST(StoreOpen, CreatesNewStoreWithSchemaVersionAndApplicationId) {
    TempDir dir;
    auto path = dir.file("sub/folder/runs.wsdb");
    {
        Store store(path);
        EXPECT_FALSE(store.readOnly());
        EXPECT_EQ(storeDb(store).queryInt("PRAGMA user_version"), schema::kCurrentVersion);
        EXPECT_EQ(storeDb(store).queryInt("PRAGMA application_id"), schema::kApplicationId);
        EXPECT_EQ(storeDb(store).queryInt("PRAGMA foreign_keys"), 1);
        EXPECT_TRUE(listRuns(store).empty());
    }
    Store again(path);
    EXPECT_EQ(storeDb(again).queryInt("PRAGMA user_version"), schema::kCurrentVersion);
}

// A store from a build before the chunk summary index gets it when opened
// for writing, with no version change; the chunk directory then reads the
// index alone. Opened read-only it is left as it is.
TEST(StoreOpen, ChunkSummaryIndexIsAddedWithoutAVersionChange) {
    TempDir dir;
    auto path = dir.file("runs.wsdb");
    { Store store(path); }
    sqliteExec(path,
               "DROP INDEX event_chunks_spans; CREATE INDEX event_chunks_by_lane ON "
               "event_chunks(run_id, kind, group_id, lane_id, first_start_ns);");
    auto hasIndex = [](Store& store, const std::string& name) {
        return storeDb(store).queryInt("SELECT count(*) FROM sqlite_master WHERE name = '" + name +
                                       "'") > 0;
    };
    {
        Store readOnly(path, {.readOnly = true});
        EXPECT_FALSE(hasIndex(readOnly, "event_chunks_spans"));
    }
    Store store(path);
    EXPECT_TRUE(hasIndex(store, "event_chunks_spans"));
    EXPECT_FALSE(hasIndex(store, "event_chunks_by_lane"));
    EXPECT_EQ(storeDb(store).queryInt("PRAGMA user_version"), schema::kCurrentVersion);
    sql::Statement plan(storeDb(store),
                        "EXPLAIN QUERY PLAN SELECT group_id, lane_id, first_start_ns, max_end_ns, "
                        "count, busy_ns FROM event_chunks WHERE run_id = 1 AND kind = 1 ORDER BY "
                        "group_id, lane_id, first_start_ns");
    std::string detail;
    while (plan.step())
        detail += plan.text(3);
    EXPECT_NE(detail.find("COVERING INDEX event_chunks_spans"), std::string::npos) << detail;
}

TEST(StoreOpen, DefaultPathFollowsXdgDataHome) {
    const char* old = std::getenv("XDG_DATA_HOME");
    std::string saved = old ? old : "";
    setenv("XDG_DATA_HOME", "/tmp/xdg-test", 1);
    EXPECT_EQ(Store::defaultPath(), "/tmp/xdg-test/warpscope/runs.wsdb");
    if (old)
        setenv("XDG_DATA_HOME", saved.c_str(), 1);
    else
        unsetenv("XDG_DATA_HOME");
}

TEST(StoreOpen, RefusesNonSqliteFileUntouched) {
    TempDir dir;
    auto path = dir.file("notes.wsdb");
    writeFile(path, "these are my notes, not a database\n");
    std::string message;
    EXPECT_EQ(openError(path, message), StoreError::Kind::NotSqlite);
    EXPECT_NE(message.find(path), std::string::npos);
    EXPECT_NE(message.find("not an SQLite file"), std::string::npos);
    EXPECT_EQ(readFile(path), "these are my notes, not a database\n");
}

TEST(StoreOpen, RefusesForeignSqliteDatabaseUntouched) {
    TempDir dir;
    auto path = dir.file("foreign.db");
    sqliteExec(path,
               "CREATE TABLE customers (id INTEGER, name TEXT); INSERT INTO customers "
               "VALUES (1, 'Ada');");
    auto before = readFile(path);
    std::string message;
    EXPECT_EQ(openError(path, message), StoreError::Kind::Foreign);
    EXPECT_NE(message.find("not a Warpscope store"), std::string::npos);
    EXPECT_EQ(readFile(path), before);
    EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
}

TEST(StoreOpen, RefusesSqliteFileWithOtherApplicationId) {
    TempDir dir;
    auto path = dir.file("other-app.db");
    sqliteExec(path, "PRAGMA application_id = 1234;");
    auto before = readFile(path);
    std::string message;
    EXPECT_EQ(openError(path, message), StoreError::Kind::Foreign);
    EXPECT_EQ(readFile(path), before);
}

TEST(StoreOpen, RefusesStoreFromNewerWarpscopeUntouched) {
    TempDir dir;
    auto path = dir.file("newer.wsdb");
    { Store store(path); }
    sqliteExec(path, "PRAGMA journal_mode = DELETE; PRAGMA user_version = " +
                         std::to_string(schema::kCurrentVersion + 1) + ";");
    auto before = readFile(path);
    std::string message;
    EXPECT_EQ(openError(path, message), StoreError::Kind::Newer);
    EXPECT_NE(message.find("newer Warpscope"), std::string::npos);
    EXPECT_NE(message.find("version " + std::to_string(schema::kCurrentVersion + 1)),
              std::string::npos);
    EXPECT_EQ(readFile(path), before);
}

TEST(StoreOpen, RefusesNegativeSchemaVersionAsDamagedUntouched) {
    // A negative user_version once indexed before the migration table and ran
    // whatever memory held as SQL.
    TempDir dir;
    auto path = dir.file("negative.wsdb");
    { Store store(path); }
    sqliteExec(path, "PRAGMA journal_mode = DELETE; PRAGMA user_version = -7;");
    auto before = readFile(path);
    std::string message;
    EXPECT_EQ(openError(path, message), StoreError::Kind::Damaged);
    EXPECT_NE(message.find("schema version -7"), std::string::npos) << message;
    EXPECT_NE(message.find("not changed"), std::string::npos) << message;
    Store::Options options;
    options.readOnly = true;
    EXPECT_THROW(Store(path, options), StoreError);
    EXPECT_TRUE(readFile(path) == before) << "the file changed";
}

// The first development build's layout (2026-12-02: kernels in a table of
// their own, also schema version 1) was refused with a migration's SQL text,
// after the file had been switched to WAL.
TEST(StoreOpen, RefusesTheFirstBuildsLayoutWithASentenceUntouched) {
    TempDir dir;
    auto path = dir.file("first.wsdb");
    sqliteExec(path,
               "CREATE TABLE runs (id INTEGER PRIMARY KEY, label TEXT NOT NULL DEFAULT ''); "
               "CREATE TABLE kernels (run_id INTEGER NOT NULL, start_ns INTEGER NOT NULL); "
               "PRAGMA application_id = " +
                   std::to_string(schema::kApplicationId) + "; PRAGMA user_version = 1;");
    auto before = readFile(path);
    std::string message;
    EXPECT_EQ(openError(path, message), StoreError::Kind::Damaged);
    EXPECT_NE(message.find("first development build"), std::string::npos) << message;
    EXPECT_EQ(message.find("ALTER TABLE"), std::string::npos) << message;
    EXPECT_NE(message.find("not changed"), std::string::npos) << message;
    EXPECT_TRUE(readFile(path) == before) << "the file changed";
    EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
}

// A failing statement says what the store was doing, not its SQL (issue
// 45: 80 bundle and importer messages quoted statements).
TEST(StoreOpen, StoreErrorsNameWhatFailedNotTheStatement) {
    TempDir dir;
    sql::Db db(dir.file("x.wsdb"), sql::Db::Mode::ReadWriteCreate);
    db.exec("CREATE TABLE runs (id INTEGER PRIMARY KEY, label TEXT NOT NULL)");
    const std::pair<const char*, const char*> cases[] = {
        {"INSERT INTO runs (id, label) VALUES (1, NULL)", "while adding a row to runs: "},
        {"SELECT label FROM no_such_table", "while reading no_such_table: "},
        {"ALTER TABLE no_such_table ADD COLUMN x INTEGER", "while upgrading the store's layout"},
    };
    for (const auto& [statement, says] : cases) {
        try {
            sql::Statement st(db, statement);
            st.exec();
            ADD_FAILURE() << statement << " did not fail";
        } catch (const StoreError& e) {
            const std::string message = e.what();
            EXPECT_NE(message.find(says), std::string::npos) << message;
            for (const char* sql : {"INSERT", "SELECT", "ALTER", "VALUES"})
                EXPECT_EQ(message.find(sql), std::string::npos) << message;
        }
    }
}

TEST(StoreOpen, RefusingAForeignWalDatabaseCreatesNothingBesideIt) {
    TempDir dir;
    auto path = dir.file("foreign-wal.db");
    sqliteExec(path,
               "PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);");
    ASSERT_FALSE(std::filesystem::exists(path + "-wal"));  // checkpointed at close
    auto before = readFile(path);
    std::string message;
    EXPECT_EQ(openError(path, message), StoreError::Kind::Foreign);
    EXPECT_TRUE(readFile(path) == before) << "the file changed";
    EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
    EXPECT_FALSE(std::filesystem::exists(path + "-shm"));
}

TEST(StoreOpen, StoreInAFolderTheUserCannotWriteIsListed) {
    // A shared results folder: the store and its folder are read-only to us.
    TempDir dir;
    auto folder = dir.file("shared");
    auto path = readOnlyFixtureStore(folder);
    ASSERT_FALSE(std::filesystem::exists(path + "-shm"));
    auto before = readFile(path);
    auto problem = testing::runUnprivileged([&]() -> std::string {
        try {
            Store store(path);
            if (!store.readOnly()) return "opened for writing";
            auto runs = listRuns(store);
            if (runs.size() != 4) return "listed " + std::to_string(runs.size()) + " runs";
            return "";
        } catch (const std::exception& e) {
            return e.what();
        }
    });
    EXPECT_EQ(problem, "");
    EXPECT_TRUE(readFile(path) == before) << "the file changed";
    EXPECT_FALSE(std::filesystem::exists(path + "-shm"));
    chmod(folder.c_str(), 0755);
}

// The same shared folder holding a -wal (a writer that was killed, a copied
// folder) and no -shm: SQLite cannot read the -wal where it cannot make a
// -shm, and the store could not be opened at all (issue 45). Now both are read
// from a private copy, the runs only in the -wal included.
TEST(StoreOpen, StoreWithAWalInAFolderTheUserCannotWriteIsListedWithTheWalsRuns) {
    TempDir dir;
    auto folder = dir.file("shared");
    std::filesystem::create_directory(folder);
    auto path = folder + "/runs.wsdb";
    testing::writeFixtureStore(path);
    pid_t child = ::fork();
    if (child == 0) {  // commits one more run, then dies without a checkpoint
        Store store(path);
        NewRun run;
        run.label = "only in the wal";
        store.finishRun(store.beginRun(run), RunStatus::Ok);
        ::_exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_GT(std::filesystem::file_size(path + "-wal"), 0u);
    std::filesystem::remove(path + "-shm");
    chmod(path.c_str(), 0444);
    chmod((path + "-wal").c_str(), 0444);
    chmod(folder.c_str(), 0555);
    testing::allowOthersToReach(folder);
    auto problem = testing::runUnprivileged([&]() -> std::string {
        try {
            Store store(path);
            if (!store.readOnly()) return "opened for writing";
            if (store.path() != path) return "named " + store.path();
            auto runs = listRuns(store);
            if (runs.size() != 5) return "listed " + std::to_string(runs.size()) + " runs";
            return "";
        } catch (const std::exception& e) {
            return e.what();
        }
    });
    EXPECT_EQ(problem, "");
    EXPECT_FALSE(std::filesystem::exists(path + "-shm"));
    chmod(folder.c_str(), 0755);
}

TEST(StoreOpen, OpensCommittedFixtureWithoutChangingIt) {
    TempDir dir;
    auto path = dir.file("fixture.wsdb");
    std::filesystem::copy_file(testing::dataFile("fixture.wsdb"), path);
    auto before = readFile(path);
    {
        Store store(path);
        auto runs = listRuns(store);
        ASSERT_EQ(runs.size(), 4u);
        EXPECT_EQ(runs[0].label, "llama-3.2-1b optimized");
        EXPECT_EQ(runs[3].status, RunStatus::Running);  // on another host: left alone
    }
    EXPECT_EQ(readFile(path), before);
}

// A store as version 1 wrote it: no clock event reasons or NVLink counters per
// sample, event chunks inline and without a format column, no graph nodes or
// GPU streams or NCCL calls.
std::string version1Store(const TempDir& dir) {
    auto path = dir.file("v1.wsdb");
    auto runs = testing::writeFixtureStore(path);
    {
        Store store(path);
        store.finishRun(runs.remoteRunning, RunStatus::Killed);
        compactStore(store, codec::Format::Inline);
    }
    sqliteExec(path,
               "PRAGMA journal_mode = DELETE; ALTER TABLE samples DROP COLUMN "
               "clock_event_reasons; ALTER TABLE samples DROP COLUMN nvlink_tx_bytes; ALTER "
               "TABLE samples DROP COLUMN nvlink_rx_bytes; ALTER TABLE event_chunks DROP COLUMN "
               "format; DROP TABLE "
               "graph_nodes; DROP TABLE gpu_streams; DROP TABLE collective_calls; DROP TABLE "
               "gpu_metric_chunks; DROP TABLE pc_samples; PRAGMA "
               "user_version = 1;");
    return path;
}

TEST(StoreOpen, UpgradesAVersion1StoreKeepingItsRuns) {
    TempDir dir;
    auto path = version1Store(dir);
    Store store(path);
    EXPECT_EQ(storeDb(store).queryInt("PRAGMA user_version"), schema::kCurrentVersion);
    auto runs = listRuns(store);
    ASSERT_EQ(runs.size(), 4u);
    auto samples = samplesOf(store, runs[0].id);
    ASSERT_FALSE(samples.empty());
    EXPECT_FALSE(samples[0].clockEventReasons);  // not recorded then
    EXPECT_FALSE(samples[0].nvlinkTxBytes);
    EXPECT_TRUE(samples[0].powerW);
    EXPECT_EQ(kernelsIn(store, runs[0].id).size(), 2u * testing::kFixtureKernelsPerStream);
    EXPECT_TRUE(graphNodesOf(store, runs[0].id).empty());  // version 4's table is there
}

TEST(StoreOpen, ReadOnlyOlderStoreIsRefusedUntouched) {
    TempDir dir;
    auto path = version1Store(dir);
    auto before = readFile(path);
    Store::Options options;
    options.readOnly = true;
    try {
        Store store(path, options);
        FAIL() << "an old read-only store opened";
    } catch (const StoreError& e) {
        EXPECT_NE(std::string(e.what()).find("needs an upgrade from schema version 1"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_EQ(readFile(path), before);
}

TEST(StoreOpen, ReadOnlyFileOpensForReadingAndRefusesWrites) {
    TempDir dir;
    auto folder = dir.file("ro");
    auto path = readOnlyFixtureStore(folder);
    auto problem = testing::runUnprivileged([&]() -> std::string {
        Store store(path);
        if (!store.readOnly()) return "opened for writing";
        if (listRuns(store).size() != 4u) return "runs missing";
        try {
            store.deleteRun(1);
            return "deleting from a read-only store succeeded";
        } catch (const StoreError& e) {
            if (e.kind() != StoreError::Kind::ReadOnly) return e.what();
            if (std::string(e.what()).find("read-only") == std::string::npos) return e.what();
        }
        return "";
    });
    EXPECT_EQ(problem, "");
    chmod(folder.c_str(), 0755);
}

TEST(StoreOpen, ExplicitReadOnlyNeverWrites) {
    TempDir dir;
    auto path = dir.file("runs.wsdb");
    testing::writeFixtureStore(path);
    Store::Options options;
    options.readOnly = true;
    Store store(path, options);
    EXPECT_THROW(store.beginRun({}), StoreError);
    EXPECT_THROW(compactStore(store), StoreError);
}

TEST(StoreOpen, LockedStoreGivesSpecificError) {
    TempDir dir;
    auto path = dir.file("locked.wsdb");
    { Store store(path); }
    sqlite3* holder = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &holder), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(holder, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
    Store::Options options;
    options.busyTimeoutMs = 50;
    Store store(path, options);
    try {
        store.beginRun({});
        FAIL() << "writing to a locked store succeeded";
    } catch (const StoreError& e) {
        EXPECT_EQ(e.kind(), StoreError::Kind::Locked);
        EXPECT_NE(std::string(e.what()).find("locked by another process"), std::string::npos);
    }
    sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(holder);
    EXPECT_NO_THROW(store.beginRun({}));
}

TEST(StoreOpen, MissingStoreForReadingIsAnError) {
    Store::Options options;
    options.readOnly = true;
    EXPECT_THROW(Store("/nonexistent/folder/runs.wsdb", options), StoreError);
}

}  // namespace
}  // namespace ws
