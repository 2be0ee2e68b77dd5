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

#include <nlohmann/json.hpp>

#include "capture/pc_sample_buffers.h"
#include "model/pc_sampling.h"
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

// The buffers CUPTI handed the collector on an H100 (the split-KV MMA decode
// attention, 2026-12-08, keep-sampling-buffers.sh) read back to what the same
// run stored for that kernel (`kernel RUN decodeSplitMma --json`): its
// samples, per stall reason and per instruction, counted as the run counts
// them (each reason's …_not_issued twin, a subset, left out).
TEST(PcSampleBuffers, AnH100RecordingReadsBackToWhatItsRunStored) {
    PcSampleTable table;
    PcSamplingTotals totals;
    std::string why;
    ASSERT_TRUE(
        readKeptPcSampling(WARPSCOPE_TEST_DATA_DIR "/pc-sampling-kept.bin", table, totals, why))
        << why;
    std::ifstream in(WARPSCOPE_TEST_DATA_DIR "/pc-sampling-kept.json");
    const auto stored = nlohmann::json::parse(in);
    const std::string function = stored["mangled"];
    std::map<std::string, std::int64_t> byReason;
    std::map<std::uint64_t, std::int64_t> byOffset;
    std::int64_t samples = 0;
    for (const auto& [at, reasons] : table) {
        if (at.function != function) continue;
        for (const auto& [reason, n] : reasons) {
            if (pc_sampling::describeStallReason(reason).notIssued) continue;
            byReason[reason] += n;
            byOffset[at.pcOffset] += n;
            samples += n;
        }
    }
    const auto& pc = stored["pc_sampling"];
    EXPECT_EQ(samples, pc["samples"].get<std::int64_t>());
    EXPECT_EQ(byOffset.size(), pc["sampled_instructions"].get<std::size_t>());
    for (const auto& r : pc["stall_reasons"])
        EXPECT_EQ(byReason[r["reason"].get<std::string>()], r["samples"].get<std::int64_t>())
            << r["reason"];
    ASSERT_FALSE(pc["hot_instructions"].empty());
    for (const auto& i : pc["hot_instructions"])
        EXPECT_EQ(byOffset[i["pc_offset"].get<std::uint64_t>()], i["samples"].get<std::int64_t>())
            << i["pc_offset"];
    EXPECT_FALSE(totals.hardwareBufferFull);
    EXPECT_GE(totals.samples, samples);  // the run's other kernels too
}

}  // namespace
}  // namespace ws::capture
