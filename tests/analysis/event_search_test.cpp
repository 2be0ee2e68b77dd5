// Whole-run search by the timeline's labels: every match counted, the
// earliest kept in start order, across kinds and lanes, and cancellable.
#include <gtest/gtest.h>

#include "analysis/event_search.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

// Kernels alternating between two streams (gemv on 7, a mangled GEMM on 9),
// one HtoD copy, a memset and API calls on two threads.
RunId writeRun(Store& store, int kernels) {
    RunId run = store.beginRun({});
    StoreWriter w(store, run);
    for (int i = 0; i < kernels; ++i) {
        KernelRecord k;
        k.startNs = 1000LL * i;
        k.endNs = k.startNs + 500;
        k.streamId = i % 2 ? 9 : 7;
        k.name = i % 2 ? "_Z9gemm_bf16PKfS0_Pf" : "gemv_bf16_splitk<4, 256>";
        w.add(k);
    }
    MemcpyRecord m;
    m.startNs = 2500;
    m.endNs = 2600;
    m.streamId = 7;
    m.kind = MemcpyKind::HtoD;
    w.add(m);
    MemsetRecord s;
    s.startNs = 2700;
    s.endNs = 2750;
    s.streamId = 9;
    w.add(s);
    for (int i = 0; i < 4; ++i) {
        ApiCallRecord a;
        a.startNs = 100 + 1000LL * i;
        a.endNs = a.startNs + 50;
        a.threadId = 40 + static_cast<std::uint32_t>(i % 2);
        a.name = i == 3 ? "cudaMemcpyAsync" : "cudaLaunchKernel";
        w.add(a);
    }
    return run;
}

TEST(EventSearch, CountsEveryMatchAndKeepsTheEarliestInStartOrder) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    RunId run = writeRun(store, 100);
    // Kernels by their short demangled label, ignoring case.
    auto gemm = searchRunEvents(store, run, "GEMM_bf16", 10);
    EXPECT_EQ(gemm.total, 50);
    ASSERT_EQ(gemm.first.size(), 10u);
    EXPECT_FALSE(gemm.stopped);
    for (std::size_t i = 0; i < gemm.first.size(); ++i) {
        EXPECT_EQ(gemm.first[i].kind, MatchedKind::Kernel);
        EXPECT_EQ(gemm.first[i].laneId, 9u);
        EXPECT_EQ(gemm.first[i].startNs, 1000LL * (2 * static_cast<std::int64_t>(i) + 1));
        EXPECT_EQ(gemm.first[i].name, kernelLabel("_Z9gemm_bf16PKfS0_Pf"));
    }
    EXPECT_EQ(gemm.first[0].name, "gemm_bf16");
    // Across kinds: "memcpy" is the HtoD copy and one API call, in start order.
    auto copies = searchRunEvents(store, run, "memcpy", 100);
    EXPECT_EQ(copies.total, 2);
    ASSERT_EQ(copies.first.size(), 2u);
    EXPECT_EQ(copies.first[0].kind, MatchedKind::Memcpy);
    EXPECT_EQ(copies.first[0].name, "Memcpy HtoD");
    EXPECT_EQ(copies.first[1].kind, MatchedKind::ApiCall);
    EXPECT_EQ(copies.first[1].laneId, 41u);
    EXPECT_EQ(copies.first[1].name, "cudaMemcpyAsync");
    EXPECT_EQ(searchRunEvents(store, run, "memset", 5).first.at(0).laneId, 9u);
    // Everything with an "e": all kernels, calls, the copy and the memset;
    // none held past the limit.
    auto all = searchRunEvents(store, run, "e", 3);
    EXPECT_EQ(all.total, 100 + 4 + 1 + 1);
    ASSERT_EQ(all.first.size(), 3u);
    EXPECT_EQ(all.first[0].startNs, 0);
    EXPECT_EQ(all.first[1].startNs, 100);  // the first API call
    EXPECT_EQ(all.first[2].startNs, 1000);
    EXPECT_EQ(searchRunEvents(store, run, "nothing like it", 10).total, 0);
    EXPECT_EQ(searchRunEvents(store, run, "", 10).total, 0);
}

TEST(EventSearch, StopsWhenToldAndSaysSo) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    RunId run = writeRun(store, 200'000);
    double lastFraction = 0;
    int asked = 0;
    // Every kernel matches "_bf16"; the search stops at its second question.
    auto r = searchRunEvents(store, run, "_bf16", 10, [&](double fraction) {
        lastFraction = fraction;
        return ++asked < 2;
    });
    EXPECT_TRUE(r.stopped);
    EXPECT_EQ(asked, 2);
    EXPECT_GT(lastFraction, 0.5);  // 131,072 of 200,006 records
    EXPECT_LT(lastFraction, 0.7);
    EXPECT_LE(r.total, 131'072);
    auto whole = searchRunEvents(store, run, "_bf16", 10, [](double) { return true; });
    EXPECT_FALSE(whole.stopped);
    EXPECT_EQ(whole.total, 200'000);
}

}  // namespace
}  // namespace ws
