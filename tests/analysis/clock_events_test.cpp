#include "analysis/clock_events.h"

#include <gtest/gtest.h>

namespace ws {
namespace {

SampleRecord sample(std::optional<std::int64_t> reasons) {
    SampleRecord s;
    s.clockEventReasons = reasons;
    return s;
}

TEST(ClockEvents, NamesFollowNvmlBits) {
    EXPECT_EQ(clockEventReasonNames(0), std::vector<std::string>{});
    EXPECT_EQ(clockEventReasonNames(0x1 | 0x4 | 0x40),
              (std::vector<std::string>{"GPU idle", "SW power cap", "HW thermal slowdown"}));
}

TEST(ClockEvents, SharesCountOnlySamplesThatReadTheMask) {
    // 4 samples with the mask (idle twice, power cap once), 1 without.
    auto summary = summarizeClockEvents(
        {sample(0x1), sample(0x1 | 0x4), sample(0), sample(0), sample(std::nullopt)});
    EXPECT_EQ(summary.samplesWithReasons, 4);
    ASSERT_EQ(summary.reasons.size(), 2u);
    EXPECT_EQ(summary.reasons[0].reason, "GPU idle");
    EXPECT_DOUBLE_EQ(summary.reasons[0].sampleFraction, 0.5);
    EXPECT_FALSE(summary.reasons[0].limitsPerformance);
    EXPECT_EQ(summary.reasons[1].reason, "SW power cap");
    EXPECT_DOUBLE_EQ(summary.reasons[1].sampleFraction, 0.25);
    EXPECT_TRUE(summary.throttled());
}

TEST(ClockEvents, IdleAloneIsNotThrottling) {
    auto summary = summarizeClockEvents({sample(0x1), sample(0)});
    EXPECT_FALSE(summary.throttled());
    EXPECT_FALSE(summarizeClockEvents({}).throttled());
    EXPECT_EQ(summarizeClockEvents({sample(std::nullopt)}).samplesWithReasons, 0);
}

}  // namespace
}  // namespace ws
