// PM sampling's images evaluated on the host, without a GPU: CUPTI's host
// API set up for a chip from its name alone, and the file
// WARPSCOPE_GPU_METRICS_KEEP keeps read back. An image recorded on an H100
// (tests/data/gpu-metrics-kept.pmkeep, scripts/gpu/keep-sampling-buffers.sh)
// is evaluated here against what the live sampler made of it.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "capture/pm_image.h"
#include "model/gpu_metrics.h"
#include "support/temp_dir.h"

namespace ws::capture {
namespace {

TEST(PmImage, TheHostApiTakesTheDefaultMetricsForAChipWithoutAGpu) {
    // NVLink's counters are left out: GH100's PCIe parts lack them.
    std::vector<std::string> metrics;
    for (const auto& m : gpu_metrics::kDefault)
        if (!m.cupti.starts_with("nvl")) metrics.emplace_back(m.cupti);
    std::vector<const char*> names;
    for (const auto& m : metrics)
        names.push_back(m.c_str());
    std::vector<std::uint8_t> availability, config;
    std::string why;
    auto* host = pmHostWith("GH100", availability, names, config, why);
    ASSERT_TRUE(host) << why;
    EXPECT_FALSE(config.empty());
    pmHostRelease(host);
    const std::vector<const char*> unknown{"sm__no_such_counter.avg"};
    EXPECT_FALSE(pmHostWith("GH100", availability, unknown, config, why));
    EXPECT_NE(why.find("not a PM-sampling metric of GH100"), std::string::npos) << why;
}

TEST(PmImage, AKeptFileReadsBackAndADamagedOneIsSaidSo) {
    testing::TempDir dir;
    const auto path = dir.file("gpu0.pmkeep");
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_TRUE(f);
    keepPmHeader(f, "GH100", {1, 2, 3}, {"sm__a", "dram__b"});
    keepPmImage(f, {9, 9, 9, 9}, {{100, 200, {50.0, 1.5e12}}, {200, 300, {60.0, 2.5e12}}});
    std::fclose(f);
    KeptPm kept;
    std::string why;
    ASSERT_TRUE(readKeptPm(path, kept, why)) << why;
    EXPECT_EQ(kept.chip, "GH100");
    EXPECT_EQ(kept.availability, (std::vector<std::uint8_t>{1, 2, 3}));
    EXPECT_EQ(kept.metrics, (std::vector<std::string>{"sm__a", "dram__b"}));
    ASSERT_EQ(kept.images.size(), 1u);
    EXPECT_EQ(kept.images[0].image.size(), 4u);
    ASSERT_EQ(kept.images[0].live.size(), 2u);
    EXPECT_EQ(kept.images[0].live[1].startNs, 200u);
    EXPECT_DOUBLE_EQ(kept.images[0].live[1].values[1], 2.5e12);

    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    testing::writeFile(path, bytes.substr(0, bytes.size() - 3));
    KeptPm cut;
    EXPECT_FALSE(readKeptPm(path, cut, why));
    EXPECT_NE(why.find("a sample cut short at byte"), std::string::npos) << why;
    testing::writeFile(path, "WSPCKEEP1");
    EXPECT_FALSE(readKeptPm(path, cut, why));
    EXPECT_NE(why.find("not a kept PM-sampling file"), std::string::npos) << why;
}

// Images CUPTI decoded on an H100 at the start of a cuBLAS GEMM program
// (scripts/gpu/keep-sampling-buffers.sh, 2026-12-07): the operands' upload,
// PCIe and L2 traffic before the GEMMs ran. Evaluated here with no GPU, every
// value of every sample comes out as the live sampler made it, and within
// what the hardware can do. (The samples' count and times need the live
// sampler, so the file carries them.)
TEST(PmImage, ImagesRecordedOnAnH100EvaluateWithoutAGpuAsTheyDidLive) {
    KeptPm kept;
    std::string why;
    ASSERT_TRUE(readKeptPm(WARPSCOPE_TEST_DATA_DIR "/gpu-metrics-kept.pmkeep", kept, why)) << why;
    EXPECT_EQ(kept.chip, "GH100");
    ASSERT_FALSE(kept.images.empty());
    std::vector<const char*> names;
    for (const auto& m : kept.metrics)
        names.push_back(m.c_str());
    std::vector<std::uint8_t> config;
    auto* host = pmHostWith(kept.chip, kept.availability, names, config, why);
    ASSERT_TRUE(host) << why;
    std::size_t compared = 0, traffic = 0;
    std::vector<double> values;
    for (const auto& image : kept.images) {
        ASSERT_FALSE(image.live.empty());
        for (std::size_t i = 0; i < image.live.size(); ++i) {
            ASSERT_TRUE(evaluatePmSample(host, image.image, names, i, values)) << i;
            for (std::size_t m = 0; m < names.size(); ++m) {
                EXPECT_DOUBLE_EQ(values[m], image.live[i].values[m]) << names[m] << " " << i;
                EXPECT_GE(values[m], 0.0) << names[m];
                const std::string_view name = names[m];
                if (name.ends_with("pct_of_peak_sustained_elapsed")) {
                    EXPECT_LE(values[m], 100.5) << names[m];
                }
                if (name.ends_with("per_second")) {
                    // Under the fastest GH100's HBM (H200: 4.8 TB/s).
                    EXPECT_LE(values[m], 5e12) << names[m];
                    if (values[m] > 0) ++traffic;
                }
            }
            ++compared;
        }
    }
    pmHostRelease(host);
    EXPECT_GE(compared, 50u);
    EXPECT_GE(traffic, 50u);  // the upload moved bytes in most samples
}

}  // namespace
}  // namespace ws::capture
