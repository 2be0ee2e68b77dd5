// The sliced summary (summarizeRun on several threads) against the one pass:
// every field of the result equal, for any number of slices, on runs whose
// kernels straddle slice boundaries, whose launch calls lie many slices
// before them (or past the attribution horizon), launched from CUDA graphs,
// in nested ranges; and the cases it leaves to the one pass.
#include <gtest/gtest.h>

#include <atomic>

#include <iomanip>
#include <random>
#include <sstream>

#include "analysis/kernel_summary.h"
#include "analysis/run_analysis.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

// Every field, doubles to the last bit.
std::string dump(const RunSummary& s) {
    std::ostringstream o;
    o << std::hexfloat;
    auto d = [&](const DurationStats& t) {
        o << t.count << ' ' << t.totalNs << ' ' << t.meanNs << ' ' << t.medianNs << ' ' << t.minNs
          << ' ' << t.maxNs << ' ' << t.stdNs << ' ' << t.medianExact << '\n';
    };
    o << s.window << ' ' << s.gpuSpanNs << ' ' << s.gpuBusyNs << ' ' << s.gpuBusyFraction << '\n';
    for (const auto& k : s.kernels) {
        o << "kernel " << k.name << ' ' << k.mangled << ' ' << k.timePercent << ' ';
        d(k.time);
    }
    for (const auto& m : s.memcpys) {
        o << "copy " << static_cast<int>(m.kind) << ' ' << m.totalBytes << ' ' << m.gbPerS << ' '
          << m.timePercent << ' ';
        d(m.time);
    }
    for (const auto& r : s.ranges) {
        o << "range " << r.domain << ':' << r.name << ' ' << r.gpuBusyNs << ' '
          << r.inclusiveKernelNs << ' ' << r.selfKernelNs << ' ' << r.inclusiveKernels << ' '
          << r.gpuBusyFraction << ' ';
        d(r.time);
    }
    for (const auto& a : s.apiCalls) {
        o << "api " << a.name << ' ' << static_cast<int>(a.kind) << ' ' << a.timePercent << ' '
          << a.errors << ' ';
        d(a.time);
    }
    const auto& g = s.graphs;
    o << "graphs " << g.kernels << ' ' << g.kernelNs << ' ' << g.traced << ' ' << g.tracedNs << ' '
      << g.inRange << ' ' << g.inRangeNs << '\n';
    return o.str();
}

const RangeStat* rangeNamed(const RunSummary& s, const std::string& name) {
    for (const auto& r : s.ranges)
        if (r.name == name) return &r;
    return nullptr;
}

constexpr std::int64_t kSecond = 1'000'000'000;

// Kernels on three streams launched from two threads inside nested ranges,
// copies and memsets beside them, long kernels across any cut, graph
// replays, and a few kernels whose calls came long before them.
struct RichRun {
    testing::TempDir dir;
    std::unique_ptr<Store> store;
    RunId run = 0;
    std::int64_t endNs = 0;
    static constexpr int kKernels = 40'000;

