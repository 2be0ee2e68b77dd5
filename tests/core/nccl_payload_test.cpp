// NCCL's NVTX payloads: both published layouts give the message size, and
// anything that is not a collective's payload gives nothing.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "model/nccl_payload.h"

namespace ws {
namespace {

// NCCL 2.19–2.2x: the size first, then the reduction op (padded to 16).
struct OlderAllReduce {
    std::size_t bytes;
    int op;
};
// Later NCCL: the communicator hash, the size, the op (24 bytes).
struct LaterAllReduce {
    std::uint64_t comm;
    std::size_t bytes;
    int op;
};

TEST(NcclPayload, BothLayoutsGiveTheMessageSize) {
    OlderAllReduce older{1 << 20, 0};
    ASSERT_EQ(sizeof older, 16u);
    auto a = ncclPayload("ncclAllReduce", &older, sizeof older);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->collective, "AllReduce");
    EXPECT_EQ(a->bytes, 1 << 20);
    EXPECT_EQ(a->communicator, 0u);

    LaterAllReduce later{0x1234abcd5678ef00ull, 4096, 0};
    ASSERT_EQ(sizeof later, 24u);
    auto b = ncclPayload("ncclAllReduce", &later, sizeof later);
    ASSERT_TRUE(b);
    EXPECT_EQ(b->bytes, 4096);
    EXPECT_EQ(b->communicator, 0x1234abcd5678ef00ull);

    // AllGather carries the size alone (8 bytes), or after the hash (16).
    std::size_t gather = 2048;
    auto c = ncclPayload("ncclAllGather", &gather, sizeof gather);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->bytes, 2048);
    std::uint64_t laterGather[2] = {7, 8192};
    auto d = ncclPayload("ncclAllGather", laterGather, sizeof laterGather);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->communicator, 7u);
    EXPECT_EQ(d->bytes, 8192);
}

// Every collective's payload in both layouts (struct padding included).
TEST(NcclPayload, EachCollectivesLayoutsGiveTheSize) {
    struct OlderTwoInts {
        std::size_t bytes;
        int root, op;
    };
    struct LaterTwoInts {
        std::uint64_t comm;
        std::size_t bytes;
        int root, op;
    };
    for (const char* name :
         {"ncclBroadcast", "ncclReduce", "ncclReduceScatter", "ncclSend", "ncclRecv"}) {
        OlderTwoInts older{512, 1, 0};
        LaterTwoInts later{9, 1024, 1, 0};
        auto a = ncclPayload(name, &older, sizeof older);
        auto b = ncclPayload(name, &later, sizeof later);
        ASSERT_TRUE(a && b) << name;
        EXPECT_EQ(a->bytes, 512) << name;
        EXPECT_EQ(b->bytes, 1024) << name;
        EXPECT_EQ(b->communicator, 9u) << name;
    }
}

TEST(NcclPayload, CallNamesGiveTheirCollective) {
    EXPECT_EQ(ncclCallCollective("ncclReduceScatter"), "ReduceScatter");
    EXPECT_EQ(ncclCallCollective("ncclBcast"), "Broadcast");
    EXPECT_EQ(ncclCallCollective("ncclSend"), "Send");
    EXPECT_FALSE(ncclCallCollective("ncclCommInitRank"));
    EXPECT_FALSE(ncclCallCollective("ncclAllReduceX"));
    EXPECT_FALSE(ncclCallCollective(""));
}

TEST(NcclPayload, OtherPayloadsGiveNothing) {
    LaterAllReduce p{1, 4096, 0};
    // Set-up calls carry other schemas of the same sizes.
    EXPECT_FALSE(ncclPayload("ncclCommInitRank", &p, sizeof p));
    EXPECT_FALSE(ncclPayload("ncclAllReduce", &p, 8));  // too short for either layout
    EXPECT_FALSE(ncclPayload("ncclAllReduce", nullptr, 24));
    // A size no message has: a payload of another shape, not a size.
    p.bytes = std::size_t{1} << 60;
    EXPECT_FALSE(ncclPayload("ncclAllReduce", &p, sizeof p));
}

}  // namespace
}  // namespace ws
