// The Kineto importer streams: a file read block by block (plain or
// .json.gz) becomes the same run as the text in memory, reports the bytes it
// read, and a file damaged anywhere leaves nothing in the store.
#include <gtest/gtest.h>
#include <zlib.h>

#include "io/kineto_import.h"
#include "io/trace_import.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "store_db.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

using testing::TempDir;

void writeGzip(const std::string& path, const std::string& text) {
    gzFile out = gzopen(path.c_str(), "wb");
    ASSERT_NE(out, nullptr);
    ASSERT_EQ(gzwrite(out, text.data(), static_cast<unsigned>(text.size())),
              static_cast<int>(text.size()));
    ASSERT_EQ(gzclose(out), Z_OK);
}

struct Summary {
    std::int64_t kernels, memcpys, memsets, apiCalls, ranges, overheads, startedAt;
    std::string device;
    std::size_t requests;
    bool operator==(const Summary&) const = default;
};

Summary summarize(Store& store, RunId run) {
    auto agg = runAggregates(store, run);
    auto device = runDevice(store, run);
    return {agg.kernelCount,
            agg.memcpyCount,
            agg.memsetCount,
            agg.apiCallCount,
            agg.rangeCount,
            agg.overheadCount,
            requireRun(store, run).startedAtNs,
            device ? device->name + " " + device->cudaVersion : "",
            requestsOf(store, run).size()};
}

std::int64_t count(Store& store, const char* table) {
    return storeDb(store).queryInt(std::string("SELECT count(*) FROM ") + table);
}

TEST(KinetoStream, FilePlainAndGzipGiveTheRunTheTextGives) {
    TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto path = testing::dataFile("kineto_llama_h200.json");
    auto text = testing::readFile(path);
    auto fromText = summarize(store, importKinetoTrace(store, path, text, "").run);

    std::int64_t lastRead = 0, fileBytes = 0;
    auto fromFile =
        importKinetoTraceFile(store, path, "", [&](std::int64_t done, std::int64_t total) {
            EXPECT_GE(done, lastRead);
            lastRead = done;
            fileBytes = total;
        });
    EXPECT_TRUE(summarize(store, fromFile.run) == fromText);
    EXPECT_EQ(lastRead, static_cast<std::int64_t>(text.size()));
    EXPECT_EQ(fileBytes, static_cast<std::int64_t>(text.size()));

    auto gz = dir.file("trace.json.gz");
    writeGzip(gz, text);
    auto file = readTraceFile(gz);
    ASSERT_EQ(file.format, TraceFormat::KinetoTrace);
    EXPECT_TRUE(file.text.empty());  // streamed at import, never held
    auto fromGzip = importTrace(store, file, "");
    EXPECT_TRUE(summarize(store, fromGzip.run) == fromText);
    EXPECT_GT(fromText.kernels, 0);
    EXPECT_EQ(fromText.requests, 1u);
}

TEST(KinetoStream, ConcatenatedGzipMembersAreOneTrace) {
    TempDir dir;
    auto text = testing::readFile(testing::dataFile("kineto_llama_h200.json"));
    auto half = text.size() / 2;
    auto a = dir.file("a.gz"), b = dir.file("b.gz"), both = dir.file("trace.json.gz");
    writeGzip(a, text.substr(0, half));
    writeGzip(b, text.substr(half));
    testing::writeFile(both, testing::readFile(a) + testing::readFile(b));
    Store store(dir.file("runs.wsdb"));
    auto whole = summarize(store, importKinetoTrace(store, "t.json", text, "").run);
    auto joined = importTrace(store, readTraceFile(both), "");
    EXPECT_TRUE(summarize(store, joined.run) == whole);
}

TEST(KinetoStream, DamageAnywhereLeavesNothing) {
    TempDir dir;
    auto text = testing::readFile(testing::dataFile("kineto_llama_h200.json"));
    struct Case {
        std::string name, content, field;
        bool gzip;
    } cases[] = {
        {"cut.json", text.substr(0, text.size() * 3 / 4), "(file): not valid JSON", false},
        {"cut.json.gz", text.substr(0, text.size() - 10), "(file): not valid JSON", true},
        {"late.json", text.substr(0, text.size() - 2) + ", 1}", "(file): not valid JSON", false},
        {"bad-event.json.gz",
         text.substr(0, text.rfind(']')) +
             R"(, {"ph": "X", "cat": "kernel", "ts": -1, "dur": 1}]})",
         "traceEvents[7290].ts", true},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        auto path = dir.file(c.name);
        if (c.gzip)
            writeGzip(path, c.content);
        else
            testing::writeFile(path, c.content);
        Store store(dir.file(c.name + ".wsdb"));
        try {
            if (c.gzip)
                importTrace(store, readTraceFile(path), "");
            else
                importKinetoTraceFile(store, path, "");
            ADD_FAILURE() << "imported";
        } catch (const std::runtime_error& e) {
            std::string what = e.what();
            EXPECT_NE(what.find(path + ": " + c.field), std::string::npos) << what;
            EXPECT_NE(what.find("nothing was imported"), std::string::npos) << what;
        }
        EXPECT_EQ(count(store, "runs"), 0);
        EXPECT_EQ(count(store, "devices"), 0);
        EXPECT_EQ(count(store, "event_chunks"), 0);
        EXPECT_EQ(count(store, "strings"), 0);
    }
}

TEST(KinetoStream, TruncatedOrForeignGzipIsNamed) {
    TempDir dir;
    auto text = testing::readFile(testing::dataFile("kineto_llama_h200.json"));
    auto gz = dir.file("trace.json.gz");
    writeGzip(gz, text);
    auto bytes = testing::readFile(gz);
    auto cut = dir.file("cut.json.gz");
    testing::writeFile(cut, bytes.substr(0, bytes.size() / 2));
    Store store(dir.file("runs.wsdb"));
    try {
        importKinetoTraceFile(store, cut, "");
        ADD_FAILURE() << "a truncated gzip was imported";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("gzip stream is truncated"), std::string::npos)
            << e.what();
    }
    EXPECT_EQ(count(store, "runs"), 0);
    auto other = dir.file("result.json.gz");
    writeGzip(other, R"({"duration": 1, "ttfts": [0.1], "itls": [[0.01]], "output_lens": [2]})");
    EXPECT_THROW(readTraceFile(other), std::runtime_error);
}

TEST(KinetoStream, MarksAfterTheEventsAndDeepNestingAreHandled) {
    TempDir dir;
    std::string deep = std::string(50'000, '[') + std::string(50'000, ']');
    std::string text = R"({"traceEvents": [
        {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10.0, "dur": 1.0,
         "args": {"grid": [1, 1, 1], "block": [64, 1, 1], "deep": )" +
                       deep + R"(}}], "extra": )" + deep +
                       R"(, "deviceProperties": [{"id": 0, "name": "GPU", "warpSize": 32}]})";
    auto path = dir.file("trace.json");
    testing::writeFile(path, text);
    ASSERT_TRUE(isKinetoTraceFile(path));
    Store store(dir.file("runs.wsdb"));
    auto result = importKinetoTraceFile(store, path, "");
    EXPECT_EQ(result.kernels, 1);
    auto device = runDevice(store, result.run);
    ASSERT_TRUE(device);
    EXPECT_EQ(device->name, "GPU");
    EXPECT_FALSE(isKinetoTraceFile(dir.file("missing.json")));
}

}  // namespace
}  // namespace ws