    RichRun() {
        store = std::make_unique<Store>(dir.file("runs.wsdb"));
        run = store->beginRun({});
        StoreWriter w(*store, run);
        std::mt19937_64 random(7);
        const char* names[] = {"_Z4gemvPf", "_Z4normPf", "_Z3addPf", "_Z7softmaxPf", "_Z4ropePf"};
        std::int64_t t = kSecond;
        std::uint32_t corr = 1;
        std::int64_t stepStart[3] = {0, 0, 0}, layerStart[3] = {0, 0, 0};
        auto range = [&](std::int64_t start, std::int64_t end, std::uint32_t thread,
                         const char* name) {
            w.add(RangeRecord{start, end, 1, thread, name, "", RangeKind::PushPop, 0, 0});
        };
        // Graph nodes captured inside "capture" on thread 1, instantiated as 101-103.
        range(t - 1000, t - 100, 1, "capture");
        for (std::uint64_t node : {1, 2, 3}) {
            w.add(GraphNodeRecord{node, 0, 1, 1, 1, t - 900 + static_cast<std::int64_t>(node), 0});
            w.add(GraphNodeRecord{100 + node, node, 2, 1, 1, t - 500, 0});
        }
        for (int i = 0; i < kKernels; ++i) {
            const std::uint32_t thread = 1 + static_cast<std::uint32_t>(i % 2);
            t += 500 + static_cast<std::int64_t>(random() % 3000);
            // Ranges: a "step" of 200 launches of a thread, "layer" inside it
            // every 20, and a "layer" inside a "layer" now and then.
            const int launch = i / 2;
            if (launch % 200 == 0) stepStart[thread] = t - 10;
            if (launch % 20 == 0) layerStart[thread] = t - 5;
            KernelRecord k;
            k.streamId = 7 + static_cast<std::uint32_t>(i % 3);
            k.name = names[random() % 5];
            k.correlationId = corr++;
            k.startNs = t + 2000;
            k.endNs = k.startNs + 1000 + static_cast<std::int64_t>(random() % 20'000);
            if (i % 997 == 0) k.endNs = k.startNs + 20'000'000;  // across many others
            if (i % 1201 == 0) k.startNs = t - 400'000;          // GPU clock ahead of the call's
            w.add(ApiCallRecord{t, t + 300, 1, thread, k.correlationId, ApiKind::Runtime, 0,
                                "cudaLaunchKernel", 0});
            w.add(ApiCallRecord{t + 400, t + 450, 1, thread, 0, ApiKind::Runtime, 0,
                                "cudaStreamQuery", i % 7 == 0 ? 600 : 0});
            w.add(k);
            if (launch % 20 == 10)
                range(layerStart[thread] + 1, t + 100, thread, "layer");  // nested, same name
            if (launch % 20 == 19) range(layerStart[thread], t + 200, thread, "layer");
            if (launch % 200 == 199) range(stepStart[thread], t + 300, thread, "step");
            if (i % 500 == 0) {
                MemcpyRecord m;
                m.startNs = t + 100;
                m.endNs = m.startNs + (i % 1500 == 0 ? 5'000'000 : 3000);
                m.streamId = 10;
                m.kind = i % 1000 == 0 ? MemcpyKind::HtoD : MemcpyKind::DtoH;
                m.bytes = 4096 + i;
                w.add(m);
                MemsetRecord s;
                s.startNs = t + 50;
                s.endNs = t + 2050;
                s.streamId = 11;
                w.add(s);
            }
            if (i % 3000 == 1500) {
                // A graph replay: one cudaGraphLaunch, its kernels (one per
                // node, some traced to the capture) over the next 20 ms.
                const std::uint32_t g = corr++;
                w.add(ApiCallRecord{t + 500, t + 800, 1, thread, g, ApiKind::Runtime, 0,
                                    "cudaGraphLaunch", 0});
                for (int n = 0; n < 4; ++n) {
                    KernelRecord gk;
                    gk.streamId = 12;
                    gk.name = "_Z5graphv";
                    gk.correlationId = g;
                    gk.graphId = 2;
                    gk.graphNodeId = n < 3 ? 101 + static_cast<std::uint64_t>(n) : 0;
                    gk.startNs = t + 1000 + n * 5'000'000;
                    gk.endNs = gk.startNs + 7000;
                    w.add(gk);
                }
            }
        }
        // Launches from a thread outside every range, and deep queues: calls in
        // a "deep" range whose kernels start 50 ms (past the slices' lookback),
        // 29 s and 31 s (past the attribution horizon) later.
        const std::int64_t deepAt = kSecond + (t - kSecond) / 3;
        range(deepAt - 10, deepAt + 10'000, 3, "deep");
        const std::int64_t delays[] = {50'000'000, 400'000'000, 29 * kSecond, 31 * kSecond};
        for (int d = 0; d < 4; ++d) {
            const std::uint32_t c = corr++;
            w.add(ApiCallRecord{deepAt + d * 100, deepAt + d * 100 + 50, 1, 3, c, ApiKind::Runtime,
                                0, "cudaLaunchKernel", 0});
            KernelRecord k;
            k.streamId = 13;
            k.name = "_Z4deepv";
            k.correlationId = c;
            k.startNs = deepAt + delays[d];
            k.endNs = k.startNs + 1'000'000;
            w.add(k);
        }
        for (int i = 0; i < 50; ++i) {
            const std::uint32_t c = corr++;
            w.add(ApiCallRecord{t + i * 10'000, t + i * 10'000 + 50, 1, 4, c, ApiKind::Runtime, 0,
                                "cudaLaunchKernel", 0});
            KernelRecord k;
            k.streamId = 7;
            k.name = "_Z7outsidev";
            k.correlationId = c;
            k.startNs = t + i * 10'000 + 1000;
            k.endNs = k.startNs + 500;
            w.add(k);
        }
        endNs = t;
        w.flush();
    }
};

TEST(KernelSummarySliced, SameAsOnePassForAnyNumberOfSlices) {
    RichRun r;
    const auto onePass = summarizeRun(*r.store, r.run, {}, "whole run", 1);
    for (unsigned threads : {2u, 3u, 5u, 8u, 13u}) {
        SCOPED_TRACE(threads);
        auto sliced = summarizeRunSliced(*r.store, r.run, {}, "whole run", threads);
        ASSERT_TRUE(sliced.has_value());
        EXPECT_EQ(dump(*sliced), dump(onePass));
        EXPECT_EQ(dump(summarizeRun(*r.store, r.run, {}, "whole run", threads)), dump(onePass));
    }
    // What the slices had to get right, checked against the run as written.
    const RangeStat* deep = rangeNamed(onePass, "deep");
    ASSERT_NE(deep, nullptr);
    EXPECT_EQ(deep->inclusiveKernels, 3);  // the 31 s one is past the horizon
    const RangeStat* capture = rangeNamed(onePass, "capture");
    ASSERT_NE(capture, nullptr);
    EXPECT_GT(capture->inclusiveKernels, 0);
    EXPECT_GT(onePass.graphs.inRange, 0);
    EXPECT_NE(rangeNamed(onePass, "layer"), nullptr);
    EXPECT_GT(onePass.gpuBusyNs, 0);
}

// A superseded analysis (another run selected in the GUI) stops within a
// few thousand records, on one thread or on slices, and says so.
TEST(KernelSummarySliced, StopsWhenToldOnOneThreadOrOnSlices) {
    RichRun r;
    for (unsigned threads : {1u, 3u}) {
        SCOPED_TRACE(threads);
        std::atomic<int> asked{0};
        auto stopAtOnce = [&] { return ++asked > 0; };
        EXPECT_THROW(summarizeRun(*r.store, r.run, {}, "whole run", threads, stopAtOnce),
                     SummaryStopped);
        EXPECT_GT(asked.load(), 0);
        // Never stopping changes nothing.
        EXPECT_EQ(
            dump(summarizeRun(*r.store, r.run, {}, "whole run", threads, [] { return false; })),
            dump(summarizeRun(*r.store, r.run, {}, "whole run", 1)));
    }
    std::atomic<bool> stop{true};
    EXPECT_TRUE(analyzeRuns(*r.store, {r.run}, [&] { return stop.load(); }).empty());
}

TEST(KernelSummarySliced, RangesReadInPartsAreRangesInOrder) {
    RichRun r;
    const auto all = rangesIn(*r.store, r.run, {});
    ASSERT_GT(all.size(), 1000u);
    const std::int64_t cuts[] = {std::numeric_limits<std::int64_t>::min(), all[10].startNs,
                                 all[10].startNs + 1, all[all.size() / 2].startNs,
                                 std::numeric_limits<std::int64_t>::max()};
    std::vector<RangeRecord> joined;
    for (int i = 0; i + 1 < 5; ++i) {
        bool reversed = true;
        for (auto& range : rangesStartingIn(*r.store, r.run, {cuts[i], cuts[i + 1]}, &reversed))
            joined.push_back(range);
        EXPECT_FALSE(reversed);
    }
    ASSERT_EQ(joined.size(), all.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
        EXPECT_EQ(joined[i].startNs, all[i].startNs);
        EXPECT_EQ(joined[i].endNs, all[i].endNs);
        EXPECT_EQ(joined[i].threadId, all[i].threadId);
        EXPECT_EQ(joined[i].name, all[i].name);
    }
}

TEST(KernelSummarySliced, SameAsOnePassInAWindow) {
    RichRun r;
    const TimeWindow windows[] = {
        {kSecond + (r.endNs - kSecond) / 4, kSecond + (r.endNs - kSecond) * 3 / 4},
        {kSecond + (r.endNs - kSecond) / 2, std::numeric_limits<std::int64_t>::max()},
    };
    for (const TimeWindow& w : windows) {
        const auto onePass = summarizeRun(*r.store, r.run, w, "part", 1);
        for (unsigned threads : {2u, 4u, 7u}) {
            SCOPED_TRACE(threads);
            auto sliced = summarizeRunSliced(*r.store, r.run, w, "part", threads);
            ASSERT_TRUE(sliced.has_value());
            EXPECT_EQ(dump(*sliced), dump(onePass));
        }
    }
}

// Rows past the exact table's size (a launch call's time over 200 M calls):
// the slices merge them into the one pass's rounded table, the same median;
// only the standard deviation, from Welford terms merged, may differ in its
// last bits.
TEST(KernelSummarySliced, RowsPastTheExactTableStaySliced) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    const RunId run = store.beginRun({});
    // Enough that each of 2 slices rounds its own table midway; each of 5
    // does not, and only their merge does.
    const std::int64_t calls = 2 * stats::Accumulator::kExactDistinct + 40'000;
    {
        StoreWriter w(store, run);
        std::mt19937_64 random(7);
        std::int64_t t = kSecond;
        for (std::int64_t i = 0; i < calls; ++i) {
            t += 3000;
            const auto c = static_cast<std::uint32_t>(i + 1);
            // Every call and every kernel a duration of its own.
            const std::int64_t callNs = 1000 + static_cast<std::int64_t>(random() % 20'000'000);
            w.add(
                ApiCallRecord{t, t + callNs, 1, 1, c, ApiKind::Runtime, 0, "cudaLaunchKernel", 0});
            KernelRecord k;
            k.streamId = 7 + static_cast<std::uint32_t>(i % 4);
            k.name = "_Z1kv";
            k.correlationId = c;
            k.startNs = t + 500;
            k.endNs = k.startNs + 100 + i;
            w.add(k);
        }
    }
    const auto onePass = summarizeRun(store, run, {}, "whole run", 1);
    ASSERT_EQ(onePass.apiCalls.size(), 1u);
    ASSERT_FALSE(onePass.apiCalls[0].time.medianExact);
    ASSERT_FALSE(onePass.kernels.at(0).time.medianExact);
    auto withoutStd = [](RunSummary s) {
        for (auto& k : s.kernels)
            k.time.stdNs = 0;
        for (auto& a : s.apiCalls)
            a.time.stdNs = 0;
        return dump(s);
    };
    for (unsigned threads : {2u, 5u}) {
        SCOPED_TRACE(threads);
        auto sliced = summarizeRunSliced(store, run, {}, "whole run", threads);
        ASSERT_TRUE(sliced.has_value());
        EXPECT_EQ(withoutStd(*sliced), withoutStd(onePass));
        const double apiStd = onePass.apiCalls[0].time.stdNs;
        const double kernelStd = onePass.kernels[0].time.stdNs;
        EXPECT_NEAR(sliced->apiCalls[0].time.stdNs, apiStd, apiStd * 1e-9);
        EXPECT_NEAR(sliced->kernels[0].time.stdNs, kernelStd, kernelStd * 1e-9);
    }
}

// Two processes numbering their calls alike: which call a kernel is credited
// to depends on the order of everything before it, so the one pass decides.
TEST(KernelSummarySliced, SharedCorrelationIdsLeaveItToTheOnePass) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    const RunId run = store.beginRun({});
    {
        StoreWriter w(store, run);
        std::int64_t t = kSecond;
        w.add(RangeRecord{0, 100 * kSecond, 1, 1, "p1", "", RangeKind::PushPop, 0, 0});
        w.add(RangeRecord{0, 100 * kSecond, 2, 2, "p2", "", RangeKind::PushPop, 0, 0});
        for (std::uint32_t i = 1; i <= 20'000; ++i) {
            t += 1000;
            for (std::uint32_t p : {1u, 2u}) {
                w.add(ApiCallRecord{t + p, t + p + 100, p, p, i, ApiKind::Runtime, 0,
                                    "cudaLaunchKernel", 0});
                KernelRecord k;
                k.streamId = 6 + p;
                k.name = "_Z1kv";
                k.correlationId = i;
                k.startNs = t + 500 + p;
                k.endNs = k.startNs + 300;
                w.add(k);
            }
        }
    }
    EXPECT_FALSE(summarizeRunSliced(store, run, {}, "whole run", 4).has_value());
    const auto onePass = summarizeRun(store, run, {}, "whole run", 1);
    EXPECT_EQ(dump(summarizeRun(store, run, {}, "whole run", 4)), dump(onePass));
    // Process 1's calls come first: they take every kernel.
    ASSERT_NE(rangeNamed(onePass, "p1"), nullptr);
    EXPECT_EQ(rangeNamed(onePass, "p1")->inclusiveKernels, 40'000);
}

}  // namespace
}  // namespace ws
