// NCCL collectives across ranks: names recognised, instances matched by
// order per channel, skews and waits from records with known arrivals.
#include <gtest/gtest.h>

#include "analysis/collectives.h"
#include "model/process_keys.h"
#include "store/store.h"
#include "support/distributed_run.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

TEST(Collectives, NcclKernelNamesGiveTheirCollective) {
    EXPECT_EQ(ncclCollective("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned "
                             "long, ncclWork*)"),
              "AllReduce");
    EXPECT_EQ(ncclCollective("ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, ncclWork*)"),
              "AllGather");
    EXPECT_EQ(
        ncclCollective("_Z44ncclDevKernel_ReduceScatter_Sum_f32_RING_LLP11ncclDevCommmP8ncclWork"),
        "ReduceScatter");
    EXPECT_EQ(ncclCollective("ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)"),
              "SendRecv");
    EXPECT_EQ(ncclCollective("ncclDevKernel_Generic(ncclDevComm*, unsigned long, ncclWork*)"),
              "NCCL");
    EXPECT_FALSE(ncclCollective("gemv_bf16_splitk<4, 256>"));
    EXPECT_FALSE(ncclCollective("ncclDevKernel_"));
    EXPECT_FALSE(ncclCollective("my_nccl_wrapper"));
}

// `n` AllReduce kernels 1 ms apart on `stream`; rank `late` starts 400 µs
// after the other in every instance whose index is not a multiple of 4.
std::vector<RankKernels> twoRanks(int n) {
    std::vector<RankKernels> ranks(2);
    for (int r = 0; r < 2; ++r) {
        ranks[static_cast<std::size_t>(r)].pid = 900 + static_cast<std::uint32_t>(r);
        ranks[static_cast<std::size_t>(r)].rank = r;
        ranks[static_cast<std::size_t>(r)].kernels = 2 * n;
        ranks[static_cast<std::size_t>(r)].kernelNs = 0;
    }
    for (int i = 0; i < n; ++i)
        for (int r = 0; r < 2; ++r) {
            const bool rank1Late = i % 4 != 0;
            const std::int64_t lateness = (r == 1) == rank1Late ? 400'000 : 0;
            const std::int64_t start = 1'000'000LL * i + lateness;
            const std::int64_t end = 1'000'000LL * i + 500'000;  // all leave together
            auto& rk = ranks[static_cast<std::size_t>(r)];
            rk.nccl.push_back({7u + static_cast<std::uint32_t>(r), start, end, "AllReduce"});
            rk.kernelNs += (end - start) + 300'000;  // and a 300 µs compute kernel
        }
    return ranks;
}

