// Streams of several processes in one run: a parent and a spawned worker on
// one GPU both have a CUDA stream 7, and their kernels must not share a lane.
#include <gtest/gtest.h>

#include <set>

#include "conventions/stream_assigner.h"

namespace ws {
namespace {

TEST(StreamAssigner, AStreamIdUsedByAnotherProcessGetsAFreshOne) {
    StreamAssigner a;
    std::optional<GpuStreamRecord> fresh;
    EXPECT_EQ(a.assign(100, 0, 7, fresh), 7u);  // first user keeps CUDA's id
    ASSERT_TRUE(fresh);
    EXPECT_EQ(fresh->processId, 100u);
    EXPECT_EQ(fresh->cudaStreamId, 7u);

    const std::uint32_t worker = a.assign(200, 0, 7, fresh);
    EXPECT_NE(worker, 7u);
    EXPECT_EQ(worker & 0xffffffu, 7u);  // CUDA's id still in the low bits
    ASSERT_TRUE(fresh);
    EXPECT_EQ(fresh->streamId, worker);
    EXPECT_EQ(fresh->processId, 200u);
    EXPECT_EQ(fresh->cudaStreamId, 7u);

    EXPECT_EQ(a.assign(100, 0, 7, fresh), 7u);  // known: the same id, nothing new
    EXPECT_FALSE(fresh);
    EXPECT_EQ(a.assign(200, 0, 7, fresh), worker);
    EXPECT_FALSE(fresh);
    EXPECT_EQ(a.assign(200, 1, 7, fresh), 7u);  // another GPU: no clash
    EXPECT_TRUE(fresh);
    const std::uint32_t third = a.assign(300, 0, 7, fresh);
    EXPECT_NE(third, 7u);
    EXPECT_NE(third, worker);
}

TEST(StreamAssigner, ManyProcessesOnOneStreamIdStayApart) {
    StreamAssigner a;
    std::optional<GpuStreamRecord> fresh;
    std::set<std::uint32_t> ids;
    for (std::uint32_t pid = 1; pid <= 300; ++pid)
        ids.insert(a.assign(pid, 0, 13, fresh));
    EXPECT_EQ(ids.size(), 300u);
}

}  // namespace
}  // namespace ws
