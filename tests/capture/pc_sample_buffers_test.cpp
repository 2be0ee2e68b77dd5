// CUPTI's PC-sampling buffers read into samples per instruction and stall
// reason, and the file WARPSCOPE_PC_SAMPLING_KEEP keeps of them read back
// through the same code: a buffer built here, and one recorded on an H100
// (tests/data/pc-sampling-kept.bin, scripts/gpu/pc-sampling-check.sh) against
// what the same run stored.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "capture/pc_sample_buffers.h"
#include "support/temp_dir.h"

namespace ws::capture {
namespace {

// A buffer as cuptiPCSamplingGetData fills it: two PCs of one kernel.
struct Buffer {
    std::string name = "_Z6decodePf";
    std::vector<CUpti_PCSamplingStallReason> first{{7, 600}, {9, 0}, {3, 40}};
    std::vector<CUpti_PCSamplingStallReason> second{{7, 5}, {42, 2}};
    std::vector<CUpti_PCSamplingPCData> pcs{2};
    CUpti_PCSamplingData data{};
    Buffer() {
        pcs[0].cubinCrc = 0xabc;
        pcs[0].pcOffset = 0x1a0;
        pcs[0].functionName = name.data();
        pcs[0].stallReasonCount = first.size();
        pcs[0].stallReason = first.data();
        pcs[1] = pcs[0];
        pcs[1].pcOffset = 0x1b0;
        pcs[1].stallReasonCount = second.size();
        pcs[1].stallReason = second.data();
        data.size = sizeof data;
        data.collectNumPcs = 10;  // room for ten, two filled
        data.totalNumPcs = 2;
        data.totalSamples = 700;
        data.droppedSamples = 3;
        data.nonUsrKernelsTotalSamples = 50;
        data.pPcData = pcs.data();
    }
};

const std::map<std::uint32_t, std::string> kReasons{
    {3, "smsp__pcsamp_warps_issue_stalled_selected"},
    {7, "smsp__pcsamp_warps_issue_stalled_long_scoreboard"},
    {9, "smsp__pcsamp_warps_issue_stalled_barrier"}};

TEST(PcSampleBuffers, ABufferSumsPerInstructionAndNamedReason) {
    Buffer b;
    PcSampleTable table;
    PcSamplingTotals totals;
    absorbPcSamplingData(b.data, kReasons, table, totals);
    absorbPcSamplingData(b.data, kReasons, table, totals);  // a second drain adds up
    ASSERT_EQ(table.size(), 2u);
    const auto& at1a0 = table.at({"_Z6decodePf", 0xabc, 0x1a0});
    EXPECT_EQ(at1a0.at("smsp__pcsamp_warps_issue_stalled_long_scoreboard"), 1200);
    EXPECT_EQ(at1a0.at("smsp__pcsamp_warps_issue_stalled_selected"), 80);
    EXPECT_EQ(at1a0.count("smsp__pcsamp_warps_issue_stalled_barrier"), 0u);  // zero samples
    EXPECT_EQ(table.at({"_Z6decodePf", 0xabc, 0x1b0}).at("stall reason 42"), 4);
    EXPECT_EQ(totals.samples, 1400);
    EXPECT_EQ(totals.droppedSamples, 6);
    EXPECT_EQ(totals.nonUserSamples, 100);
    EXPECT_FALSE(totals.hardwareBufferFull);
}

TEST(PcSampleBuffers, AKeptFileReadsBackAsTheBuffersDid) {
    testing::TempDir dir;
    const auto path = dir.file("kept.bin");
    Buffer b;
    b.data.hardwareBufferFull = 1;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_TRUE(f);
    keepStallReasons(f, kReasons);
    keepPcSamplingData(f, b.data);
    keepPcSamplingData(f, b.data);
    std::fclose(f);
    PcSampleTable direct, read;
    PcSamplingTotals directTotals, readTotals;
    absorbPcSamplingData(b.data, kReasons, direct, directTotals);
    absorbPcSamplingData(b.data, kReasons, direct, directTotals);
    std::string why;
    ASSERT_TRUE(readKeptPcSampling(path, read, readTotals, why)) << why;
    EXPECT_EQ(read, direct);
    EXPECT_EQ(readTotals.samples, directTotals.samples);
    EXPECT_EQ(readTotals.droppedSamples, directTotals.droppedSamples);
    EXPECT_TRUE(readTotals.hardwareBufferFull);

    // Cut short, or not such a file: said with the byte, nothing thrown.
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    testing::writeFile(path, bytes.substr(0, bytes.size() - 5));
    EXPECT_FALSE(readKeptPcSampling(path, read, readTotals, why));
    EXPECT_NE(why.find("cut short at byte"), std::string::npos) << why;
    testing::writeFile(path, "{\"traceEvents\": []}");
    EXPECT_FALSE(readKeptPcSampling(path, read, readTotals, why));
    EXPECT_NE(why.find("not a kept PC-sampling file"), std::string::npos) << why;
    EXPECT_FALSE(readKeptPcSampling(dir.file("absent.bin"), read, readTotals, why));
    // A header claiming millions of PCs in a few bytes: refused before
    // anything is allocated for them.
    std::string forged = "WSPCKEEP1B";
    forged += std::string(3 * 8 + 1, '\0');
    const std::uint64_t claimed = std::uint64_t{1} << 23;
    forged.append(reinterpret_cast<const char*>(&claimed), sizeof claimed);
    testing::writeFile(path, forged);
    EXPECT_FALSE(readKeptPcSampling(path, read, readTotals, why));
    EXPECT_NE(why.find("a buffer's header cut short"), std::string::npos) << why;
}

}  // namespace
}  // namespace ws::capture
