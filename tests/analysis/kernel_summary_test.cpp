#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <random>
#include <set>

#include "analysis/analysis_window.h"
#include "analysis/graph_nodes.h"
#include "analysis/kernel_attribution.h"
#include "analysis/kernel_summary.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "support/fixture_store.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

TEST(KernelSummary, DemanglesAndShortensNames) {
    EXPECT_EQ(demangle("_Z11fill_kernelPffi"), "fill_kernel(float*, float, int)");
    EXPECT_EQ(shortKernelName(demangle("_Z11fill_kernelPffi")), "fill_kernel");
    EXPECT_EQ(shortKernelName("void at::native::elementwise_kernel<128, 4, at::Foo<int> >(int, "
                              "at::Foo<int>)"),
              "elementwise_kernel");
    EXPECT_EQ(
        shortKernelName("void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::("
                        "anonymous namespace)::OpaqueType<2u>, unsigned int, 4, 64, 64>(int)"),
        "CatArrayBatchedCopy");
    EXPECT_EQ(demangle("add_kernel"), "add_kernel");  // Triton names are not mangled
    EXPECT_EQ(shortKernelName("add_kernel"), "add_kernel");
    EXPECT_EQ(shortKernelName("void at::native::elementwise_kernel<128, 4, at::Foo<int> >(int, "
                              "at::Foo<int>)",
                              true),
              "elementwise_kernel<128, 4, at::Foo<int> >");
    EXPECT_EQ(shortKernelName("fill_kernel(float*, float, int)", true), "fill_kernel");
}

TEST(KernelSummary, RowsOfOneTemplateOrOverloadReadApart) {
    std::map<std::string, std::vector<double>> times = {
        {"void gemv<0, 256>(float*)", {1.0}}, {"void gemv<1, 256>(float*)", {2.0}},
        {"void scale(float*)", {3.0}},        {"void scale(double*)", {4.0}},
        {"void norm<float>(float*)", {5.0}},
    };
    std::set<std::string> names;
    for (const auto& k : kernelStats(times, 15.0))
        names.insert(k.name);
    EXPECT_EQ(names, (std::set<std::string>{"gemv<0, 256>", "gemv<1, 256>", "void scale(float*)",
                                            "void scale(double*)", "norm"}));
}

TEST(KernelSummary, UnionOfIntervals) {
    EXPECT_EQ(unionLength({{0, 10}, {5, 15}, {20, 30}, {29, 31}}), 26);
    EXPECT_EQ(unionLength({}), 0);
}

