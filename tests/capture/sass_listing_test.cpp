// nvdisasm's listing read back per function and offset, and nvdisasm run as
// a process over a cubin. The GPU machine's own nvdisasm listing of the
// built-in decode attention is checked in CaptureGpu; here a listing in its
// format, and a stand-in program where nvdisasm would be (this machine has
// no CUDA disassembler).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "capture/sass_listing.h"
#include "support/temp_dir.h"

namespace ws::capture {
namespace {

constexpr const char* kListing =
    R"(	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90"
	.elftype	@"ET_EXEC"


//--------------------- .text._Z4gemvPfS_         --------------------------
	.section	.text._Z4gemvPfS_,"ax",@progbits
	.sectioninfo	@"SHI_REGISTERS=16"
	.align	128
        .global         _Z4gemvPfS_
        .type           _Z4gemvPfS_,@function
_Z4gemvPfS_:
.text._Z4gemvPfS_:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   S2R R0, SR_TID.X ;                              /* 0x0000000000007919 */
        /*0020*/              @!P0 BRA `(.L_x_0) ;
.L_x_0:
        /*00a0*/                   LDG.E.128 R4, desc[UR6][R2.64] ;
        /*00b0*/                   EXIT ;
//--------------------- .text._Z4fillPf           --------------------------
	.section	.text._Z4fillPf,"ax",@progbits
_Z4fillPf:
.text._Z4fillPf:
        /*0000*/                   MOV R1, c[0x0][0x28] ;
        /*0010*/                   garbage without an end
        /*zz*/                     NOP ;
)";

TEST(SassListing, InstructionsReadBackPerFunctionAndOffset) {
    const auto listing = parseSassListing(kListing);
    ASSERT_EQ(listing.size(), 2u);
    const auto& gemv = listing.at("_Z4gemvPfS_");
    ASSERT_EQ(gemv.size(), 5u);
    EXPECT_EQ(gemv.at(0x0), "LDC R1, c[0x0][0x28]");
    EXPECT_EQ(gemv.at(0x10), "S2R R0, SR_TID.X");  // the encoding comment left out
    EXPECT_EQ(gemv.at(0x20), "@!P0 BRA `(.L_x_0)");
    EXPECT_EQ(gemv.at(0xa0), "LDG.E.128 R4, desc[UR6][R2.64]");
    const auto& fill = listing.at("_Z4fillPf");
    EXPECT_EQ(fill.at(0x0), "MOV R1, c[0x0][0x28]");
    // A line without its ';' keeps what it has; a bad offset is skipped.
    EXPECT_EQ(fill.at(0x10), "garbage without an end");
    EXPECT_EQ(fill.size(), 2u);
    EXPECT_TRUE(parseSassListing("").empty());
    EXPECT_TRUE(parseSassListing("/*0000*/ NOP ;\n").empty());  // outside any function
}

// nvdisasm's own listing of the split-KV MMA decode attention (CUDA 13.0,
// sm_90, on the GPU machine) against the SASS text a PC-sampled run of it
// stored for its hottest instructions (tests/data/pc-sampling-kept.json).
TEST(SassListing, NvdisasmsListingOfTheDecodeAttentionGivesTheStoredText) {
    std::ifstream in(WARPSCOPE_TEST_DATA_DIR "/decode-split-mma.sass");
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    const auto listing = parseSassListing(text);
    std::ifstream kept(WARPSCOPE_TEST_DATA_DIR "/pc-sampling-kept.json");
    const auto stored = nlohmann::json::parse(kept);
    const auto& function = listing.at(stored["mangled"].get<std::string>());
    EXPECT_GT(function.size(), 1000u);
    EXPECT_EQ(function.at(0x0), "LDC R1, c[0x0][0x28]");
    const auto& hot = stored["pc_sampling"]["hot_instructions"];
    ASSERT_FALSE(hot.empty());
    for (const auto& i : hot)
        EXPECT_EQ(function.at(i["pc_offset"].get<std::uint64_t>()), i["sass"].get<std::string>());
}

std::string standIn(testing::TempDir& dir, const std::string& body) {
    const auto path = dir.file("nvdisasm");
    testing::writeFile(path, "#!/bin/sh\n" + body);
    ::chmod(path.c_str(), 0755);
    return path;
}

TEST(SassListing, NvdisasmRunsOverTheCubinAndItsFailureIsSaid) {
    testing::TempDir dir;
    // Prints a function named after the cubin's bytes: they reached it.
    const auto ok = standIn(dir,
                            "[ \"$1\" = -c ] || exit 3\n"
                            "printf '.text.%s:\\n  /*0040*/  FFMA R0, R1, R2, R3 ;\\n' "
                            "\"$(cat \"$2\")\"\n");
    std::string why;
    const std::set<std::string> sampled{"_Z6kernelv"};
    const auto second = std::chrono::milliseconds(10000);
    auto listing = disassembleCubin(ok, "_Z6kernelv", sampled, second, why);
    ASSERT_TRUE(listing) << why;
    EXPECT_EQ(listing->at("_Z6kernelv").at(0x40), "FFMA R0, R1, R2, R3");
    // Functions not sampled are not kept.
    EXPECT_TRUE(disassembleCubin(ok, "_Z5otherv", sampled, second, why)->empty());

    testing::TempDir other;
    const auto bad =
        standIn(other, "echo 'nvdisasm fatal : Input file is not a cubin' >&2\nexit 1\n");
    EXPECT_FALSE(disassembleCubin(bad, "not a cubin", sampled, second, why));
    EXPECT_NE(why.find("exited with 1: nvdisasm fatal : Input file is not a cubin"),
              std::string::npos)
        << why;
    EXPECT_FALSE(disassembleCubin(dir.file("missing"), "x", sampled, second, why));
    EXPECT_NE(why.find("cannot run"), std::string::npos) << why;
    // One that hangs is stopped at its deadline: the traced program's exit
    // must not wait on it.
    testing::TempDir third;
    const auto hangs = standIn(third, "exec sleep 60\n");
    const auto before = std::chrono::steady_clock::now();
    EXPECT_FALSE(disassembleCubin(hangs, "x", sampled, std::chrono::milliseconds(300), why));
    EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(30));
    EXPECT_NE(why.find("took longer than 300 ms and was stopped"), std::string::npos) << why;
}

