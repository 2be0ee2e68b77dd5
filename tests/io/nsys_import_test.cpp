// An Nsight Systems SQLite export becomes a run holding what nsys recorded.
#include <gtest/gtest.h>

#include <map>

#include "analysis/kernel_summary.h"
#include "io/nsys_import.h"
#include "io/trace_import.h"
#include "store/run_queries.h"
#include "store/sqlite_db.h"
#include "store/store.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

using testing::TempDir;

// The documented-schema fixture, with `edit` (SQL) applied after it.
std::string makeExport(const TempDir& dir, const std::string& edit = "") {
    auto path = dir.file("report.sqlite");
    sql::Db db(path, sql::Db::Mode::ReadWriteCreate);
    db.exec(testing::readFile(testing::dataFile("nsys_export.sql")));
    if (!edit.empty()) db.exec(edit);
    return path;
}

std::string importFailure(Store& store, const std::string& path) {
    try {
        importTrace(store, readTraceFile(path), "");
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "(imported)";
}

TEST(NsysImport, StoresEveryRecordAsNsysWroteIt) {
    TempDir dir;
    auto path = makeExport(dir);
    Store store(dir.file("runs.wsdb"));
    auto file = readTraceFile(path);
    EXPECT_EQ(file.format, TraceFormat::NsysSqlite);
    auto result = importTrace(store, file, "");
    EXPECT_EQ(result.format, "Nsight Systems SQLite export (schema 3.11.1)");
    EXPECT_EQ(result.kernels, 5);

    auto run = requireRun(store, result.run);
    EXPECT_EQ(run.label, "nsys report.sqlite");
    EXPECT_EQ(run.workloadKind, "imported");
    EXPECT_EQ(run.status, RunStatus::Ok);
    EXPECT_EQ(run.startedAtNs, 1796243400000000000);

    auto device = runDevice(store, result.run);
    ASSERT_TRUE(device);
    EXPECT_EQ(device->name, "NVIDIA H200");
    EXPECT_EQ(device->ccMajor, 9);
    EXPECT_EQ(device->smCount, 132);
    EXPECT_EQ(device->smClockKhz, 1980000);
    EXPECT_EQ(device->smemPerBlockOptin, 232448);
    EXPECT_EQ(device->maxWarpsPerSm, 64);

    auto kernels = kernelsIn(store, result.run);
    ASSERT_EQ(kernels.size(), 5u);
    const auto& k = kernels[0];
    EXPECT_EQ(k.name, "_Z4gemmPK13__nv_bfloat16S1_PS_iii");  // mangled, as CUPTI reports it
    EXPECT_EQ(k.startNs, 2000000);
    EXPECT_EQ(k.endNs, 2050000);
    EXPECT_EQ(k.streamId, 7u);
    EXPECT_EQ(k.correlationId, 101u);
    EXPECT_EQ(k.gridX, 16);
    EXPECT_EQ(k.gridY, 32);
    EXPECT_EQ(k.blockX, 256);
    EXPECT_EQ(k.registersPerThread, 128);
    EXPECT_EQ(k.staticSharedBytes, 32768);
    EXPECT_EQ(k.dynamicSharedBytes, 16384);
    EXPECT_EQ(k.sharedCarveoutBytes, 65536);
    int onStream13 = 0;
    for (const auto& r : kernels)
        onStream13 += r.streamId == 13;
    EXPECT_EQ(onStream13, 2);

    auto memcpys = memcpysIn(store, result.run);
    ASSERT_EQ(memcpys.size(), 2u);
    EXPECT_EQ(memcpys[0].kind, MemcpyKind::HtoD);
    EXPECT_EQ(memcpys[0].srcKind, MemoryKind::Pageable);
    EXPECT_EQ(memcpys[0].dstKind, MemoryKind::Device);
    EXPECT_EQ(memcpys[0].bytes, 4194304);
    EXPECT_EQ(memcpys[1].kind, MemcpyKind::DtoH);
    EXPECT_EQ(memcpys[1].dstKind, MemoryKind::Pinned);
    auto memsets = memsetsIn(store, result.run);
    ASSERT_EQ(memsets.size(), 1u);
    EXPECT_EQ(memsets[0].bytes, 65536);
    EXPECT_EQ(memsets[0].memoryKind, MemoryKind::Device);

    auto calls = apiCallsIn(store, result.run);
    ASSERT_EQ(calls.size(), 8u);
    EXPECT_EQ(calls[2].name, "cudaLaunchKernel_v7000");
    EXPECT_EQ(calls[2].correlationId, 101u);
    EXPECT_EQ(calls[2].processId, 4242u);
    EXPECT_EQ(calls[2].threadId, 4243u);

    auto ranges = rangesIn(store, result.run);
    auto find = [&](const std::string& name) {
        for (const auto& r : ranges)
            if (r.name == name) return r;
        ADD_FAILURE() << "no range " << name;
        return RangeRecord{};
    };
    EXPECT_EQ(find("forward").domain, "llm");
    EXPECT_EQ(find("forward").depth, 0);
    EXPECT_EQ(find("forward").kind, RangeKind::PushPop);
    EXPECT_EQ(find("layer 0").depth, 1);  // text from StringIds through textId
    EXPECT_EQ(find("ws.token:0").kind, RangeKind::Mark);
    EXPECT_EQ(find("ws.request:0:prompt=16").kind, RangeKind::StartEnd);

    // The token convention gives requests and token times; marks give properties.
    auto requests = requestsOf(store, result.run);
    ASSERT_EQ(requests.size(), 1u);
    EXPECT_EQ(requests[0].promptTokens, 16);
    EXPECT_EQ(requests[0].outputTokens, 3);
    EXPECT_EQ(tokensOf(store, result.run).size(), 3u);
    EXPECT_EQ(runProperties(store, result.run)["model"], "tiny-llama");

    // The analysis reads it like a recorded run.
    auto summary = summarizeRun(store, result.run);
    ASSERT_FALSE(summary.kernels.empty());
    EXPECT_EQ(summary.kernels[0].name, "gemm");
    EXPECT_EQ(summary.kernels[0].time.count, 3);
}

// nsys traces every process of a program, and each numbers its streams and
// correlation ids alike: a worker (pid 4300) that launches on its stream 7
// with id 101, as the fixture's process 4242 does, keeps a lane of its own
// and its kernel is credited to its own launch and range.
TEST(NsysImport, ProcessesNumberingAlikeAreKeptApart) {
    TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto plain = importTrace(store, readTraceFile(makeExport(dir)), "");
    TempDir other;
    auto path = makeExport(
        other,
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (5200000, 5250000, 0, 1, NULL, 7, 101, "
        "72142028800, 2, 3, 1, 0, 0, 128, 16, 32, 1, 256, 1, 1, 32768, 16384, 0, 0, 1, 65536, "
        "NULL, 0);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES "
        "(5100000, 5105000, 1, 72142033101, 101, 7, 0, NULL);"
        "INSERT INTO NVTX_EVENTS VALUES (5000000, 6000000, 59, NULL, NULL, NULL, 'worker', "
        "72142033101, NULL, NULL, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);");
    auto two = importTrace(store, readTraceFile(path), "");
    auto kernels = kernelsIn(store, two.run);
    ASSERT_EQ(kernels.size(), 6u);
    const auto& worker = kernels.back();
    ASSERT_EQ(worker.startNs, 5200000);
    EXPECT_NE(worker.streamId, 7u);
    EXPECT_NE(worker.correlationId, 101u);
    EXPECT_EQ(kernels.front().streamId, 7u);  // the first process keeps its numbers
    EXPECT_EQ(kernels.front().correlationId, 101u);
    std::map<std::uint32_t, std::uint32_t> processOfStream;
    for (const auto& s : gpuStreamsOf(store, two.run))
        processOfStream[s.streamId] = s.processId;
    EXPECT_EQ(processOfStream[worker.streamId], 4300u);
    EXPECT_EQ(processOfStream[7], 4242u);

    auto rangeKernels = [&](RunId run, const std::string& name) {
        const auto summary = summarizeRun(store, run);
        for (const auto& r : summary.ranges)
            if (r.name == name) return r.inclusiveKernels;
        return std::int64_t(-1);
    };
    EXPECT_EQ(rangeKernels(two.run, "worker"), 1);
    EXPECT_EQ(rangeKernels(two.run, "forward"), rangeKernels(plain.run, "forward"));
}

TEST(NsysImport, NewerSchemaIsRefusedAndNothingIsAdded) {
    TempDir dir;
    auto path = makeExport(
        dir, "UPDATE META_DATA_EXPORT SET value = '4.0.0' WHERE name = 'EXPORT_SCHEMA_VERSION'");
    Store store(dir.file("runs.wsdb"));
    auto error = importFailure(store, path);
    EXPECT_NE(error.find("report.sqlite: EXPORT_SCHEMA_VERSION: is 4.0.0; this Warpscope reads "
                         "nsys export schema 3.x; nothing was imported"),
              std::string::npos)
        << error;
    EXPECT_TRUE(listRuns(store).empty());
}

TEST(NsysImport, MissingColumnIsNamedAndNothingIsAdded) {
    TempDir dir;
    auto path = makeExport(dir, "ALTER TABLE CUPTI_ACTIVITY_KIND_MEMCPY DROP COLUMN bytes");
    Store store(dir.file("runs.wsdb"));
    auto error = importFailure(store, path);
    EXPECT_NE(error.find("CUPTI_ACTIVITY_KIND_MEMCPY.bytes: column missing"), std::string::npos)
        << error;
    EXPECT_TRUE(listRuns(store).empty());
}

TEST(NsysImport, ForeignSqliteFilesAreNamed) {
    TempDir dir;
    Store store(dir.file("runs.wsdb"));
    {
        sql::Db other(dir.file("other.sqlite"), sql::Db::Mode::ReadWriteCreate);
        other.exec("CREATE TABLE t (x INTEGER)");
    }
    EXPECT_NE(importFailure(store, dir.file("other.sqlite"))
                  .find("META_DATA_EXPORT: table missing: not an Nsight Systems SQLite export"),
              std::string::npos);
    { Store another(dir.file("another.wsdb")); }
    EXPECT_NE(importFailure(store, dir.file("another.wsdb")).find("is a Warpscope store"),
              std::string::npos);
    auto noCuda = makeExport(dir,
                             "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; DROP TABLE "
                             "CUPTI_ACTIVITY_KIND_MEMCPY; DROP TABLE CUPTI_ACTIVITY_KIND_MEMSET; "
                             "DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME; DROP TABLE NVTX_EVENTS");
    EXPECT_NE(importFailure(store, noCuda).find("captured without --trace=cuda,nvtx"),
              std::string::npos);
    EXPECT_TRUE(listRuns(store).empty());
}

TEST(TraceImport, UnknownFilesAreRefusedBeforeAnyStoreIsTouched) {
    TempDir dir;
    testing::writeFile(dir.file("notes.json"), R"({"traceEvents": [], "hello": 1})");
    testing::writeFile(dir.file("notes.txt"), "just text");
    for (const char* name : {"notes.json", "notes.txt"}) {
        try {
            readTraceFile(dir.file(name));
            ADD_FAILURE() << name << " was recognised";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("not a format Warpscope imports"),
                      std::string::npos);
        }
    }
    EXPECT_THROW(readTraceFile(dir.file("missing.json")), std::runtime_error);
}

}  // namespace
}  // namespace ws
