// One rule for every way a run enters a store (issue 45): the same hostile
// times — negative, INT64 extremes, a second past 2100-01-01
// (model/value_limits.h) — are refused by the capture stream, a Kineto trace,
// an nsys export, a vLLM result and a run bundle (what `pull` imports), each
// naming where, and none leaves a run behind.
#include <gtest/gtest.h>

#include <climits>
#include <cstdio>
#include <string>
#include <vector>

#include "io/run_bundle.h"
#include "io/trace_import.h"
#include "model/value_limits.h"
#include "store/sqlite_db.h"
#include "store/store.h"
#include "store_db.h"
#include "support/temp_dir.h"
#include "wire/frames.h"

namespace ws {
namespace {

using testing::TempDir;

constexpr std::int64_t kHostileNs[] = {-1, INT64_MIN, INT64_MAX,
                                       limits::kLatestTimeNs + 1'000'000'000};

// "%.17g" of a number, as a JSON writer would print it.
std::string number(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

// The error importing `path` into a fresh store ("" when it imported), and
// whether any run was left.
std::pair<std::string, std::int64_t> imported(const std::string& path) {
    TempDir dir;
    Store store(dir.file("runs.wsdb"));
    std::string error;
    try {
        importTrace(store, readTraceFile(path), "");
    } catch (const std::runtime_error& e) {
        error = e.what();
    }
    return {error, storeDb(store).queryInt("SELECT count(*) FROM runs")};
}

TEST(EveryEntry, TheSameOutOfRangeTimeIsRefusedByEachWayIn) {
    TempDir dir;
    // A run to bundle: one finished run, nothing else.
    const std::string source = dir.file("source.wsdb");
    const std::string bundle = dir.file("run.wsbundle");
    {
        Store store(source);
        NewRun run;
        run.label = "bundled";
        RunId id = store.beginRun(run);
        store.finishRun(id, RunStatus::Ok);
        writeRunBundle(store, id, bundle);
    }
    const std::string pristine = testing::readFile(bundle);

    for (const std::int64_t t : kHostileNs) {
        SCOPED_TRACE("time " + std::to_string(t) + " ns");

        // The capture stream: the record is rejected with its reason.
        {
            wire::Encoder encoder;
            KernelRecord k;
            k.name = "k";
            k.startNs = t;
            k.endNs = t == INT64_MAX ? t : t + 1;
            encoder.add(k);
            int kernels = 0;
            std::vector<std::string> rejected;
            wire::Sink sink;
            sink.kernel = [&](const KernelRecord&) { ++kernels; };
            sink.rejected = [&](const std::string& why) { rejected.push_back(why); };
            wire::Decoder decoder(sink);
            decoder.feed(encoder.bytes());
            EXPECT_EQ(kernels, 0);
            ASSERT_EQ(rejected.size(), 1u);
            EXPECT_NE(rejected[0].find("outside 0 .. 2100-01-01"), std::string::npos)
                << rejected[0];
        }
        // A Kineto trace (microseconds).
        {
            auto path = dir.file("trace.json");
            testing::writeFile(
                path, R"({"schemaVersion": 1, "traceEvents": [{"ph": "X", "cat": "kernel", )"
                      R"("name": "k", "pid": 0, "tid": 7, "ts": )" +
                          number(static_cast<double>(t) / 1e3) + R"(, "dur": 1}]})");
            auto [error, runs] = imported(path);
            EXPECT_NE(error.find("traceEvents[0] (k).ts"), std::string::npos) << error;
            EXPECT_EQ(runs, 0);
        }
        // An nsys SQLite export (nanoseconds).
        {
            auto path = dir.file("report.sqlite");
            std::remove(path.c_str());
            {
                sql::Db db(path, sql::Db::Mode::ReadWriteCreate);
                db.exec(testing::readFile(testing::dataFile("nsys_export.sql")));
                db.exec("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = " + std::to_string(t));
            }
            auto [error, runs] = imported(path);
            EXPECT_NE(error.find("CUPTI_ACTIVITY_KIND_KERNEL"), std::string::npos) << error;
            EXPECT_EQ(runs, 0);
        }
        // A vLLM `bench serve` result (seconds): the same amount as a TTFT.
        {
            auto path = dir.file("result.json");
            testing::writeFile(path, R"({"duration": 2.5, "ttfts": [)" +
                                         number(static_cast<double>(t) / 1e9) +
                                         R"(], "itls": [[0.01]], "output_lens": [2]})");
            auto [error, runs] = imported(path);
            EXPECT_NE(error.find("ttfts[0]"), std::string::npos) << error;
            EXPECT_EQ(runs, 0);
        }
        // A run bundle (and `pull`, which imports one): a token at that time.
        {
            testing::writeFile(bundle, pristine);
            {
                sql::Db raw(bundle, sql::Db::Mode::ReadWrite);
                raw.exec(
                    "INSERT INTO tokens (run_id, request_id, token_index, time_ns) VALUES "
                    "((SELECT id FROM runs), 7, 0, " +
                    std::to_string(t) + ")");
            }
            Store target(dir.file("target.wsdb"));
            std::string error;
            try {
                importRunBundle(target, bundle, "run.wsbundle");
            } catch (const BundleError& e) {
                error = e.what();
            }
            EXPECT_NE(error.find("a token of request 7"), std::string::npos) << error;
            EXPECT_EQ(storeDb(target).queryInt("SELECT count(*) FROM runs"), 0);
        }
    }
}

}  // namespace
}  // namespace ws
