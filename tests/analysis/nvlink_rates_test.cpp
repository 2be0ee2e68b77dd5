#include "analysis/nvlink_rates.h"

#include <gtest/gtest.h>

namespace ws {
namespace {

SampleRecord sample(std::uint32_t device, std::int64_t timeMs, std::optional<std::int64_t> tx,
                    std::optional<std::int64_t> rx) {
    SampleRecord s;
    s.deviceIndex = device;
    s.timeNs = timeMs * 1'000'000;
    s.nvlinkTxBytes = tx;
    s.nvlinkRxBytes = rx;
    return s;
}

TEST(NvlinkRates, RatesAreDifferencesOverTimePerDevice) {
    // Two GPUs sampled every 50 ms, interleaved as the sampler stores them:
    // GPU 0 sends 5 MB then 10 MB, GPU 1 receives what GPU 0 sent.
    auto rates =
        nvlinkRates({sample(0, 0, 1000, 7), sample(1, 0, 0, 500),
                     sample(0, 50, 1000 + 5'000'000, 7), sample(1, 50, 0, 500 + 5'000'000),
                     sample(0, 100, 1000 + 15'000'000, 7), sample(1, 100, 0, 500 + 15'000'000)});
    ASSERT_EQ(rates.size(), 2u);
    const auto& gpu0 = rates.at(0);
    ASSERT_EQ(gpu0.points.size(), 2u);
    EXPECT_EQ(gpu0.points[0].startNs, 0);  // held from the interval's start
    EXPECT_EQ(gpu0.points[0].endNs, 50'000'000);
    EXPECT_DOUBLE_EQ(gpu0.points[0].txBytesPerS, 100e6);  // 5 MB in 50 ms
    EXPECT_DOUBLE_EQ(gpu0.points[1].txBytesPerS, 200e6);
    EXPECT_DOUBLE_EQ(gpu0.points[1].rxBytesPerS, 0);
    EXPECT_DOUBLE_EQ(gpu0.peakTxBytesPerS, 200e6);
    EXPECT_EQ(gpu0.txBytes, 15'000'000);
    EXPECT_EQ(gpu0.rxBytes, 0);
    EXPECT_DOUBLE_EQ(rates.at(1).peakRxBytesPerS, 200e6);
    EXPECT_EQ(rates.at(1).rxBytes, 15'000'000);
}

TEST(NvlinkRates, DevicesWithoutCountersHaveNoEntry) {
    auto rates = nvlinkRates({sample(0, 0, std::nullopt, std::nullopt),
                              sample(0, 50, std::nullopt, std::nullopt), sample(1, 0, 10, 10),
                              sample(1, 50, 10, std::nullopt)});
    EXPECT_FALSE(rates.count(0));
    ASSERT_TRUE(rates.count(1));  // it reads NVLink, once: no interval yet
    EXPECT_TRUE(rates.at(1).points.empty());
}

TEST(NvlinkRates, ACounterThatWentBackwardsGivesNoPoint) {
    // The driver reloaded between the second and third sample.
    auto rates = nvlinkRates({sample(0, 0, 100, 100), sample(0, 50, 600, 100),
                              sample(0, 100, 50, 10), sample(0, 150, 550, 10)});
    const auto& gpu0 = rates.at(0);
    ASSERT_EQ(gpu0.points.size(), 2u);
    EXPECT_EQ(gpu0.points[1].startNs, 100'000'000);
    EXPECT_EQ(gpu0.txBytes, 1000);
}

SampleRecord utilisation(std::uint32_t device, double percent) {
    SampleRecord s;
    s.deviceIndex = device;
    s.gpuUtilPercent = percent;
    return s;
}

TEST(NvlinkRates, BusyDevicesCountKernelsAndNvlinkTraffic) {
    // GPU 1 computes, GPU 2 only receives peer writes, GPU 0 and 3 idle.
    std::vector<SampleRecord> samples = {utilisation(0, 0), utilisation(1, 80), utilisation(3, 0),
                                         sample(2, 0, 0, 0), sample(2, 50, 0, 4096)};
    EXPECT_EQ(busyDevices(samples, nvlinkRates(samples)), (std::set<std::uint32_t>{1, 2}));
}

TEST(NvlinkRates, AnIdleRunKeepsItsLowestGpu) {
    std::vector<SampleRecord> samples = {utilisation(3, 0), utilisation(2, 0)};
    EXPECT_EQ(busyDevices(samples, nvlinkRates(samples)), (std::set<std::uint32_t>{2}));
    EXPECT_TRUE(busyDevices({}, {}).empty());
}

}  // namespace
}  // namespace ws