TEST(KernelSummary, HandComputedRun) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto run = store.beginRun({});
    {
        StoreWriter w(store, run);
        auto kernel = [&](std::int64_t start, std::int64_t dur, const char* name,
                          std::uint32_t corr) {
            KernelRecord k;
            k.startNs = start;
            k.endNs = start + dur;
            k.name = name;
            k.correlationId = corr;
            w.add(k);
        };
        kernel(100, 10, "_Z1av", 1);
        kernel(120, 30, "_Z1av", 2);
        kernel(200, 60, "_Z1bv", 3);
        MemcpyRecord m;
        m.startNs = 300;
        m.endNs = 400;
        m.bytes = 1000;
        m.kind = MemcpyKind::HtoD;
        w.add(m);
        // Range "step" [90, 150) on thread 1 holds the launches of kernels 1 and 2.
        w.add(RangeRecord{90, 150, 1, 1, "step", "d", RangeKind::PushPop, 0, 0});
        w.add(ApiCallRecord{95, 98, 1, 1, 1, ApiKind::Runtime, 0, "cudaLaunchKernel", 0});
        w.add(ApiCallRecord{110, 112, 1, 1, 2, ApiKind::Runtime, 0, "cudaLaunchKernel", 0});
        w.add(ApiCallRecord{160, 162, 1, 1, 3, ApiKind::Runtime, 0, "cudaLaunchKernel", 0});
        w.add(ApiCallRecord{170, 180, 1, 1, 4, ApiKind::Runtime, 0, "cudaMemcpyAsync", 1});
    }
    auto s = summarizeRun(store, run);
    ASSERT_EQ(s.kernels.size(), 2u);
    EXPECT_EQ(s.kernels[0].name, "b");  // 60 ns beats 40 ns
    EXPECT_EQ(s.kernels[1].name, "a");
    EXPECT_EQ(s.kernels[1].time.count, 2);
    EXPECT_DOUBLE_EQ(s.kernels[1].time.meanNs, 20);
    EXPECT_DOUBLE_EQ(s.kernels[1].time.stdNs, 10);
    EXPECT_DOUBLE_EQ(s.kernels[0].timePercent, 60);
    ASSERT_EQ(s.memcpys.size(), 1u);
    EXPECT_DOUBLE_EQ(s.memcpys[0].gbPerS, 10);  // 1000 B in 100 ns
    EXPECT_EQ(s.gpuSpanNs, 300);                // 100 .. 400
    EXPECT_EQ(s.gpuBusyNs, 200);                // 10 + 30 + 60 + 100
    ASSERT_EQ(s.ranges.size(), 1u);
    EXPECT_DOUBLE_EQ(s.ranges[0].selfKernelNs, 40);  // kernels 1 and 2, launched inside
    EXPECT_DOUBLE_EQ(s.ranges[0].inclusiveKernelNs, 40);
    EXPECT_DOUBLE_EQ(s.ranges[0].gpuBusyNs, 40);  // [100,110) and [120,150)
    // cuda_api_sum: by total time; the memcpy call (10 ns) returned an error.
    ASSERT_EQ(s.apiCalls.size(), 2u);
    EXPECT_EQ(s.apiCalls[0].name, "cudaMemcpyAsync");
    EXPECT_EQ(s.apiCalls[0].errors, 1);
    EXPECT_EQ(s.apiCalls[1].name, "cudaLaunchKernel");
    EXPECT_EQ(s.apiCalls[1].time.count, 3);
    EXPECT_DOUBLE_EQ(s.apiCalls[1].time.totalNs, 7);
    EXPECT_DOUBLE_EQ(s.apiCalls[1].timePercent, 100.0 * 7 / 17);
    EXPECT_EQ(s.apiCalls[1].errors, 0);
    // A window keeps the calls that overlap it.
    auto windowed = summarizeRun(store, run, TimeWindow{150, 200});
    ASSERT_EQ(windowed.apiCalls.size(), 2u);
    EXPECT_EQ(windowed.apiCalls[1].time.count, 1);
}

// A kernel that starts long after its launch (the CPU ran ahead of a deep
// queue) is still credited to the range its launch was made in.
TEST(KernelSummary, AKernelFarBehindItsLaunchKeepsItsRange) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto run = store.beginRun({});
    const std::int64_t s = 1'000'000'000;
    {
        StoreWriter w(store, run);
        w.add(RangeRecord{0, 10, 1, 1, "step", "d", RangeKind::PushPop, 0, 0});
        w.add(ApiCallRecord{2, 4, 1, 1, 7, ApiKind::Runtime, 0, "cudaLaunchKernel", 0});
        KernelRecord k;
        k.startNs = 5 * s;  // 5 s behind its launch
        k.endNs = 5 * s + 100;
        k.name = "_Z4slowv";
        k.correlationId = 7;
        w.add(k);
    }
    auto summary = summarizeRun(store, run);
    ASSERT_EQ(summary.ranges.size(), 1u);
    EXPECT_DOUBLE_EQ(summary.ranges[0].selfKernelNs, 100);
}

