// warpscope-cli bundle and import of a bundle: every table of a run arrives
// equal, under a new id, or nothing arrives at all.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "app/cli_fixture.h"
#include "model/device_fields.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "store_db.h"

namespace ws {
namespace {

using BundleTest = CliFixture;

nlohmann::json exported(const std::string& db, RunId run, const std::string& file) {
    auto r = cli({"export", std::to_string(run), "--db", db, "--format", "json", "-o", file});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    auto j = nlohmann::json::parse(testing::readFile(file));
    j.erase("id");
    return j;
}

// What `export --format json` leaves out, read row for row.
std::vector<std::string> otherRows(const std::string& db, RunId run) {
    Store store(db);
    std::vector<std::string> rows;
    sql::Statement ov(
        storeDb(store),
        "SELECT start_ns, end_ns, kind FROM overheads WHERE run_id = ?1 ORDER BY rowid");
    ov.bind(1, run);
    while (ov.step())
        rows.push_back("overhead " + std::to_string(ov.int64(0)) + " " +
                       std::to_string(ov.int64(1)) + " " + ov.text(2));
    for (const auto& n : graphNodesOf(store, run))
        rows.push_back("graph node " + std::to_string(n.nodeId) + " " +
                       std::to_string(n.originalNodeId) + " " + std::to_string(n.graphId) + " " +
                       std::to_string(n.processId) + " " + std::to_string(n.threadId) + " " +
                       std::to_string(n.timeNs) + " " + std::to_string(n.nodeType));
    for (const auto& g : gpuStreamsOf(store, run))
        rows.push_back("gpu stream " + std::to_string(g.deviceId) + " " +
                       std::to_string(g.streamId) + " " + std::to_string(g.processId) + " " +
                       std::to_string(g.cudaStreamId));
    for (const auto& q : qualityOf(store, run))
        rows.push_back("quality " + q.check + " " + q.referenceVariant + " " +
                       std::to_string(q.tokenAgreement) + " " + std::to_string(q.maxLogitError));
    sql::Statement w(storeDb(store),
                     "SELECT writer_pid, writer_start_ticks, heartbeat_at, status, log, "
                     "warpscope_version FROM runs WHERE id = ?1");
    w.bind(1, run);
    EXPECT_TRUE(w.step());
    for (int c = 0; c < 6; ++c)
        rows.push_back("run column " + std::to_string(c) + " " + w.text(c));
    auto device = runDevice(store, run);
    EXPECT_TRUE(device.has_value());
    for (const auto& f : kDeviceFields) {
        std::string v = f.text    ? (*device).*f.text
                        : f.int32 ? std::to_string((*device).*f.int32)
                                  : std::to_string((*device).*f.int64);
        rows.push_back(std::string("device ") + f.column + " " + v);
    }
    return rows;
}

std::int64_t count(const std::string& db, const std::string& sql) {
    Store store(db);
    return storeDb(store).queryInt(sql);
}

TEST_F(BundleTest, EveryTableArrivesEqualUnderANewId) {
    {
        // Counter values and graph nodes: the fixture's decoder run has none.
        Store store(db);
        StoreWriter w(store, runs.decoderOk);
        w.add(KernelMetricRecord{1000, "dram__bytes_read.sum", 1.5e6});
        w.add(KernelMetricRecord{1001, "sm__throughput.avg.pct_of_peak_sustained_elapsed", 71.5});
        w.add(GraphNodeRecord{0xffffffff00000007ull, 0, 1, 4242, 4242, 1'000, 0});
        w.add(GraphNodeRecord{8, 0xffffffff00000007ull, 2, 4242, 4242, 2'000, 0});
        w.add(GpuStreamRecord{0, (1u << 24) + 7, 4343, 7});
        w.flush();
    }
    auto bundle = dir.file("run.wsbundle");
    auto b = cli({"bundle", std::to_string(runs.decoderOk), "--db", db, "-o", bundle});
    ASSERT_EQ(b.exitCode, 0) << b.err;

    // Into a new store, and into the store it came from (new ids there).
    auto other = dir.file("other.wsdb");
    for (const auto& target : {other, db}) {
        auto i = cli({"import", bundle, "--db", target});
        ASSERT_EQ(i.exitCode, 0) << i.err;
        auto listed = nlohmann::json::parse(cli({"ls", "--json", "--db", target}).out);
        RunId copy = listed.back()["id"].get<RunId>();
        EXPECT_NE(i.out.find("as run " + std::to_string(copy)), std::string::npos) << i.out;
        if (target == db) {
            EXPECT_GT(copy, runs.remoteRunning);
        }
        auto original = exported(db, runs.decoderOk, dir.file("a.json"));
        auto copied = exported(target, copy, dir.file("b.json"));
        EXPECT_EQ(original, copied) << target;
        EXPECT_FALSE(original["kernels"].empty());
        EXPECT_EQ(original["metrics"].size(), 2u);
        EXPECT_EQ(otherRows(db, runs.decoderOk), otherRows(target, copy)) << target;
        EXPECT_EQ(count(target,
                        "SELECT count(*) FROM graph_nodes WHERE run_id = " + std::to_string(copy)),
                  2);
    }
    // The bundle holds only the strings its run uses.
    EXPECT_LT(count(bundle, "SELECT count(*) FROM strings"),
              count(db, "SELECT count(*) FROM strings"));
}

TEST_F(BundleTest, ToStandardOutput) {
    auto r = testing::runProcess({"/bin/sh", "-c",
                                  std::string(WARPSCOPE_CLI_PATH) + " bundle " +
                                      std::to_string(runs.kernelFailed) + " --db '" + db + "' > '" +
                                      dir.file("piped.wsbundle") + "'"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto i = cli({"import", dir.file("piped.wsbundle"), "--db", dir.file("new.wsdb")});
    ASSERT_EQ(i.exitCode, 0) << i.err;
    auto listed = nlohmann::json::parse(cli({"ls", "--json", "--db", dir.file("new.wsdb")}).out);
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0]["status"], "failed");
    EXPECT_EQ(listed[0]["exit_code"], 3);
}

TEST_F(BundleTest, RunStillRecordingIsRefused) {
    auto r = cli(
        {"bundle", std::to_string(runs.remoteRunning), "--db", db, "-o", dir.file("x.wsbundle")});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("still being recorded"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("x.wsbundle")));
}

TEST_F(BundleTest, NewerBundleRefusedUntouched) {
    auto bundle = dir.file("run.wsbundle");
    ASSERT_EQ(cli({"bundle", "1", "--db", db, "-o", bundle}).exitCode, 0);
    {
        sql::Db raw(bundle, sql::Db::Mode::ReadWrite);
        raw.exec("UPDATE bundle SET version = 99, warpscope_version = '9.0.0'");
    }
    auto before = testing::readFile(bundle);
    auto target = dir.file("target.wsdb");
    auto r = cli({"import", bundle, "--db", target});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("newer Warpscope (9.0.0: run bundle version 99"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("nothing was imported"), std::string::npos) << r.err;
    EXPECT_EQ(testing::readFile(bundle), before);
    EXPECT_FALSE(std::filesystem::exists(target));  // no store made for it
}

TEST_F(BundleTest, ABundleWithADamagedStampIsCalledADamagedBundle) {
    auto bundle = dir.file("run.wsbundle");
    ASSERT_EQ(cli({"bundle", "1", "--db", db, "-o", bundle}).exitCode, 0);
    {
        sql::Db raw(bundle, sql::Db::Mode::ReadWrite);
        raw.exec("ALTER TABLE bundle DROP COLUMN created_at");
    }
    auto target = dir.file("target.wsdb");
    auto r = cli({"import", bundle, "--db", target});
    EXPECT_EQ(r.exitCode, 1);
    // A bundle, not a trace in an unknown format.
    EXPECT_NE(r.err.find("a damaged run bundle"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("nothing was imported"), std::string::npos) << r.err;
}

TEST_F(BundleTest, DamagedBundleLeavesNothingHalfImported) {
    // The target holds another run (other strings) before.
    auto target = dir.file("target.wsdb");
    auto first = dir.file("first.wsbundle");
    ASSERT_EQ(cli({"bundle", std::to_string(runs.kernelFailed), "--db", db, "-o", first}).exitCode,
              0);
    ASSERT_EQ(cli({"import", first, "--db", target}).exitCode, 0);
    auto bundle = dir.file("run.wsbundle");
    ASSERT_EQ(cli({"bundle", std::to_string(runs.decoderOk), "--db", db, "-o", bundle}).exitCode,
              0);
    {
        // Its last chunk cannot be decoded: the run row, its other tables,
        // earlier chunks and their new strings are written when it fails.
        sql::Db raw(bundle, sql::Db::Mode::ReadWrite);
        raw.exec(
            "UPDATE event_chunks SET data = x'ffffffff' WHERE rowid = (SELECT max(rowid) "
            "FROM event_chunks)");
    }
    auto before = [&] {
        return std::vector<std::int64_t>{count(target, "SELECT count(*) FROM runs"),
                                         count(target, "SELECT count(*) FROM event_chunks"),
                                         count(target, "SELECT count(*) FROM strings"),
                                         count(target, "SELECT count(*) FROM tokens"),
                                         count(target, "SELECT count(*) FROM workloads"),
                                         count(target, "SELECT count(*) FROM run_properties")};
    };
    auto counts = before();
    auto r = cli({"import", bundle, "--db", target});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find(bundle + ": "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("nothing was imported"), std::string::npos) << r.err;
    EXPECT_EQ(before(), counts);
}

// A bundle is checked as every other way in is (issue 45: bundles once
// stored runs dated 2262, INT64 token times and invalid UTF-8 labels, after
// which `ls` under UBSan aborted for the whole store): out-of-range numbers
// refuse it untouched, naming the row and field; text is stored repaired.
TEST_F(BundleTest, HostileValuesAreRefusedOrRepairedAsByEveryImporter) {
    auto bundle = dir.file("run.wsbundle");
    ASSERT_EQ(cli({"bundle", std::to_string(runs.decoderOk), "--db", db, "-o", bundle}).exitCode,
              0);
    const std::string original = testing::readFile(bundle);
    struct Case {
        const char* sql;
        const char* says;
    };
    const Case cases[] = {
        {"UPDATE runs SET started_at = 9223372036854775807", "the run: start"},
        {"UPDATE runs SET started_at = -1", "the run: start -1 ns"},
        {"UPDATE runs SET ended_at = started_at - 5", "the run: ends before it starts"},
        {"UPDATE runs SET ended_at = started_at + 400 * 86400 * 1000000000", "the run: lasts"},
        {"UPDATE runs SET dropped_records = -2", "dropped_records -2 is negative"},
        {"INSERT INTO tokens (run_id, request_id, token_index, time_ns) "
         "VALUES ((SELECT id FROM runs), 7, 0, -9223372036854775808)",
         "a token of request 7: time_ns -9223372036854775808 ns"},
        {"INSERT INTO requests (run_id, request_id, start_ns, end_ns, prompt_tokens, "
         "output_tokens) VALUES ((SELECT id FROM runs), 9, 1000, 10, 1, 1)",
         "request 9: ends before it starts"},
    };
    auto target = dir.file("target.wsdb");
    for (const auto& c : cases) {
        SCOPED_TRACE(c.sql);
        testing::writeFile(bundle, original);
        {
            sql::Db raw(bundle, sql::Db::Mode::ReadWrite);
            raw.exec(c.sql);
        }
        const std::string tampered = testing::readFile(bundle);
        auto r = cli({"import", bundle, "--db", target});
        EXPECT_EQ(r.exitCode, 1);
        EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("nothing was imported"), std::string::npos) << r.err;
        EXPECT_EQ(testing::readFile(bundle), tampered);
        EXPECT_EQ(count(target, "SELECT count(*) FROM runs"), 0);
    }
    // Invalid UTF-8 in the label, a property and a metric name: imported, repaired.
    testing::writeFile(bundle, original);
    {
        sql::Db raw(bundle, sql::Db::Mode::ReadWrite);
        raw.exec("UPDATE runs SET label = CAST(x'41ff42' AS TEXT)");
        raw.exec(
            "INSERT INTO run_properties (run_id, key, value) "
            "VALUES ((SELECT id FROM runs), 'hostile', CAST(x'c0' AS TEXT))");
    }
    auto r = cli({"import", bundle, "--db", target});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto ls = cli({"ls", "--db", target, "--json"});
    ASSERT_EQ(ls.exitCode, 0) << ls.err;
    auto listed = nlohmann::json::parse(ls.out);
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0]["label"], "A\uFFFDB");
    EXPECT_EQ(count(target,
                    "SELECT count(*) FROM run_properties WHERE key = 'hostile' AND "
                    "value = CAST(x'efbfbd' AS TEXT)"),
              1);
}

TEST_F(BundleTest, NotABundle) {
    auto store = cli({"import", db, "--db", dir.file("t.wsdb")});
    EXPECT_NE(store.exitCode, 0);
    auto r = cli({"bundle", "99", "--db", db, "-o", dir.file("x")});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("no run with id 99"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ws
