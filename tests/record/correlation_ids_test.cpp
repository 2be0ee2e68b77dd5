// Correlation ids of several processes in one run: a parent and its workers
// each number their launch calls from 1, and a kernel must find its own
// process's call.
#include <gtest/gtest.h>

#include <set>

#include "conventions/correlation_ids.h"

namespace ws {
namespace {

constexpr std::uint32_t kTop = 0xFFFFFFFFu;

TEST(CorrelationIds, TheFirstProcessKeepsItsIdsLaterOnesCountDownFromTheTop) {
    CorrelationIds ids;
    EXPECT_EQ(ids.of(100, 1), 1u);
    EXPECT_EQ(ids.of(100, 7), 7u);
    EXPECT_EQ(ids.of(200, 1), kTop - 1);
    EXPECT_EQ(ids.of(200, 7), kTop - 7);
    EXPECT_EQ(ids.of(300, 1), kTop - CorrelationIds::kBlock - 1);
    EXPECT_EQ(ids.of(100, 1), 1u);  // the same id of the same process: the same
    EXPECT_EQ(ids.of(200, 0), 0u);  // no correlation stays none
    EXPECT_EQ(ids.of(0, 5), 5u);    // a record before its process said hello
    EXPECT_FALSE(ids.anyUnseparated());
}

TEST(CorrelationIds, SixteenProcessesLaunchingTheSameIdsStoreThemAllApart) {
    CorrelationIds ids;
    std::set<std::uint32_t> stored;
    for (std::uint32_t pid = 1; pid <= 1 + CorrelationIds::kBlocks; ++pid)
        for (std::uint32_t id : {1u, 2u, CorrelationIds::kBlock - 1})
            EXPECT_TRUE(stored.insert(ids.of(pid, id)).second) << pid << " " << id;
    EXPECT_FALSE(ids.anyUnseparated());
}

TEST(CorrelationIds, WhatCannotBeKeptApartIsReportedOnceAProcess) {
    CorrelationIds ids;
    for (std::uint32_t pid = 1; pid <= 1 + CorrelationIds::kBlocks; ++pid)
        ids.of(pid, 1);
    // A 17th process keeps CUDA's ids.
    EXPECT_EQ(ids.of(999, 3), 3u);
    EXPECT_EQ(ids.of(999, 4), 4u);
    // A later process past its block's 2^28 ids.
    EXPECT_EQ(ids.of(2, CorrelationIds::kBlock), CorrelationIds::kBlock);
    // The first process into the lowest block handed out.
    const std::uint32_t lowest = kTop - CorrelationIds::kBlocks * CorrelationIds::kBlock + 1;
    EXPECT_EQ(ids.of(1, lowest - 1), lowest - 1);  // still below it: fine
    EXPECT_EQ(ids.takeUnseparated(), (std::vector<std::uint32_t>{999, 2}));
    ids.of(1, lowest);
    ids.of(999, 5);
    EXPECT_EQ(ids.takeUnseparated(), (std::vector<std::uint32_t>{1}));
    EXPECT_FALSE(ids.anyUnseparated());
}

}  // namespace
}  // namespace ws
