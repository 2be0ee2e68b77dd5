#include <gtest/gtest.h>

#include "conventions/token_convention.h"

namespace ws {
namespace {

RangeRecord range(std::string name, std::int64_t start, std::int64_t end,
                  RangeKind kind = RangeKind::PushPop) {
    RangeRecord r;
    r.name = std::move(name);
    r.startNs = start;
    r.endNs = end;
    r.kind = kind;
    return r;
}

TEST(TokenConvention, RequestsAndTokensFromNvtx) {
    auto d = deriveTokens({
        range("ws.request:1:prompt=128", 100, 1000), range("ws.token:1", 400, 400, RangeKind::Mark),
        range("ws.token:1", 250, 250, RangeKind::Mark), range("ws.token:1", 600, 610),
        range("decode_step", 200, 300), range("ws.request:2", 150, 900),
        range("ws.token:2", 500, 500, RangeKind::Mark),
        range("ws.token:x", 500, 500, RangeKind::Mark),  // not a request id: ignored
    });
    ASSERT_EQ(d.requests.size(), 2u);
    EXPECT_EQ(d.requests[0].requestId, 1);
    EXPECT_EQ(d.requests[0].startNs, 100);
    EXPECT_EQ(d.requests[0].endNs, 1000);
    EXPECT_EQ(d.requests[0].promptTokens, 128);
    EXPECT_EQ(d.requests[0].outputTokens, 3);
    EXPECT_EQ(d.requests[1].promptTokens, 0);
    EXPECT_EQ(d.requests[1].outputTokens, 1);
    ASSERT_EQ(d.tokens.size(), 4u);
    // Tokens are numbered in time order, whatever order they arrived in.
    EXPECT_EQ(d.tokens[0].timeNs, 250);
    EXPECT_EQ(d.tokens[0].index, 0);
    EXPECT_EQ(d.tokens[2].timeNs, 600);
    EXPECT_EQ(d.tokens[2].index, 2);
}

TEST(TokenConvention, TokensWithoutRequestRangeMakeARequest) {
    auto d = deriveTokens({range("ws.token:5", 10, 10), range("ws.token:5", 30, 30)});
    ASSERT_EQ(d.requests.size(), 1u);
    EXPECT_EQ(d.requests[0].startNs, 10);
    EXPECT_EQ(d.requests[0].endNs, 30);
    EXPECT_EQ(d.requests[0].outputTokens, 2);
}

TEST(TokenConvention, NoConventionNoRequests) {
    auto d = deriveTokens({range("prefill", 0, 10)});
    EXPECT_TRUE(d.requests.empty());
    EXPECT_TRUE(d.tokens.empty());
}

}  // namespace
}  // namespace ws