TEST(SassListing, NvdisasmIsFoundWhereTheUserSaysOrNotAtAll) {
    testing::TempDir dir;
    const auto tool = standIn(dir, "exit 0\n");
    ::setenv("WARPSCOPE_NVDISASM", tool.c_str(), 1);
    EXPECT_EQ(findNvdisasm(), tool);
    ::setenv("WARPSCOPE_NVDISASM", dir.file("absent").c_str(), 1);
    EXPECT_EQ(findNvdisasm(), "");  // named but not there: not looked for elsewhere
    ::unsetenv("WARPSCOPE_NVDISASM");
    // With CUDA_HOME and PATH pointing only at the folder holding it.
    ::setenv("CUDA_HOME", "/nonexistent", 1);
    const std::string path = ::getenv("PATH") ? ::getenv("PATH") : "";
    ::setenv("PATH", dir.path().c_str(), 1);
    const auto found = findNvdisasm();
    ::setenv("PATH", path.c_str(), 1);
    ::unsetenv("CUDA_HOME");
    // /usr/local/cuda/bin/nvdisasm, where installed, comes before PATH.
    struct stat st {};
    if (::stat("/usr/local/cuda/bin/nvdisasm", &st) == 0)
        EXPECT_EQ(found, "/usr/local/cuda/bin/nvdisasm");
    else
        EXPECT_EQ(found, tool);
}

}  // namespace
}  // namespace ws::capture