// A decoder's ranges nest: step > layer > op, with a layer inside a layer (a
// block calling a sub-block of the same name) and a kernel launched between
// ops. Inclusive time is what nsys's nvtx_kern_sum gives; self what PyTorch's
// "self CUDA" gives.
TEST(KernelSummary, InclusiveAndSelfKernelTimePerRange) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto run = store.beginRun({});
    {
        StoreWriter w(store, run);
        auto launch = [&](std::int64_t at, std::uint32_t corr, std::int64_t ns) {
            KernelRecord k;
            k.startNs = 10000 + at;
            k.endNs = k.startNs + ns;
            k.name = "_Z1kv";
            k.correlationId = corr;
            w.add(k);
            w.add(
                ApiCallRecord{at, at + 1, 1, 1, corr, ApiKind::Runtime, 0, "cudaLaunchKernel", 0});
        };
        auto range = [&](std::int64_t start, std::int64_t end, const char* name) {
            w.add(RangeRecord{start, end, 1, 1, name, "", RangeKind::PushPop, 0, 0});
        };
        range(0, 1000, "step");
        range(100, 900, "layer");
        range(200, 400, "layer");  // nested in a layer of the same name
        range(250, 300, "matmul");
        range(500, 600, "matmul");
        launch(260, 1, 7);    // step > layer > layer > matmul
        launch(350, 2, 11);   // step > layer > layer
        launch(550, 3, 13);   // step > layer > matmul
        launch(700, 4, 17);   // step > layer, after its ops
        launch(950, 5, 19);   // step alone
        launch(1500, 6, 23);  // in no range
    }
    auto s = summarizeRun(store, run);
    auto find = [&](const std::string& name) {
        for (const auto& r : s.ranges)
            if (r.name == name) return r;
        ADD_FAILURE() << "no range " << name;
        return RangeStat{};
    };
    EXPECT_DOUBLE_EQ(find("step").inclusiveKernelNs, 7 + 11 + 13 + 17 + 19);
    EXPECT_DOUBLE_EQ(find("step").selfKernelNs, 19);
    EXPECT_DOUBLE_EQ(find("layer").inclusiveKernelNs, 7 + 11 + 13 + 17);  // once, not twice
    EXPECT_DOUBLE_EQ(find("layer").selfKernelNs, 11 + 17);
    EXPECT_DOUBLE_EQ(find("matmul").inclusiveKernelNs, 7 + 13);
    EXPECT_DOUBLE_EQ(find("matmul").selfKernelNs, 7 + 13);
    EXPECT_EQ(s.window, "whole run");
}

// A graph captured inside ranges attn and mlp, instantiated (copies of its
// nodes) and replayed 50 times from a "replay" range: the replayed kernels
// count where they were captured, as the eager launches would have. A node
// whose creation was not recorded, and one whose id two processes used, fall
// back to the ranges around their cudaGraphLaunch.
TEST(KernelSummary, ReplayedGraphKernelsCountWhereTheyWereCaptured) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto run = store.beginRun({});
    constexpr int kReplays = 50;
    {
        StoreWriter w(store, run);
        auto range = [&](std::int64_t start, std::int64_t end, const char* name) {
            w.add(RangeRecord{start, end, 1, 1, name, "", RangeKind::PushPop, 0, 0});
        };
        range(0, 1000, "capture");
        range(100, 400, "attn");
        range(500, 900, "mlp");
        // Created by capture on thread 1 (nodes 1-3), copied by instantiation
        // (11-13). CUPTI reports each copy as created, then as cloned from
        // the captured node, as seen on the H200.
        w.add(GraphNodeRecord{1, 0, 1, 1, 1, 150, 0});
        w.add(GraphNodeRecord{2, 0, 1, 1, 1, 300, 0});
        w.add(GraphNodeRecord{3, 0, 1, 1, 1, 600, 0});
        for (std::uint64_t copy : {11, 12, 13}) {
            w.add(GraphNodeRecord{copy, 0, 2, 1, 1, 1100, 0});
            w.add(GraphNodeRecord{copy, copy - 10, 2, 1, 1, 1101, 0});
        }
        // Node 7 was created in two processes: its kernels cannot tell which.
        w.add(GraphNodeRecord{7, 0, 5, 1, 1, 200, 0});
        w.add(GraphNodeRecord{7, 0, 5, 2, 9, 200, 0});
        range(2000, 2000 + kReplays * 100, "replay");
        for (int i = 0; i < kReplays; ++i) {
            std::int64_t at = 2000 + i * 100;
            auto corr = static_cast<std::uint32_t>(100 + i);
            w.add(ApiCallRecord{at + 10, at + 20, 1, 1, corr, ApiKind::Runtime, 0,
                                "cudaGraphLaunch", 0});
            std::uint64_t nodes[] = {11, 12, 13, 7, 999};
            std::int64_t durations[] = {5, 7, 11, 13, 17};
            for (int n = 0; n < 5; ++n) {
                KernelRecord k;
                k.startNs = 100000 + i * 1000 + n * 100;
                k.endNs = k.startNs + durations[n];
                k.name = "_Z1kv";
                k.correlationId = corr;
                k.graphId = 2;
                k.graphNodeId = nodes[n];
                w.add(k);
            }
        }
    }
    auto s = summarizeRun(store, run);
    auto find = [&](const std::string& name) {
        for (const auto& r : s.ranges)
            if (r.name == name) return r;
        ADD_FAILURE() << "no range " << name;
        return RangeStat{};
    };
    EXPECT_DOUBLE_EQ(find("attn").inclusiveKernelNs, kReplays * (5 + 7));
    EXPECT_EQ(find("attn").inclusiveKernels, 2 * kReplays);
    EXPECT_DOUBLE_EQ(find("mlp").selfKernelNs, kReplays * 11);
    EXPECT_EQ(find("mlp").inclusiveKernels, kReplays);
    EXPECT_DOUBLE_EQ(find("capture").inclusiveKernelNs, kReplays * (5 + 7 + 11));
    EXPECT_DOUBLE_EQ(find("capture").selfKernelNs, 0);
    // The ambiguous node 7 and the unrecorded node 999: where they were launched.
    EXPECT_DOUBLE_EQ(find("replay").inclusiveKernelNs, kReplays * (13 + 17));
    EXPECT_EQ(s.graphs.kernels, 5 * kReplays);
    EXPECT_DOUBLE_EQ(s.graphs.kernelNs, kReplays * (5 + 7 + 11 + 13 + 17));
    EXPECT_EQ(s.graphs.traced, 3 * kReplays);
    EXPECT_EQ(s.graphs.inRange, 3 * kReplays);
    EXPECT_DOUBLE_EQ(s.graphs.inRangeNs, kReplays * (5 + 7 + 11));

    // A clicked replayed kernel names the ranges it was captured in.
    KernelRecord clicked;
    clicked.graphNodeId = 12;
    auto site = captureSiteOf(store, run, clicked);
    ASSERT_TRUE(site);
    EXPECT_EQ(site->rangePath, "capture/attn");
    EXPECT_EQ(site->threadId, 1u);
    EXPECT_EQ(site->timeNs, 300);
    clicked.graphNodeId = 7;  // ambiguous
    EXPECT_FALSE(captureSiteOf(store, run, clicked));
    clicked.graphNodeId = 0;  // launched directly
    EXPECT_FALSE(captureSiteOf(store, run, clicked));

    // A window over the replays alone still credits the capture-time ranges,
    // though they lie outside it; their own durations are not counted there.
    auto replayOnly = summarizeRun(store, run, {99'000, 200'000}, "replays");
    for (const auto& r : replayOnly.ranges) {
        if (r.name == "attn") {
            EXPECT_DOUBLE_EQ(r.inclusiveKernelNs, kReplays * (5 + 7));
            EXPECT_EQ(r.time.count, 0);
        }
    }
}

