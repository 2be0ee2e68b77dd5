// Event chunk formats and `compact`: every record reads back the same in
// either format, older inline chunks are rewritten smaller, and a cancelled
// compaction changes nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <map>
#include <sstream>

#include "io/run_export.h"
#include "store/compact.h"
#include "store/run_queries.h"
#include "store/schema.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "store_db.h"
#include "support/fixture_store.h"
#include "support/temp_dir.h"
#include "wire/event_codec.h"
#include "wire/varint.h"

namespace ws {
namespace {

using testing::TempDir;

// Everything a run holds, as `export --format json` writes it.
std::string everything(Store& store) {
    std::ostringstream out;
    for (const auto& run : listRuns(store))
        exportRunJson(store, run.id, out);
    return out.str();
}

// The fixture with its remote run ended: a run still recording blocks compaction.
void writeFinishedFixture(const std::string& path) {
    auto runs = testing::writeFixtureStore(path);
    Store(path).finishRun(runs.remoteRunning, RunStatus::Killed);
}

std::int64_t chunksIn(Store& store, codec::Format format) {
    return storeDb(store).queryInt("SELECT count(*) FROM event_chunks WHERE format = " +
                                   std::to_string(static_cast<int>(format)));
}

std::int64_t blobBytes(Store& store) {
    return storeDb(store).queryInt("SELECT sum(length(data)) FROM event_chunks");
}

TEST(EventCodec, EveryKindRoundTripsInBothFormats) {
    std::vector<std::string> strings = {"", "gemv<128>", "cudaLaunchKernel", "decode", "NVTX"};
    codec::Intern intern = [&](std::string_view s) {
        auto it = std::find(strings.begin(), strings.end(), s);
        if (it == strings.end()) it = strings.insert(strings.end(), std::string(s));
        return static_cast<std::int64_t>(it - strings.begin());
    };
    codec::Lookup lookup = [&](std::int64_t id) -> const std::string& { return strings.at(id); };
    std::vector<KernelRecord> kernels;
    std::vector<ApiCallRecord> calls;
    for (int i = 0; i < 50; ++i) {
        KernelRecord k;
        k.startNs = 1'000'000 + i * 7'000;
        k.endNs = k.startNs + 3'000 + i;
        k.deviceId = 1, k.streamId = 7, k.contextId = 2;
        k.correlationId = 100 + 2 * i;
        k.name = i % 3 ? "gemv<128>" : "rmsnorm";
        k.gridX = i % 3 ? 132 : 1, k.blockX = 256, k.registersPerThread = 40;
        k.dynamicSharedBytes = i % 5 == 0 ? 65536 : 0;  // a shape that changes mid-chunk
        k.graphId = 3, k.graphNodeId = 1000 + i;
        kernels.push_back(k);
        ApiCallRecord a;
        a.startNs = k.startNs - 2'000, a.endNs = a.startNs + 1'500;
        a.processId = 9, a.threadId = 4;
        a.correlationId = k.correlationId;
        a.kind = ApiKind::Runtime, a.callbackId = 211, a.name = "cudaLaunchKernel";
        a.returnValue = i == 49 ? 700 : 0;
        calls.push_back(a);
    }
    auto check = [&](const auto& records, codec::Lane lane, codec::Format format) {
        using R = typename std::decay_t<decltype(records)>::value_type;
        std::vector<const R*> pointers;
        for (const auto& r : records)
            pointers.push_back(&r);
        std::string blob;
        codec::encode(pointers, intern, blob, format);
        std::vector<R> back;
        codec::decode(blob, static_cast<std::int64_t>(records.size()), lane, lookup, back, format);
        EXPECT_EQ(back.size(), records.size());
        return std::make_pair(back, blob.size());
    };
    for (auto format : {codec::Format::Inline, codec::Format::Dictionary}) {
        auto [k, kBytes] = check(kernels, {1, 7}, format);
        for (std::size_t i = 0; i < k.size(); ++i) {
            EXPECT_EQ(k[i].startNs, kernels[i].startNs);
            EXPECT_EQ(k[i].endNs, kernels[i].endNs);
            EXPECT_EQ(k[i].correlationId, kernels[i].correlationId);
            EXPECT_EQ(k[i].name, kernels[i].name);
            EXPECT_EQ(k[i].gridX, kernels[i].gridX);
            EXPECT_EQ(k[i].dynamicSharedBytes, kernels[i].dynamicSharedBytes);
            EXPECT_EQ(k[i].graphNodeId, kernels[i].graphNodeId);
            EXPECT_EQ(k[i].streamId, 7u);
        }
        auto [a, aBytes] = check(calls, {9, 4}, format);
        for (std::size_t i = 0; i < a.size(); ++i) {
            EXPECT_EQ(a[i].startNs, calls[i].startNs);
            EXPECT_EQ(a[i].name, calls[i].name);
            EXPECT_EQ(a[i].returnValue, calls[i].returnValue);
            EXPECT_EQ(a[i].threadId, 4u);
        }
    }
    auto inlineBytes = check(kernels, {1, 7}, codec::Format::Inline).second;
    auto dictionaryBytes = check(kernels, {1, 7}, codec::Format::Dictionary).second;
    EXPECT_LT(dictionaryBytes * 2, inlineBytes);
}

TEST(EventCodec, ExtremeValuesRoundTripWithoutOverflow) {
    // The deltas between records once overflowed (undefined behaviour, caught
    // by UBSan in the asan preset) for values far apart.
    std::vector<KernelRecord> in(3);
    in[0].startNs = std::numeric_limits<std::int64_t>::min();
    in[0].endNs = std::numeric_limits<std::int64_t>::max();
    in[0].correlationId = 0xffffffffu;
    in[1].startNs = std::numeric_limits<std::int64_t>::max();
    in[1].endNs = std::numeric_limits<std::int64_t>::min();
    in[2].startNs = 0;
    in[2].endNs = 0;
    for (auto& k : in)
        k.name = "k";
    std::vector<const KernelRecord*> pointers;
    for (const auto& k : in)
        pointers.push_back(&k);
    for (auto format : {codec::Format::Inline, codec::Format::Dictionary}) {
        std::map<std::string, std::int64_t, std::less<>> ids;
        std::vector<std::string> names;
        std::string blob;
        codec::encode(
            pointers,
            [&](std::string_view s) {
                auto [it, added] = ids.emplace(std::string(s), names.size());
                if (added) names.emplace_back(s);
                return it->second;
            },
            blob, format);
        std::vector<KernelRecord> out;
        codec::decode(
            blob, 3, codec::laneOf(in[0]),
            [&](std::int64_t id) -> const std::string& { return names.at(id); }, out, format);
        ASSERT_EQ(out.size(), 3u);
        for (std::size_t i = 0; i < 3; ++i) {
            EXPECT_EQ(out[i].startNs, in[i].startNs);
            EXPECT_EQ(out[i].endNs, in[i].endNs);
            EXPECT_EQ(out[i].correlationId, in[i].correlationId);
        }
    }
}

TEST(EventCodec, ReferenceToSharedFieldsNotYetSeenIsRefused) {
    std::string blob;
    varint::Out o(blob);
    o.s(100), o.s(10), o.s(1);  // start, duration, correlation
    o.u(5);                     // refers to the fifth distinct launch of an empty chunk
    o.u(0);
    std::vector<KernelRecord> out;
    codec::Lookup lookup = [](std::int64_t) -> const std::string& {
        static const std::string none;
        return none;
    };
    EXPECT_THROW(codec::decode(blob, 1, {}, lookup, out, codec::Format::Dictionary),
                 std::runtime_error);
    EXPECT_THROW(codec::decode(blob, 1, {}, lookup, out, static_cast<codec::Format>(9)),
                 std::runtime_error);
}

TEST(StoreCompact, InlineChunksAreRewrittenSmallerAndReadTheSame) {
    TempDir dir;
    auto path = dir.file("runs.wsdb");
    writeFinishedFixture(path);
    Store store(path);
    auto original = everything(store);
    ASSERT_EQ(chunksIn(store, codec::Format::Inline), 0);  // new chunks use the dictionary

    auto toInline = compactStore(store, codec::Format::Inline);
    EXPECT_GT(toInline.chunksRewritten, 0);
    EXPECT_EQ(chunksIn(store, codec::Format::Dictionary), 0);
    auto inlineBytes = blobBytes(store);
    EXPECT_EQ(everything(store), original);

    std::vector<std::int64_t> seen;
    auto back =
        compactStore(store, codec::kWriteFormat, [&](std::int64_t done, std::int64_t total) {
            seen.push_back(done);
            EXPECT_EQ(total, toInline.chunksRewritten);
            return true;
        });
    EXPECT_EQ(back.chunksRewritten, toInline.chunksRewritten);
    EXPECT_EQ(seen.back(), back.chunksRewritten);
    EXPECT_EQ(chunksIn(store, codec::Format::Inline), 0);
    EXPECT_LT(blobBytes(store), inlineBytes);
    EXPECT_EQ(everything(store), original);
    EXPECT_GT(back.bytesBefore, 0);
    EXPECT_GT(back.bytesAfter, 0);

    // Nothing left to rewrite: a second compaction only vacuums.
    EXPECT_EQ(compactStore(store).chunksRewritten, 0);
}

TEST(StoreCompact, CancelRollsBackTheBatchInProgress) {
    TempDir dir;
    auto path = dir.file("runs.wsdb");
    writeFinishedFixture(path);
    Store store(path);
    compactStore(store, codec::Format::Inline);
    auto inlineChunks = chunksIn(store, codec::Format::Inline);
    auto bytes = blobBytes(store);
    auto result = compactStore(store, codec::kWriteFormat,
                               [](std::int64_t done, std::int64_t) { return done < 3; });
    EXPECT_TRUE(result.cancelled);
    EXPECT_EQ(result.chunksRewritten, 0);
    EXPECT_EQ(chunksIn(store, codec::Format::Inline), inlineChunks);
    EXPECT_EQ(blobBytes(store), bytes);
}

TEST(StoreCompact, CancelKeepsTheBatchesCommittedBefore) {
    TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto id = store.beginRun({});
    {
        StoreWriter w(store, id, 1);  // a flush, and so a chunk, per record
        for (int i = 0; i < 600; ++i) {
            KernelRecord k;
            k.startNs = i * 1000, k.endNs = k.startNs + 500, k.name = "k";
            w.add(k);
        }
    }
    store.finishRun(id, RunStatus::Ok);
    compactStore(store, codec::Format::Inline);
    auto original = everything(store);
    auto result = compactStore(store, codec::kWriteFormat,
                               [](std::int64_t done, std::int64_t) { return done < 300; });
    EXPECT_TRUE(result.cancelled);
    EXPECT_EQ(result.chunksRewritten, 256);
    EXPECT_EQ(chunksIn(store, codec::Format::Dictionary), 256);
    EXPECT_EQ(chunksIn(store, codec::Format::Inline), 600 - 256);
    EXPECT_EQ(everything(store), original);
}

TEST(StoreCompact, RefusedWhileARunIsBeingRecorded) {
    TempDir dir;
    auto path = dir.file("runs.wsdb");
    auto runs = testing::writeFixtureStore(path);  // one run still recording on another host
    Store store(path);
    try {
        compactStore(store);
        FAIL() << "compacted beside a recording";
    } catch (const StoreError& e) {
        EXPECT_EQ(e.kind(), StoreError::Kind::Locked);
        std::string message = e.what();
        EXPECT_NE(message.find("run " + std::to_string(runs.remoteRunning)), std::string::npos)
            << message;
        EXPECT_NE(message.find("warpscope-cli rm"), std::string::npos) << message;
    }
}

}  // namespace
}  // namespace ws
