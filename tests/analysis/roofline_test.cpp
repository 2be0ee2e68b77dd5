#include <gtest/gtest.h>

#include "analysis/roofline.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "support/fixture_store.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

TEST(DeviceSpecs, TableLoadsAndMatchesSpecificNamesFirst) {
    ASSERT_GE(deviceSpecs().size(), 6u);
    for (const auto& d : deviceSpecs())
        EXPECT_FALSE(d.source.empty()) << d.name;  // every entry says where it comes from
    EXPECT_EQ(findDeviceSpec("NVIDIA H200")->dramGBs, 4800);
    EXPECT_EQ(findDeviceSpec("NVIDIA H100 PCIe")->dramGBs, 2000);
    EXPECT_EQ(findDeviceSpec("NVIDIA H100 80GB HBM3")->dramGBs, 3350);
    EXPECT_EQ(findDeviceSpec("NVIDIA A100-SXM4-80GB")->bf16TensorTflops, 312);
    EXPECT_EQ(findDeviceSpec("NVIDIA GeForce GTX 750"), nullptr);
    EXPECT_THROW(parseDeviceSpecs(R"({"devices":[{"name":"x"}]})"), std::runtime_error);
}

TEST(RooflineCeilings, RidgeAndAttainable) {
    RooflineCeilings c;
    c.dramGBs = 4000;
    c.tensorTflops = 800;
    EXPECT_DOUBLE_EQ(c.ridge(), 200);
    EXPECT_DOUBLE_EQ(c.attainableTflops(1), 4);  // memory-bound: 4 TB/s × 1 FLOP/B
    EXPECT_DOUBLE_EQ(c.attainableTflops(1000), 800);
}

// A kernel-ladder run: two rungs in their declared-cost ranges, kernels inside.
TEST(Roofline, DeclaredPointsMeasuredCeilingsAndNotes) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto run = store.beginRun({});
    store.setDevice(run, testing::fixtureDevice());
    {
        StoreWriter w(store, run);
        auto kernel = [&](std::int64_t start, std::int64_t dur) {
            KernelRecord k;
            k.startNs = start;
            k.endNs = start + dur;
            k.name = "k";
            w.add(k);
        };
        w.add(RangeRecord{0, 1000, 1, 1, "gemm_bf16/naive flops=2e9 bytes=1e8", "",
                          RangeKind::PushPop, 0, 0});
        kernel(10, 400);
        kernel(500, 400);
        w.add(RangeRecord{2000, 2300, 1, 1, "gemm_bf16/mma flops=2e9 bytes=1e8", "",
                          RangeKind::PushPop, 0, 0});
        kernel(2010, 100);
        kernel(2150, 100);
        kernel(2400, 100);  // after the range: not this rung's
        w.add(RangeRecord{3000, 3100, 1, 1, "verify gemm_bf16/mma", "", RangeKind::PushPop, 0, 0});
    }
    auto r = computeRoofline(store, run);
    // No measured ceilings in the run: the H200 datasheet.
    EXPECT_EQ(r.ceilings.dramGBs, 4800);
    EXPECT_NE(r.ceilings.tensorSource.find("datasheet"), std::string::npos);
    ASSERT_EQ(r.points.size(), 2u);
    EXPECT_EQ(r.points[0].name, "gemm_bf16/naive");  // most total time first
    EXPECT_EQ(r.points[0].instances, 2);
    EXPECT_DOUBLE_EQ(r.points[0].meanNs, 400);
    EXPECT_DOUBLE_EQ(r.points[0].intensity(), 20);
    EXPECT_DOUBLE_EQ(r.points[0].tflops(), 5000);  // 2 GFLOP in 400 ns
    EXPECT_DOUBLE_EQ(r.points[1].meanNs, 100);
    EXPECT_DOUBLE_EQ(r.points[0].timeShare, 0.8);

    store.setProperty(run, "ceiling.copy_gbs", "4200.5");
    store.setProperty(run, "ceiling.bf16_tflops", "780");
    auto measured = computeRoofline(store, run);
    EXPECT_EQ(measured.ceilings.dramGBs, 4200.5);
    EXPECT_EQ(measured.ceilings.tensorTflops, 780);
    EXPECT_NE(measured.ceilings.dramSource.find("measured"), std::string::npos);
}

TEST(Roofline, HugeAndMalformedRangeNamesAreNotDeclaredWork) {
    // A 50,000-character range name once overflowed the stack in std::regex_match.
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto run = store.beginRun({});
    {
        StoreWriter w(store, run);
        auto range = [&](std::string name) {
            w.add(RangeRecord{0, 1000, 1, 1, std::move(name), "", RangeKind::PushPop, 0, 0});
        };
        range(std::string(50'000, 'a') + "/b flops=1 bytes=1");  // long but well formed
        range("x/" + std::string(50'000, ' ') + " flops=1 bytes=1");
        range("a/b flops=nan bytes=1");
        range("a/b flops=1 bytes=1e400");
        range("/b flops=1 bytes=1");
        range("ab flops=1 bytes=1");
        KernelRecord k;
        k.startNs = 10;
        k.endNs = 500;
        k.name = "k";
        w.add(k);
    }
    auto r = computeRoofline(store, run);
    ASSERT_EQ(r.points.size(), 1u);
    EXPECT_EQ(r.points[0].name.size(), 50'002u);
}

TEST(Roofline, DecoderPhasesFromTheModelAndEmptyRunsSayWhy) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto run = store.beginRun({});
    {
        StoreWriter w(store, run);
        w.add(RangeRecord{0, 10'000'000, 1, 1, "prefill", "", RangeKind::PushPop, 0, 0});
        w.add(RangeRecord{20'000'000, 21'000'000, 1, 1, "decode step 1", "", RangeKind::PushPop, 0,
                          1});
        w.add(RangeRecord{21'000'000, 23'000'000, 1, 1, "decode step 2", "", RangeKind::PushPop, 0,
                          1});
    }
    store.setProperty(run, "decoder.prefill_flops", "1e12");
    store.setProperty(run, "model.weight_bytes", "2e9");
    store.setProperty(run, "decoder.decode_step_flops", "2.4e9");
    store.setProperty(run, "decoder.decode_step_bytes", "2.5e9");
    auto r = computeRoofline(store, run);
    ASSERT_EQ(r.points.size(), 2u);
    EXPECT_EQ(r.points[0].name, "prefill");
    EXPECT_DOUBLE_EQ(r.points[0].tflops(), 100);  // 1e12 FLOP in 10 ms
    EXPECT_EQ(r.points[1].name, "decode step");
    EXPECT_DOUBLE_EQ(r.points[1].meanNs, 1.5e6);
    EXPECT_FALSE(r.ceilings.known());  // no device, nothing measured
    EXPECT_FALSE(r.notes.empty());

    auto empty = store.beginRun({});
    auto e = computeRoofline(store, empty);
    EXPECT_TRUE(e.points.empty());
    EXPECT_EQ(e.notes.size(), 2u);
}

}  // namespace
}  // namespace ws