// The brief records the summary reads (names as string ids, launch fields
// stepped over) agree with the full records, in both chunk formats' writer.
TEST(KernelSummary, BriefRecordsMatchFullOnes) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto run = store.beginRun({});
    {
        StoreWriter w(store, run);
        for (std::uint32_t i = 0; i < 3000; ++i) {
            KernelRecord k;
            k.startNs = 1000 + 37 * i;
            k.endNs = k.startNs + 5 + i % 7;
            k.streamId = 7 + i % 3;
            k.correlationId = i + 1;
            k.name = "_Z1kILi" + std::to_string(i % 5) + "EEvv";
            k.gridX = static_cast<std::int32_t>(1 + i % 300);
            k.registersPerThread = -static_cast<std::int32_t>(i % 4);
            k.localBytesTotal = std::int64_t(i) << 40;
            k.graphId = i % 2;
            k.graphNodeId = i % 2 ? 0x1'0000'0000ull + i : 0;
            w.add(k);
            w.add(ApiCallRecord{k.startNs - 10, k.startNs - 3, 1, 4 + i % 2, i + 1,
                                i % 3 ? ApiKind::Runtime : ApiKind::Driver, 200 + i % 9,
                                i % 4 ? "cudaLaunchKernel" : "cuLaunchKernel",
                                static_cast<std::int32_t>(i % 5) - 2});
        }
    }
    StartOrderReader<KernelRecord> full(store, run);
    StartOrderReader<codec::KernelBrief> brief(store, run);
    std::size_t n = 0;
    for (const KernelRecord* k = full.next(); k; k = full.next(), ++n) {
        const codec::KernelBrief* b = brief.next();
        ASSERT_NE(b, nullptr);
        EXPECT_EQ(b->startNs, k->startNs);
        EXPECT_EQ(b->endNs, k->endNs);
        EXPECT_EQ(b->correlationId, k->correlationId);
        EXPECT_EQ(b->graphNodeId, k->graphNodeId);
        EXPECT_EQ(brief.text(b->nameId), k->name);
    }
    EXPECT_EQ(brief.next(), nullptr);
    EXPECT_EQ(n, 3000u);
    StartOrderReader<ApiCallRecord> calls(store, run);
    StartOrderReader<codec::ApiCallBrief> briefCalls(store, run);
    n = 0;
    for (const ApiCallRecord* c = calls.next(); c; c = calls.next(), ++n) {
        const codec::ApiCallBrief* b = briefCalls.next();
        ASSERT_NE(b, nullptr);
        EXPECT_EQ(b->startNs, c->startNs);
        EXPECT_EQ(b->endNs, c->endNs);
        EXPECT_EQ(b->processId, c->processId);
        EXPECT_EQ(b->threadId, c->threadId);
        EXPECT_EQ(b->correlationId, c->correlationId);
        EXPECT_EQ(b->kind, c->kind);
        EXPECT_EQ(b->returnValue, c->returnValue);
        EXPECT_EQ(briefCalls.text(b->nameId), c->name);
    }
    EXPECT_EQ(briefCalls.next(), nullptr);
    EXPECT_EQ(n, 3000u);
}