TEST(Collectives, KnownSkewsGiveTheirWaitsAndWhoCameLast) {
    auto report = matchCollectives(twoRanks(20));
    ASSERT_EQ(report.instances.size(), 20u);
    EXPECT_EQ(report.unmatchedKernels, 0);
    EXPECT_TRUE(report.notes.empty());
    for (const auto& inst : report.instances) {
        EXPECT_EQ(inst.collective, "AllReduce");
        EXPECT_EQ(inst.skewNs(), 400'000);
        EXPECT_EQ(inst.lastRank, inst.index % 4 != 0 ? 1 : 0);
    }
    ASSERT_EQ(report.ranks.size(), 2u);
    EXPECT_EQ(report.ranks[1].lastArrivals, 15);
    EXPECT_EQ(report.ranks[0].lastArrivals, 5);
    // Rank 0 waited 400 µs in the 15 where rank 1 was late, and so on.
    EXPECT_EQ(report.ranks[0].waitNs, 15 * 400'000);
    EXPECT_EQ(report.ranks[1].waitNs, 5 * 400'000);
    EXPECT_EQ(report.ranks[0].matched, 20);
    ASSERT_EQ(report.kinds.size(), 1u);
    const auto& k = report.kinds[0];
    EXPECT_EQ(k.instances, 20);
    EXPECT_EQ(k.skewP50Ns, 400'000);
    EXPECT_EQ(k.skewMaxNs, 400'000);
    EXPECT_EQ(k.mostOftenLast, 1);
    EXPECT_EQ(k.mostOftenLastCount, 15);
    ASSERT_FALSE(report.findings.empty());
    EXPECT_NE(report.findings[0].find("rank 1 arrives last in 75 % of AllReduce (20)"),
              std::string::npos)
        << report.findings[0];
}

TEST(Collectives, DifferingKernelsStopTheMatchingAndExtraOnesAreCounted) {
    auto ranks = twoRanks(10);
    ranks[1].nccl[6].collective = "AllGather";  // rank 1's 7th differs
    auto report = matchCollectives(ranks);
    EXPECT_EQ(report.instances.size(), 6u);
    EXPECT_EQ(report.unmatchedKernels, 8);  // 4 left on each rank
    ASSERT_EQ(report.notes.size(), 1u);
    EXPECT_NE(report.notes[0].find("NCCL kernel #7 differs"), std::string::npos) << report.notes[0];

    auto uneven = twoRanks(10);
    uneven[0].nccl.push_back({7, 20'000'000, 20'100'000, "AllReduce"});
    auto r2 = matchCollectives(uneven);
    EXPECT_EQ(r2.instances.size(), 10u);
    EXPECT_EQ(r2.unmatchedKernels, 1);
    ASSERT_EQ(r2.notes.size(), 1u);
    EXPECT_NE(r2.notes[0].find("rank 0 ran 11 NCCL kernels, matched 10"), std::string::npos)
        << r2.notes[0];
}

// Two processes on one GPU (torchrun --nproc-per-node 2 on one device): the
// ranks come from their environment, not their pid order.
TEST(Collectives, AStoredRunNamesRanksFromTheirEnvironment) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    testing::TwoRankRun shape;
    shape.collectives = 12;
    shape.lateNs = 50'000;
    shape.latePid = [](int) { return 901u; };  // pid 901 is 50 µs late every time
    shape.rankOf900 = 1;                       // and rank 0
    shape.withGemm = true;
    const RunId run = testing::writeTwoRankRun(store, shape);
    auto report = analyzeCollectives(store, run);
    ASSERT_EQ(report.ranks.size(), 2u);
    EXPECT_EQ(report.ranks[0].pid, 901u);
    EXPECT_EQ(report.ranks[0].rank, 0);
    EXPECT_TRUE(report.ranks[0].rankFromEnvironment);
    EXPECT_EQ(report.ranks[0].ncclKernels, 12);
    EXPECT_EQ(report.ranks[0].kernels, 24);
    // NCCL 350 µs + GEMM 500 µs on the late rank, 400 + 500 on the other.
    EXPECT_NEAR(report.ranks[0].commShare, 350.0 / 850.0, 1e-9);
    EXPECT_NEAR(report.ranks[1].commShare, 400.0 / 900.0, 1e-9);
    ASSERT_EQ(report.instances.size(), 12u);
    for (const auto& inst : report.instances) {
        EXPECT_EQ(inst.skewNs(), 50'000);
        EXPECT_EQ(inst.lastRank, 0);  // pid 901
    }
    EXPECT_TRUE(report.notes.empty());
    ASSERT_FALSE(report.findings.empty());
    EXPECT_NE(report.findings[0].find("rank 0 arrives last in 100 % of AllReduce (12)"),
              std::string::npos)
        << report.findings[0];
}

// A rank killed mid-run: its kernels up to then are matched, the peer's
// later ones are not, and the report says which rank ended how.
TEST(Collectives, ARankThatDiedIsNamedAndItsPeersLaterKernelsStayUnmatched) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    const RunId run = testing::writeTwoRankRun(store);  // 16 on each rank
    store.setProperty(run, process_keys::end(900), "exited");
    store.setProperty(run, process_keys::end(901), "lost");
    auto full = analyzeCollectives(store, run);
    ASSERT_EQ(full.ranks.size(), 2u);
    EXPECT_EQ(full.ranks[0].end, "exited");
    EXPECT_EQ(full.ranks[1].end, "lost");
    bool named = false;
    for (const auto& f : full.findings)
        named = named || f.find("rank 1 (pid 901) ended without flushing") != std::string::npos;
    EXPECT_TRUE(named);
    // Its last 6 kernels never arrived: a window over the first 10 rounds of
    // rank 1 and all 16 of rank 0 is what the matching sees when it died.
    auto report = matchCollectives([&] {
        std::vector<RankKernels> ranks(2);
        for (int r = 0; r < 2; ++r) {
            ranks[static_cast<std::size_t>(r)].rank = r;
            for (int i = 0; i < (r == 1 ? 10 : 16); ++i)
                ranks[static_cast<std::size_t>(r)].nccl.push_back(
                    {7, 1'000'000LL * i, 1'000'000LL * i + 100, "AllReduce"});
        }
        ranks[1].end = "lost";
        return ranks;
    }());
    EXPECT_EQ(report.instances.size(), 10u);
    EXPECT_EQ(report.unmatchedKernels, 6);
}

// NCCL's message sizes (from its NVTX payloads) reach the kernels its calls
// launched: through the launch call made on the NCCL call's thread while it
// ran. A kernel launched after its call returned has no size.
TEST(Collectives, MessageSizesReachTheKernelsTheirCallsLaunched) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    testing::TwoRankRun shape;
    shape.collectives = 8;
    shape.lateNs = 300'000;  // every all-reduce moves its data in the last 100 µs
    shape.messageBytes = 16 << 20;
    const RunId run = testing::writeTwoRankRun(store, shape);
    auto report = analyzeCollectives(store, run);
    ASSERT_EQ(report.ranks.size(), 2u);
    for (const auto& r : report.ranks) {
        EXPECT_EQ(r.sizedKernels, 7);
        EXPECT_EQ(r.ncclBytes, 7LL * (16 << 20));
    }
    EXPECT_EQ(report.unsizedKernels, 2);
    ASSERT_EQ(report.instances.size(), 8u);
    EXPECT_EQ(report.instances[0].bytes, 16 << 20);
    EXPECT_EQ(report.instances[0].ranks, 2);
    EXPECT_EQ(report.instances[0].transferNs(), 100'000);
    EXPECT_EQ(report.instances[7].bytes, -1);
    ASSERT_EQ(report.kinds.size(), 1u);
    EXPECT_EQ(report.kinds[0].sizedInstances, 7);
    EXPECT_EQ(report.kinds[0].bytes, 7LL * (16 << 20));
    // Two ranks: an all-reduce puts 2(n-1)/n = 1 times its size on the bus.
    EXPECT_NEAR(report.kinds[0].busBandwidthGBs, (16 << 20) / 100'000.0, 1e-9);
    // A window over the last two rounds: round 6's kernels sized, round 7's not.
    auto late = analyzeCollectives(
        store, run, {testing::kTwoRankStartNs + 6'000'000, testing::kTwoRankStartNs + 8'000'000});
    ASSERT_EQ(late.ranks.size(), 2u);
    EXPECT_EQ(late.ranks[0].sizedKernels, 1);
    EXPECT_EQ(late.ranks[0].ncclBytes, 16 << 20);
    EXPECT_EQ(late.unsizedKernels, 2);
}

// Bus bandwidth counts the ranks on the call's communicator, where NCCL says
// which one it is; without a communicator, the ranks taking part.
TEST(Collectives, BusBandwidthCountsTheCommunicatorsRanks) {
    auto ranks = [](int communicatorRanks) {
        std::vector<RankKernels> out(4);
        for (int r = 0; r < 4; ++r) {
            out[static_cast<std::size_t>(r)].rank = r;
            for (int i = 0; i < 10; ++i)  // each moves its 1000 bytes in the last 100 ns
                out[static_cast<std::size_t>(r)].nccl.push_back(
                    {7, 1000LL * i + r, 1000LL * i + 103, "AllReduce", 1000, communicatorRanks});
        }
        return out;
    };
    auto four = matchCollectives(ranks(0));
    ASSERT_EQ(four.kinds.size(), 1u);
    EXPECT_EQ(four.kinds[0].sizedInstances, 10);
    EXPECT_NEAR(four.kinds[0].busBandwidthGBs, 1000 * 1.5 / 100, 1e-9);  // 2(4-1)/4
    // The same four recorded, their communicator spanning eight ranks.
    auto eight = matchCollectives(ranks(8));
    EXPECT_NEAR(eight.kinds[0].busBandwidthGBs, 1000 * 1.75 / 100, 1e-9);
}

TEST(Collectives, BusBytesFollowNcclTestsConventions) {
    EXPECT_DOUBLE_EQ(busBytes("AllReduce", 1000, 4), 1500);  // 2(n-1)/n
    EXPECT_DOUBLE_EQ(busBytes("AllReduce", 1000, 1), 0);
    EXPECT_DOUBLE_EQ(busBytes("AllGather", 1000, 4), 3000);  // per-rank size, (n-1) of them
    EXPECT_DOUBLE_EQ(busBytes("ReduceScatter", 1000, 8), 7000);
    EXPECT_DOUBLE_EQ(busBytes("Broadcast", 1000, 8), 1000);
    EXPECT_DOUBLE_EQ(busBytes("SendRecv", 1000, 2), 1000);
    EXPECT_DOUBLE_EQ(busBytes("NCCL", 1000, 2), 0);  // the generic kernel: no convention
    EXPECT_DOUBLE_EQ(busBytes("AllReduce", -1, 2), 0);
}

TEST(Collectives, ARunWithoutNcclSaysSo) {
    auto report = matchCollectives({});
    EXPECT_TRUE(report.instances.empty());
    ASSERT_EQ(report.notes.size(), 1u);
    EXPECT_EQ(report.notes[0], "no NCCL kernels in the run");
}

}  // namespace
}  // namespace ws