// Streamed launches (kept in an open-addressing table): first call of an id
// wins, forgotten ones are gone, the rest stay findable through many
// insertions and removals, against a plain map doing the same.
TEST(KernelSummary, StreamedLaunchesMatchAPlainMap) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto run = store.beginRun({});
    {
        StoreWriter w(store, run);
        w.add(RangeRecord{0, 1'000'000, 1, 1, "outer", "", RangeKind::PushPop, 0, 0});
        w.add(RangeRecord{0, 500'000, 1, 2, "other", "", RangeKind::PushPop, 0, 0});
    }
    KernelAttribution a(store, run, KernelAttribution::Streamed{});
    ASSERT_TRUE(a.hasRanges());
    struct Held {
        std::int64_t startNs;
        std::uint32_t thread;
    };
    std::map<std::uint32_t, Held> reference;
    std::deque<std::pair<std::int64_t, std::uint32_t>> order;
    std::mt19937 random(5);
    auto check = [&](std::uint32_t id) {
        bool captured = true;
        const std::size_t got = a.innermost(0, id, &captured);
        EXPECT_FALSE(captured);
        auto it = reference.find(id);
        if (it == reference.end())
            EXPECT_EQ(got, RangeStacks::kNone) << id;
        else
            EXPECT_EQ(a.ranges()[got].threadId, it->second.thread) << id;
    };
    for (std::int64_t t = 1; t < 400'000; ++t) {
        // Ids from a narrow band (collisions, long probe runs) and a wide one.
        const std::uint32_t id = t % 3 ? 1 + random() % 5000 : static_cast<std::uint32_t>(random());
        const std::uint32_t thread = 1 + random() % 2;
        a.addLaunch(id, thread, t);
        if (id && (thread == 1 || t < 500'000) && reference.try_emplace(id, Held{t, thread}).second)
            order.emplace_back(t, id);
        if (t % 1000 == 0) {
            const std::int64_t before = t - static_cast<std::int64_t>(random() % 3000);
            a.forgetLaunchesBefore(before);
            while (!order.empty() && order.front().first < before) {
                auto it = reference.find(order.front().second);
                if (it != reference.end() && it->second.startNs == order.front().first)
                    reference.erase(it);
                order.pop_front();
            }
            ASSERT_EQ(a.launchesHeld(), reference.size());
            for (std::uint32_t probe = 0; probe < 5100; probe += 7)
                check(probe);
            check(id);
        }
    }
}

// A plain launch leaves the lookup table once its kernel is credited, yet the
// first call of an id still wins until the horizon: a second kernel of the id
// finds it, a later call with the id is ignored, and graph launches (and
// kernels with a graph id) keep their launch in the table.
TEST(KernelSummary, CreditedLaunchesLeaveTheTableAndKeepTheirMeaning) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto run = store.beginRun({});
    {
        StoreWriter w(store, run);
        w.add(RangeRecord{0, 1'000'000, 1, 1, "outer", "", RangeKind::PushPop, 0, 0});
        w.add(RangeRecord{0, 1'000'000, 1, 2, "other", "", RangeKind::PushPop, 0, 0});
    }
    KernelAttribution a(store, run, KernelAttribution::Streamed{});
    auto thread = [&](std::size_t range) {
        return range == RangeStacks::kNone ? 0u : a.ranges()[range].threadId;
    };
    a.addLaunch(1, 1, 10);
    a.addLaunch(2, 1, 11);
    a.addLaunch(3, 2, 12, /*graphLaunch=*/true);
    a.addLaunch(4, 1, 13);
    EXPECT_EQ(a.launchesPending(), 4u);
    EXPECT_EQ(thread(a.credit(0, 0, 1)), 1u);  // plain: leaves the table
    EXPECT_EQ(thread(a.credit(0, 0, 2)), 1u);
    EXPECT_EQ(a.launchesPending(), 2u);
    EXPECT_EQ(a.launchesHeld(), 4u);
    // The graph launch's kernels come later and all find it.
    EXPECT_EQ(thread(a.credit(0, 0, 3)), 2u);
    EXPECT_EQ(thread(a.credit(0, 0, 3)), 2u);
    // A kernel with a graph id keeps its launch too.
    EXPECT_EQ(thread(a.credit(0, 9, 4)), 1u);
    EXPECT_EQ(a.launchesPending(), 2u);
    EXPECT_EQ(thread(a.innermost(0, 4)), 1u);
    // Id 1 reused after its kernel (another thread or process): the first
    // call still wins, for the lookup and for a second kernel of the id.
    a.addLaunch(1, 2, 20);
    EXPECT_EQ(a.launchesHeld(), 4u);
    EXPECT_EQ(thread(a.innermost(0, 1)), 1u);
    EXPECT_EQ(thread(a.credit(0, 0, 1)), 1u);
    EXPECT_EQ(thread(a.credit(0, 0, 2)), 1u);
    // Past the horizon the id is free again.
    a.forgetLaunchesBefore(12);
    EXPECT_EQ(a.launchesHeld(), 2u);
    EXPECT_EQ(a.credit(0, 0, 1), RangeStacks::kNone);
    a.addLaunch(1, 2, 30);
    EXPECT_EQ(thread(a.credit(0, 0, 1)), 2u);
    a.forgetLaunchesBefore(1'000'000);
    EXPECT_EQ(a.launchesHeld(), 0u);
    EXPECT_EQ(a.credit(0, 0, 3), RangeStacks::kNone);
}

// Crediting kernels (plain, graph, duplicate ids) gives what a plain map of
// first calls gives, through horizons, with the table holding far fewer.
TEST(KernelSummary, CreditedLaunchesMatchAPlainMap) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto run = store.beginRun({});
    {
        StoreWriter w(store, run);
        w.add(RangeRecord{0, 10'000'000, 1, 1, "outer", "", RangeKind::PushPop, 0, 0});
        w.add(RangeRecord{0, 5'000'000, 1, 2, "other", "", RangeKind::PushPop, 0, 0});
    }
    for (int duplicates : {0, 1}) {
        KernelAttribution a(store, run, KernelAttribution::Streamed{});
        std::map<std::uint32_t, std::pair<std::int64_t, std::uint32_t>> reference;
        std::deque<std::pair<std::int64_t, std::uint32_t>> order;
        std::deque<std::uint32_t> queued;  // launched ids whose kernels are due
        std::mt19937 random(11 + duplicates);
        std::uint32_t nextId = 1;
        std::size_t maxPending = 0;
        for (std::int64_t t = 1; t < 200'000; ++t) {
            const std::uint32_t thread = 1 + random() % 2;
            const bool graph = random() % 50 == 0;
            const std::uint32_t id = nextId++;
            a.addLaunch(id, thread, t, graph);
            if (reference.try_emplace(id, t, thread).second) order.emplace_back(t, id);
            queued.push_back(id);
            if (graph) queued.push_back(id);
            if (duplicates && random() % 100 == 0) queued.push_back(id - random() % 50);
            while (queued.size() > 20 || (!queued.empty() && random() % 2)) {
                const std::uint32_t k = queued.front();
                queued.pop_front();
                const std::size_t got = a.credit(0, random() % 30 == 0 ? 5 : 0, k);
                auto it = reference.find(k);
                if (it == reference.end()) {
                    ASSERT_EQ(got, RangeStacks::kNone) << k;
                } else {
                    ASSERT_EQ(a.ranges()[got].threadId, it->second.second) << k;
                }
            }
            maxPending = std::max(maxPending, a.launchesPending());
            if (t % 1000 == 0) {
                const std::int64_t before = t - 5000;
                a.forgetLaunchesBefore(before);
                while (!order.empty() && order.front().first < before) {
                    reference.erase(order.front().second);
                    order.pop_front();
                }
                ASSERT_EQ(a.launchesHeld(), reference.size());
            }
        }
        if (!duplicates) {
            EXPECT_LT(maxPending, 1000u);  // of ~5000 held
        }
    }
}

TEST(AnalysisWindow, ParsesAndResolvesEachKind) {
    EXPECT_EQ(parseWindowChoice("run").kind, WindowChoice::Kind::WholeRun);
    EXPECT_EQ(parseWindowChoice("requests").kind, WindowChoice::Kind::Requests);
    EXPECT_EQ(parseWindowChoice("range:decode").range, "decode");
    EXPECT_EQ(toSpec(parseWindowChoice("range:a:b")), "range:a:b");
    EXPECT_THROW(parseWindowChoice("range:"), std::invalid_argument);
    EXPECT_THROW(parseWindowChoice("all"), std::invalid_argument);
    auto span = parseWindowChoice("1.5s:2s");
    EXPECT_EQ(span.kind, WindowChoice::Kind::Span);
    EXPECT_EQ(span.fromNs, 1'500'000'000);
    EXPECT_EQ(span.toNs, 2'000'000'000);
    EXPECT_EQ(parseWindowChoice("1200:1500").fromNs, 1'200'000'000);  // ms by default
    EXPECT_EQ(parseWindowChoice("20us:800us").toNs, 800'000);
    EXPECT_EQ(parseWindowChoice(toSpec(span)), span);
    EXPECT_THROW(parseWindowChoice("1:x"), std::invalid_argument);
    EXPECT_THROW(parseWindowChoice("-1:5"), std::invalid_argument);
    EXPECT_THROW(parseWindowChoice("5:5"), std::invalid_argument);

    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto run = store.beginRun({});
    {
        StoreWriter w(store, run);
        w.add(RangeRecord{100, 200, 1, 1, "decode", "", RangeKind::PushPop, 0, 0});
        w.add(RangeRecord{300, 450, 1, 1, "decode", "", RangeKind::PushPop, 0, 0});
    }
    auto whole = resolveWindow(store, run, parseWindowChoice("run"));
    EXPECT_EQ(whole.label, "whole run");
    auto requests = resolveWindow(store, run, parseWindowChoice("requests"));
    EXPECT_EQ(requests.label, "whole run (it has no requests)");
    EXPECT_EQ(requests.span.beginNs, TimeWindow{}.beginNs);
    auto decode = resolveWindow(store, run, parseWindowChoice("range:decode"));
    EXPECT_EQ(decode.span.beginNs, 100);
    EXPECT_EQ(decode.span.endNs, 450);
    EXPECT_NE(decode.label.find("first of its 2 instances"), std::string::npos) << decode.label;
    try {
        resolveWindow(store, run, parseWindowChoice("range:prefill"));
        ADD_FAILURE() << "an unknown range resolved";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("no NVTX range 'prefill'"), std::string::npos);
    }
    // Spans count from the run's first record (the range at 100 ns).
    auto early = resolveWindow(store, run, parseWindowChoice("100ns:0.2us"));
    EXPECT_EQ(early.span.beginNs, 200);
    EXPECT_EQ(early.span.endNs, 300);
    EXPECT_NE(early.label.find("of the run"), std::string::npos) << early.label;
    auto fallback = resolveWindow(store, run, parseWindowChoice("range:prefill"), true);
    EXPECT_EQ(fallback.span.endNs, TimeWindow{}.endNs);
    EXPECT_NE(fallback.label.find("whole run"), std::string::npos);
}

}  // namespace
}  // namespace ws
